"""`promote_baseline`: the baseline YAML, the snapshot dir, refusals and replacement."""

from __future__ import annotations

import orjson
import pytest
import yaml
from report_kit import BASE_CASES, SUITE, Env, add_run, write_audit, write_registry

from rcaeval.errors import InputError
from rcaeval.registry import BaselineSpec, validate_registry
from rcaeval.report import load_baseline, promote_baseline, snapshot_dir


def test_promote_writes_valid_baseline_yaml(env: Env) -> None:
    path = promote_baseline(env.store, "base-1", env.registry, env.audits)
    assert path == env.registry / "baselines" / "smoke.yaml"
    spec = BaselineSpec.model_validate(yaml.safe_load(path.read_text()))
    assert spec == load_baseline(env.registry, SUITE)
    assert (spec.suite_id, spec.suite_version, spec.run_id) == ("smoke", "1.0", "base-1")
    assert spec.promoted_at.isoformat() == "2026-10-03T14:10:00+00:00"  # the run's finished_at
    assert spec.judge_version == "0.1.0"
    assert spec.summary.model_dump(by_alias=True) == {
        "cases": 5, "pass": 4, "fail": 1, "invalid": 0, "total_score": 370.0}
    rows = {c.case_id: (c.verdict, c.score, c.subtype, c.baseline_eligible) for c in spec.cases}
    assert rows["case-c"] == ("fail", 40.0, "diagnosis_fail", True)
    assert set(rows) == set(BASE_CASES)
    assert validate_registry(env.registry) == []  # the registry's own baseline lints agree


def test_promote_writes_snapshot(env: Env) -> None:
    promote_baseline(env.store, "base-1", env.registry, env.audits)
    snap = snapshot_dir(env.registry, "base-1")
    assert (snap / "report.txt").read_text().startswith("rcaeval run report: base-1\n")
    assert (snap / "report_detail.txt").is_file()
    assert load_baseline(env.registry, SUITE) == BaselineSpec.model_validate(
        yaml.safe_load((snap / "baseline.yaml").read_text()))
    for cid in BASE_CASES:
        case = snap / cid
        packet = orjson.loads((case / "judgment.json").read_bytes())
        assert packet["case_id"] == cid
        assert (case / "output.txt").read_text().startswith("# Root cause")
        result = yaml.safe_load((case / "case_result.yaml").read_text())
        assert result["verdict"] == BASE_CASES[cid][0]
        assert result["score"] == BASE_CASES[cid][1]
        assert result["status"] == "judged"
        assert result["buckets"]["diagnosis"]["max_score"] == 50.0
        assert result["tokens"]["output"] == 100
        assert (case / "evidences" / "metrics.json").is_file()
        assert (case / "evidences" / "sub" / "note.txt").read_text() == "nested"
        assert not (case / "evidences" / "link.json").exists()  # symlinks are never copied
    assert (snap / "case-a" / "semantic_packet_v1.json").is_file()
    assert not (snap / "case-b" / "semantic_packet_v1.json").exists()
    assert not list(snap.parent.glob(".*tmp*"))


def test_repromotion_is_idempotent(env: Env) -> None:
    snap = snapshot_dir(env.registry, "base-1")
    path = promote_baseline(env.store, "base-1", env.registry, env.audits)
    before = {p.relative_to(snap): p.read_bytes() for p in snap.rglob("*") if p.is_file()}
    yaml_before = path.read_bytes()
    promote_baseline(env.store, "base-1", env.registry, env.audits)
    after = {p.relative_to(snap): p.read_bytes() for p in snap.rglob("*") if p.is_file()}
    assert after == before
    assert path.read_bytes() == yaml_before


def test_promotion_replaces_previous_snapshot(env: Env) -> None:
    promote_baseline(env.store, "base-1", env.registry, env.audits)
    write_audit(env.audits, "rerun-1", list(BASE_CASES))
    promote_baseline(env.store, "rerun-1", env.registry)  # audit root from eval_runs
    assert load_baseline(env.registry, SUITE).run_id == "rerun-1"
    assert not snapshot_dir(env.registry, "base-1").exists()
    new = snapshot_dir(env.registry, "rerun-1")
    assert (new / "case-a" / "output.txt").is_file()
    report = (new / "report.txt").read_text()
    assert "comparison status: compared with baseline base-1: OK (no regression)" in report


def test_keep_old_keeps_previous_snapshot(env: Env) -> None:
    promote_baseline(env.store, "base-1", env.registry, env.audits)
    promote_baseline(env.store, "rerun-1", env.registry, env.audits, keep_old=True)
    assert snapshot_dir(env.registry, "base-1").is_dir()
    assert snapshot_dir(env.registry, "rerun-1").is_dir()


def test_refuses_unfinished_run_unless_forced(env: Env) -> None:
    add_run(env.store, "running-1", BASE_CASES, status="running")
    with pytest.raises(InputError, match="not finished \\(status running\\)"):
        promote_baseline(env.store, "running-1", env.registry, env.audits)
    assert not (env.registry / "baselines").exists()
    path = promote_baseline(env.store, "running-1", env.registry, env.audits, force=True)
    # no finished_at: promoted_at falls back to the last case's finished_at
    assert load_baseline(env.registry, SUITE).promoted_at.isoformat() == \
        "2026-10-03T14:05:02+00:00"
    assert path.is_file()


def test_refuses_errored_and_partial_runs(env: Env) -> None:
    cases = {**BASE_CASES, "case-b": (None, None)}
    add_run(env.store, "err-1", cases, case_status={"case-b": "errored"})
    with pytest.raises(InputError, match="case-b \\(errored\\)"):
        promote_baseline(env.store, "err-1", env.registry, env.audits)
    partial = {k: v for k, v in BASE_CASES.items() if k != "case-d"}
    add_run(env.store, "partial-1", partial)
    with pytest.raises(InputError, match="were not run: case-d"):
        promote_baseline(env.store, "partial-1", env.registry, env.audits)
    promote_baseline(env.store, "err-1", env.registry, env.audits, force=True)
    row = next(c for c in load_baseline(env.registry, SUITE).cases if c.case_id == "case-b")
    assert (row.verdict, row.score, row.subtype) == ("invalid", 0.0, "errored")


def test_refuses_other_suite_version_and_foreign_snapshot(env: Env) -> None:
    write_registry(env.registry, version="2.0")
    with pytest.raises(InputError, match="suite version 1.0 but the registry's suite is at 2.0"):
        promote_baseline(env.store, "base-1", env.registry, env.audits)
    write_registry(env.registry, version="1.0")
    foreign = snapshot_dir(env.registry, "base-1")
    foreign.mkdir(parents=True)
    (foreign / "keep.txt").write_text("someone else's")
    with pytest.raises(InputError, match="is not the snapshot of run 'base-1'"):
        promote_baseline(env.store, "base-1", env.registry, env.audits)
    assert (foreign / "keep.txt").is_file()
    promote_baseline(env.store, "base-1", env.registry, env.audits, force=True)
    assert not (foreign / "keep.txt").exists()


def test_refuses_run_without_suite(env: Env) -> None:
    add_run(env.store, "adhoc-1", {"case-a": ("pass", 80.0)}, suite_id=None)
    with pytest.raises(InputError, match="records no suite_id"):
        promote_baseline(env.store, "adhoc-1", env.registry, env.audits, force=True)
