"""A store judged from data/recorded (shared by the notebook, chart and run-page tests): the
runs rec-thorough and rec-shallow are smoke-suite runs and rec-thorough is promoted into a copy
of the registry as the suite's baseline; the shipped sample labels are imported."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

import rcaeval.store as st
from rcaeval.judge import judge_audit
from rcaeval.label import import_sheet
from rcaeval.report import diff_against_baseline, promote_baseline

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "data"


@pytest.fixture(scope="session")
def store_with_baseline(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("nbstore")
    registry = tmp / "registry"
    shutil.copytree(DATA / "registry", registry)
    suite = yaml.safe_load((DATA / "registry" / "suites" / "smoke.yaml").read_text("utf-8"))
    db = tmp / "rcaeval.duckdb"
    with st.connect(db) as s:
        judge_audit(s, DATA / "recorded", DATA / "registry", out_dir=tmp / "audits", workers=1)
        # Judged from an audit dir, the runs record no suite (and no time); make two of them
        # smoke-suite runs so one can be the baseline of the other.
        s.con.execute(
            "UPDATE eval_runs SET suite_id = 'smoke', suite_version = ?, "
            "finished_at = coalesce(finished_at, TIMESTAMPTZ '2026-11-01 00:00:00+00') "
            "WHERE run_id IN ('rec-thorough', 'rec-shallow')",
            [str(suite["version"])],
        )
        promote_baseline(s, "rec-thorough", registry, audit_root=DATA / "recorded", force=True)
        # the shipped sample labels, for the explore notebook's agreement section
        import_sheet(s, DATA / "recorded" / "labels.csv")
        assert diff_against_baseline(s, "rec-shallow", registry).gate_failed
    return db, registry
