"""The recorded sample judged once per session (data/recorded against data/registry); each
test copies the store file before it writes to it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import rcaeval.store as st
from rcaeval.judge import judge_audit

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def judged_sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("labelstore") / "sample.duckdb"
    with st.connect(db) as s:
        judge_audit(s, REPO / "data" / "recorded", REPO / "data" / "registry",
                    write_files=False, workers=1)
    return db


@pytest.fixture()
def sample_db(judged_sample: Path, tmp_path: Path) -> Path:
    """A writable copy of the judged sample."""
    db = tmp_path / "s.duckdb"
    shutil.copyfile(judged_sample, db)
    return db
