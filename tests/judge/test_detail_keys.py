"""The judge's detail tables have no PRIMARY KEY (migration 0022): the judge's writer keeps
their keys unique. Judging a run twice, then re-judging it from the store, leaves exactly one
row per key, and the same rows each time."""

from __future__ import annotations

import shutil

import pytest

from rcaeval._paths import data_dir

RECORDED = data_dir() / "recorded"
REGISTRY = data_dir() / "registry"
RUN = "rec-thorough"
DETAIL = ("eval_fact", "eval_check", "eval_bucket", "eval_detector_hit", "eval_trajectory_tool")

pytestmark = pytest.mark.skipif(
    not (RECORDED / RUN).is_dir() or not (REGISTRY / "cases").is_dir(),
    reason="sample data not generated yet (data/recorded, data/registry)",
)


def _rows(store) -> dict[str, list[tuple]]:
    return {t: store.con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in DETAIL}


def test_judge_twice_and_rejudge_keep_one_row_per_key(tmp_path):
    import rcaeval.store as st
    from rcaeval.judge import judge_audit, rejudge_store

    audits = tmp_path / "audits" / RUN
    for case in sorted(p.name for p in (RECORDED / RUN).iterdir() if p.is_dir())[:3]:
        shutil.copytree(RECORDED / RUN / case, audits / case)
    store = st.connect(tmp_path / "s.duckdb")
    try:
        keyed = store.con.execute("SELECT table_name FROM duckdb_constraints() "
                                  "WHERE constraint_type = 'PRIMARY KEY'").fetchall()
        assert not {t for (t,) in keyed} & set(DETAIL)
        judge_audit(store, audits, REGISTRY, write_files=False, workers=1, chunk_size=2)
        first = _rows(store)
        assert all(first[t] for t in ("eval_fact", "eval_check", "eval_bucket"))
        assert store.duplicate_keys() == {}
        judge_audit(store, audits, REGISTRY, write_files=False, workers=1)
        assert _rows(store) == first
        rejudge_store(store, REGISTRY, write_files=False, chunk_size=2)
        assert _rows(store) == first
        assert store.duplicate_keys() == {}
    finally:
        store.close()
