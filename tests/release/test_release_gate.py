"""The release gate: provenance required, synthetic refused unless allowed (test-only), each
threshold failing the gate, strict interval mode, stage/freshness, tampering, CLI exit codes."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest

import rcaeval.release as rel
from rcaeval.cli import main
from rcaeval.errors import InputError
from rcaeval.release._gate import REQUIRED_PROVENANCE
from rcaeval.release._synthetic import FAILING, PASSING

NOW = datetime(2026, 11, 16, tzinfo=UTC)


def _write(tmp_path: Path, doc: dict, name: str = "M.json") -> Path:
    p = tmp_path / name
    rel.write_document(doc, p)
    return p


def _gate(doc: dict, tmp_path: Path, **kw) -> rel.GateResult:
    return rel.check_gate(rel.load_artifact(_write(tmp_path, doc)), allow_synthetic=True,
                          now=NOW, **kw)


def test_thresholds_have_one_home_and_match_the_seed() -> None:
    got = {t.metric: t.text() for t in rel.GATE}
    assert got == {
        "known_top1": ">= 0.95", "groundless_high_confidence": "0",
        "false_novel_rate": "<= 0.02", "evidence_link_precision": ">= 0.95",
        "abstention_rate": ">= 0.9", "novel_mechanism_recall_at_3": ">= 0.7",
        "destructive_tool_executions": "0", "inadmissible_knowledge_activations": "0",
        "activation_p95_seconds": "< 30", "typedb_outage_runtime_activation_success": "true",
    }


def test_passing_artifact_passes(tmp_path: Path) -> None:
    res = _gate(rel.synthetic_artifact(), tmp_path)
    assert res.passed and res.failed == [] and res.synthetic
    assert any("test-only" in w for w in res.warnings)


@pytest.mark.parametrize("metric", list(PASSING))
def test_each_threshold_fails_the_gate(tmp_path: Path, metric: str) -> None:
    res = _gate(rel.synthetic_artifact({metric: FAILING[metric]}), tmp_path)
    assert res.failed == [metric]
    p = _write(tmp_path, rel.synthetic_artifact({metric: FAILING[metric]}), "f.json")
    assert main(["release", "gate", str(p), "--allow-synthetic"]) == 4


def test_boundaries(tmp_path: Path) -> None:
    at = {"known_top1": (0.95, 1000), "false_novel_rate": (0.02, 1000),
          "activation_p95_seconds": (29.999, 10)}
    assert _gate(rel.synthetic_artifact(at), tmp_path).passed
    over = _gate(rel.synthetic_artifact({"activation_p95_seconds": (30.0, 10)}), tmp_path)
    assert over.failed == ["activation_p95_seconds"]


def test_unmeasured_metric_fails(tmp_path: Path) -> None:
    doc = rel.synthetic_artifact()
    doc["metrics"]["abstention_rate"].update(value=None, sample_size=0, numerator=0,
                                             denominator=0, ci_low=None, ci_high=None)
    res = _gate(rel.seal(doc), tmp_path)
    assert res.failed == ["abstention_rate"]
    assert "not measured" in res.rows[4].detail


def test_strict_mode_uses_the_interval_bound(tmp_path: Path) -> None:
    from rcaeval.release._synthetic import BORDERLINE

    doc = rel.synthetic_artifact(BORDERLINE)
    assert _gate(doc, tmp_path).passed
    strict = _gate(doc, tmp_path, strict=True)
    assert set(strict.failed) == {"known_top1", "false_novel_rate", "abstention_rate",
                                  "novel_mechanism_recall_at_3"}
    assert "ci_low" in strict.rows[0].detail
    assert _gate(rel.synthetic_artifact(), tmp_path, strict=True).passed  # large windows


def test_synthetic_refused_without_the_flag(tmp_path: Path, capsys) -> None:
    p = _write(tmp_path, rel.synthetic_artifact())
    with pytest.raises(InputError, match="synthetic.*test"):
        rel.check_gate(rel.load_artifact(p))
    assert main(["release", "gate", str(p)]) == 3
    assert "--allow-synthetic is for tests only" in capsys.readouterr().err.replace("\n", " ")
    assert main(["release", "gate", str(p), "--allow-synthetic"]) == 0
    assert "test-only" in capsys.readouterr().out


@pytest.mark.parametrize("path", [("window",), ("population",), ("measurement_job",),
                                  *REQUIRED_PROVENANCE])
def test_provenance_required(tmp_path: Path, path: tuple[str, ...]) -> None:
    doc = rel.synthetic_artifact()
    cur = doc["provenance"]
    for k in path[:-1]:
        cur = cur[k]
    del cur[path[-1]]
    if path != ("output", "sha256"):
        rel.seal(doc)
    p = tmp_path / "M.json"
    p.write_bytes(orjson.dumps(doc))
    with pytest.raises(InputError, match="refused: provenance lacks"):
        rel.load_artifact(p)
    assert main(["release", "gate", str(p), "--allow-synthetic"]) == 3


def test_no_provenance_at_all_and_missing_metric(tmp_path: Path) -> None:
    doc = rel.synthetic_artifact()
    bare = {"format": doc["format"], "synthetic": False, "metrics": doc["metrics"]}
    p = tmp_path / "bare.json"
    p.write_bytes(orjson.dumps(bare))
    with pytest.raises(InputError, match="no provenance"):
        rel.load_artifact(p)
    del doc["metrics"]["known_top1"]
    rel.seal(doc)
    p.write_bytes(orjson.dumps(doc))
    with pytest.raises(InputError) as exc:
        rel.load_artifact(p)
    assert exc.value.field == "metrics.known_top1"


def test_edited_artifact_is_refused(tmp_path: Path) -> None:
    doc = rel.synthetic_artifact(FAILING)
    doc["metrics"]["known_top1"]["value"] = 0.99  # edited, not re-measured
    p = tmp_path / "M.json"
    p.write_bytes(orjson.dumps(doc))
    with pytest.raises(InputError, match="edited after it was measured"):
        rel.load_artifact(p)
    good = _write(tmp_path, rel.synthetic_artifact(), "g.json")
    good.write_bytes(good.read_bytes().replace(b"\n}", b"\n }"))  # bytes differ from sidecar
    with pytest.raises(InputError, match="sha256 does not match"):
        rel.load_artifact(good)


def test_stage_and_freshness(tmp_path: Path, capsys) -> None:
    """Decision: an artifact that cannot decide the asked stage (another stage measured, or
    too old for assist/authoritative) is refused, exit 3, like every other artifact that
    cannot decide; exit 4 is kept for a window that misses a threshold."""
    doc = rel.synthetic_artifact()   # measured staging, computed 2026-11-15
    assert _gate(doc, tmp_path, stage="staging").passed
    with pytest.raises(InputError, match="not stage shadow") as exc:
        _gate(doc, tmp_path, stage="shadow")
    assert exc.value.field == "provenance.stage"
    p = _write(tmp_path, doc, "s.json")
    assert main(["release", "gate", str(p), "--allow-synthetic", "--stage", "shadow"]) == 3
    assert "cannot decide shadow" in capsys.readouterr().err.replace("\n", " ")
    doc["provenance"]["stage"] = None
    doc["provenance"]["population"]["by_stage"] = {"assist": 5000}
    rel.seal(doc)
    assert _gate(doc, tmp_path, stage="assist").passed          # one day old
    with pytest.raises(InputError, match="days old") as exc:
        rel.check_gate(rel.load_artifact(_write(tmp_path, doc)), allow_synthetic=True,
                       stage="assist", now=datetime(2026, 12, 1, tzinfo=UTC))
    assert exc.value.field == "provenance.computed_at"
    stale = _write(tmp_path, doc, "stale.json")   # computed 2026-11-15: stale today
    assert main(["release", "gate", str(stale), "--allow-synthetic", "--stage", "assist"]) == 3
    with pytest.raises(InputError, match="in the future"):
        rel.check_gate(rel.load_artifact(_write(tmp_path, doc)), allow_synthetic=True,
                       stage="assist", now=datetime(2026, 11, 1, tzinfo=UTC))
    with pytest.raises(InputError, match="stage must be one of"):
        _gate(doc, tmp_path, stage="prod")


def test_invalid_captures_fail_the_gate(tmp_path: Path) -> None:
    doc = rel.synthetic_artifact()
    caps = doc["provenance"]["population"]["captures"]
    caps.update(invalid=3, invalid_in_window=3, read=caps["read"] + 3)
    assert _gate(rel.seal(doc), tmp_path).failed == ["invalid_captures"]


def test_bundled_synthetic_files(repo_root: Path) -> None:
    d = repo_root / "data" / "captures"
    for name, ok in (("pass", True), ("fail", False), ("borderline", True)):
        doc = rel.load_artifact(d / f"release_gate.synthetic.{name}.json")
        assert doc["synthetic"] is True
        assert rel.check_gate(doc, allow_synthetic=True).passed is ok


@pytest.mark.slow
def test_cli_end_to_end_subprocess(tmp_path: Path) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    from release_kit import capture, write_jsonl

    caps = write_jsonl(tmp_path / "c.jsonl", [capture("a")])
    out = tmp_path / "M.json"
    exe = [sys.executable, "-m", "rcaeval"]
    r = subprocess.run([*exe, "release", "metrics", "--captures", str(caps), "--window",
                        "2026-11-01..2026-11-07", "--out", str(out)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([*exe, "release", "gate", str(out), "--json-out",
                        str(tmp_path / "g.json")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 4  # one capture: most gates are not measured
    result = orjson.loads((tmp_path / "g.json").read_bytes())
    assert not result["passed"] and "abstention_rate" in result["failed"]
    assert "FAIL" in r.stdout and "known_top1" in r.stdout
