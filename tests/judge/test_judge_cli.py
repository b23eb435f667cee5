"""`rcaeval judge` and `rcaeval explain` through the CLI entry point."""

from __future__ import annotations

import pytest

from rcaeval._paths import data_dir
from rcaeval.cli import main

RECORDED = data_dir() / "recorded"
REGISTRY = data_dir() / "registry"


@pytest.mark.skipif(not (RECORDED / "rec-thorough").is_dir() or not REGISTRY.is_dir(),
                    reason="sample data not generated yet (data/recorded, data/registry)")
def test_judge_then_explain(tmp_path, capsys):
    db = tmp_path / "s.duckdb"
    code = main(["judge", str(RECORDED / "rec-thorough"), "--registry", str(REGISTRY),
                 "--db", str(db), "--out", str(tmp_path / "out"), "--workers", "1"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "case run(s): pass" in out
    assert (tmp_path / "out" / "rec-thorough" / "tikv-panic-restart-001" / "judgment.json"
            ).is_file()
    code = main(["explain", "rec-thorough", "tikv-panic-restart-001", "--db", str(db)])
    out = capsys.readouterr().out
    assert code == 0
    assert "critical_evidence: pass" in out and "diagnosis: pass" in out


def test_explain_unknown_judgment_is_not_found(tmp_path, capsys):
    code = main(["explain", "nope", "nope", "--db", str(tmp_path / "s.duckdb")])
    assert code == 6


def test_judge_missing_dir_is_not_found(tmp_path, capsys):
    code = main(["judge", str(tmp_path / "missing"), "--db", str(tmp_path / "s.duckdb")])
    assert code == 6


def _audit_paths(db, run_id: str) -> dict[str, str]:
    from rcaeval.store import connect

    with connect(db, read_only=True) as s:
        return dict(s.sql("SELECT case_id, audit_path FROM eval_case_runs WHERE run_id = "
                          f"'{run_id}'").rows())


def test_judging_a_copy_of_a_recorded_run_needs_replace(tmp_path, capsys):
    """A copy keeps the original's run id (manifest.json): judging it would replace the
    original's judgments while the store cited the original's dir, so it is refused (exit 3)
    unless --replace, which then cites the copy."""
    import shutil

    cases = ["tikv-panic-restart-001", "kill-query-chain-001"]
    orig, copy = tmp_path / "orig" / "rec-shallow", tmp_path / "copy" / "rec-shallow"
    for cid in cases:
        shutil.copytree(RECORDED / "rec-shallow" / cid, orig / cid)
        shutil.copytree(RECORDED / "rec-shallow" / cid, copy / cid)
    db = tmp_path / "s.duckdb"
    base = ["--registry", str(REGISTRY), "--db", str(db), "--workers", "1", "--no-files"]
    assert main(["judge", str(orig), *base]) == 0
    assert main(["judge", str(orig), *base]) == 0  # the same dir again: a plain re-judge
    capsys.readouterr()
    assert main(["judge", str(copy), *base]) == 3
    err = capsys.readouterr().err
    assert "copy of a run already in the store" in err and "--replace" in err
    assert f"store has from {orig / cases[1]}" in " ".join(err.split())
    assert _audit_paths(db, "rec-shallow") == {c: str(orig / c) for c in cases}
    assert main(["judge", str(copy), *base, "--replace"]) == 0
    capsys.readouterr()
    assert _audit_paths(db, "rec-shallow") == {c: str(copy / c) for c in cases}
    # now the original is the other copy
    assert main(["judge", str(orig), *base]) == 3
