"""`rcaeval offline score`: --min-top1 and the baseline no-regress rule each fail a run when
they should (exit 4), bad input exits 3 after scoring the rest, --write-baseline round-trips;
plus one real subprocess run of the installed command on the shipped sample."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from offline_kit import fx, resp, write

from rcaeval.cli import main
from rcaeval.errors import InputError
from rcaeval.offline import read_baseline, score_fixtures


def _known(n_hit: int, n_miss: int) -> list[dict]:
    rows = [fx(f"k{i:02d}") for i in range(n_hit)]
    rows += [fx(f"m{i:02d}", response=resp("disk_full")) for i in range(n_miss)]
    return rows


def test_min_top1_threshold(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = str(write(tmp_path / "f.jsonl", _known(22, 1)))
    assert main(["offline", "score", "--fixtures", f, "--min-top1", "0.95"]) == 0
    assert main(["offline", "score", "--fixtures", f, "--min-top1", "0.96"]) == 4
    out = capsys.readouterr().out
    assert "known Top-1 22/23 = 0.957 is below --min-top1 0.96" in out
    assert main(["offline", "score", "--fixtures", f]) == 0
    assert main(["offline", "score", "--fixtures", f, "--min-top1", "1.5"]) == 3


def test_baseline_no_regress_rule(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = tmp_path / "baseline.json"
    f22 = str(write(tmp_path / "f22.jsonl", _known(22, 1)))
    assert main(["offline", "score", "--fixtures", f22, "--write-baseline", str(base)]) == 0
    b = read_baseline(base)
    assert b["known_top1"]["correct"] == 22 and b["known_top1"]["total"] == 23
    assert len(b["known_top1"]["correct_cases"]) == 22
    assert main(["offline", "score", "--fixtures", f22, "--baseline", str(base)]) == 0
    # k05 regresses: 21/23 < 22/23 even though 21/23 would pass --min-top1 0.9
    rows = _known(22, 1)
    rows[5] = fx("k05", response=resp("disk_full", hypotheses=["disk_full", "oom_kill"]))
    f21 = str(write(tmp_path / "f21.jsonl", rows))
    capsys.readouterr()
    assert main(["offline", "score", "--fixtures", f21, "--baseline", str(base),
                 "--min-top1", "0.9"]) == 4
    out = capsys.readouterr().out
    assert "regressed from the baseline 22/23 to 21/23 (no longer Top-1: k05)" in out
    # an improvement passes
    f23 = str(write(tmp_path / "f23.jsonl", _known(23, 0)))
    assert main(["offline", "score", "--fixtures", f23, "--baseline", str(base)]) == 0
    s = score_fixtures(f21, baseline=base)
    assert s.regressed_cases == ["k05"] and not s.ok
    # the paired exact McNemar test against the baseline: one discordant case, p = 1
    mc = s.versus_baseline
    assert (mc.b, mc.c, mc.both, mc.neither) == (1, 0, 21, 1) and mc.p_value == 1.0
    # the no-information baseline: always the most frequent expected family (all oom_kill)
    assert (s.no_information.label, s.no_information.hits, s.no_information.n) == \
        ("oom_kill", 23, 23)
    assert b["known_top1"]["known_cases"] == sorted(r["case_id"] for r in _known(22, 1))


def test_bad_input_exit_3_scores_the_rest(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    rows = [*_known(3, 0), {"case_id": "legacy", "novel_hypothesis": "x"}]
    f = str(write(tmp_path / "f.jsonl", rows))
    base = tmp_path / "b.json"
    assert main(["offline", "score", "--fixtures", f, "--json",
                 "--write-baseline", str(base)]) == 3
    cap = capsys.readouterr()
    data = json.loads(cap.out)
    assert data["known_top1"] == {"correct": 3, "total": 3}
    assert data["errors"][0]["line"] == 4 and data["errors"][0]["field"] == "novel_hypothesis"
    assert f"{f}:4 [novel_hypothesis]" in cap.err
    assert not base.exists()
    assert main(["offline", "score", "--fixtures", str(tmp_path / "none.jsonl")]) == 6


def test_bad_baseline_file(tmp_path: Path) -> None:
    b = tmp_path / "b.json"
    b.write_text('{"format": "rcaeval.offline_baseline/1", "known_top1": {"correct": 5, '
                 '"total": 3}}')
    with pytest.raises(InputError) as exc:
        read_baseline(b)
    assert exc.value.field == "known_top1.correct"
    b.write_text('{"format": "x"}')
    f = str(write(tmp_path / "f.jsonl", _known(1, 0)))
    assert main(["offline", "score", "--fixtures", f, "--baseline", str(b)]) == 3
    assert main(["offline", "score", "--fixtures", f, "--baseline",
                 str(tmp_path / "missing.json")]) == 6


def test_cases_out_and_the_shipped_sample_via_subprocess(tmp_path: Path,
                                                          repo_root: Path) -> None:
    out = tmp_path / "cases.jsonl"
    sample = repo_root / "data" / "offline"
    proc = subprocess.run(
        [sys.executable, "-m", "rcaeval", "offline", "score", "--fixtures",
         str(sample / "fixtures.jsonl"), "--baseline", str(sample / "baseline.json"),
         "--cases-out", str(out)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    base = read_baseline(sample / "baseline.json")
    top = base["known_top1"]
    assert f"known Top-1: {top['correct']}/{top['total']}" in proc.stdout
    rows = [orjson.loads(line) for line in out.read_bytes().splitlines()]
    assert sum(r["case_type"] == "known" for r in rows) == top["total"] >= 23
    assert {r["case_type"] for r in rows} == {"known", "compositional", "novel",
                                              "tool_degraded"}
