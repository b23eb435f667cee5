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
