"""`offline score --max-open-world-high-confidence N` (default 0): a zero-tolerance gate on
unsupported high-confidence conclusions for open-world (novel) cases."""

from __future__ import annotations

from pathlib import Path

import pytest
from offline_kit import ev, fx, resp, write

from rcaeval.cli import main
from rcaeval.errors import InputError
from rcaeval.offline import score_fixtures

NOVEL = {"expected_family": "clock_skew", "expected_outcome": ["provisional", "diagnosed"]}


def _novel(cid: str, response: dict) -> dict:
    return fx(cid, "novel", response=response, **NOVEL)


def _rows() -> list[dict]:
    one_group = resp("clock_skew", confidence="high",
                     evidence=[ev("E01", "prometheus", supports=["clock_skew"]),
                               ev("E02", "node_exporter", group="prometheus")],
                     rc_ids=["E01", "E02"])                      # one source group
    return [
        _novel("n-unsupported", one_group),                               # counts
        _novel("n-historical", resp("clock_skew", confidence="high", evidence=[
            ev("E01", "logs", supports=["clock_skew"]),
            ev("E02", "prometheus", origin="historical")], rc_ids=["E01", "E02"])),  # counts
        _novel("n-other-family", resp("Clock_Skew", confidence="high", evidence=[
            ev("E01", "logs", supports=["clock_skew"]),
            ev("E02", "prometheus", supports=["gc_storm"])], rc_ids=["E01", "E02"])),  # counts
        _novel("n-two-groups", resp("clock_skew", confidence="high", evidence=[
            ev("E01", "logs", supports=["clock_skew"]),
            ev("E02", "prometheus")], rc_ids=["E01", "E02"])),            # supported
        _novel("n-dispositive", resp("clock_skew", confidence="high", evidence=[
            ev("E01", "ntp", supports=["clock_skew"], dispositive="offset > 1s")])),  # supported
        _novel("n-medium", resp("clock_skew", confidence="medium")),       # not high
        _novel("n-provisional", resp(None, confidence="none", outcome="provisional")),
        fx("k-high", "known", response=resp("oom_kill", confidence="high")),  # not open-world
    ]


def test_unsupported_high_confidence_counts_and_fails_by_default(tmp_path: Path) -> None:
    s = score_fixtures(write(tmp_path / "f.jsonl", _rows()))
    m = s.metrics.filter(s.metrics["metric"] == "offline_open_world_unsupported_high_confidence"
                         ).row(0, named=True)
    assert (m["numerator"], m["denominator"]) == (3, 7)
    assert any("3 unsupported high-confidence" in f for f in s.failures)
    assert not score_fixtures(write(tmp_path / "g.jsonl", _rows()),
                              max_open_world_high_confidence=3).failures


def test_cli_exit_codes(tmp_path: Path) -> None:
    f = write(tmp_path / "f.jsonl", _rows())
    assert main(["offline", "score", "--fixtures", str(f)]) == 4
    assert main(["offline", "score", "--fixtures", str(f),
                 "--max-open-world-high-confidence", "3"]) == 0
    assert main(["offline", "score", "--fixtures", str(f),
                 "--max-open-world-high-confidence", "-1"]) == 3
    ok = write(tmp_path / "ok.jsonl", [r for r in _rows() if r["case_id"] in
                                       ("n-two-groups", "n-dispositive", "n-medium", "k-high")])
    assert main(["offline", "score", "--fixtures", str(ok)]) == 0
    with pytest.raises(InputError):
        score_fixtures(ok, max_open_world_high_confidence=True)  # type: ignore[arg-type]


def test_shipped_sample_has_none(repo_root: Path) -> None:
    s = score_fixtures(repo_root / "data" / "offline" / "fixtures.jsonl")
    assert not any("open-world" in f for f in s.failures)
