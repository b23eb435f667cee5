"""The judge detail tables' keys, which DuckDB does not enforce (migration 0022,
queries/store/unenforced_keys.sql): migrating keeps every row, and every writer outside the
judge refuses a write that would hold a key twice, leaving the store as it was."""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest

import rcaeval.store as st
from rcaeval.doctor import run_checks
from rcaeval.errors import InputError

DETAIL = ("eval_fact", "eval_check", "eval_bucket", "eval_detector_hit", "eval_trajectory_tool")
KEYS = ["run_id", "case_id", "bucket", "check_id"]


def _checks(run_id: str, passed: bool) -> pl.DataFrame:
    return pl.DataFrame({"run_id": [run_id] * 2, "case_id": ["c1"] * 2,
                         "bucket": ["diagnosis", "contract"], "check_id": ["rc", "window"],
                         "passed": [passed] * 2, "evidence_line": [3, 4]})


def _primary_keys(store: st.Store) -> set[str]:
    rows = store.con.execute("SELECT table_name FROM duckdb_constraints() "
                             "WHERE constraint_type = 'PRIMARY KEY'").fetchall()
    return {t for (t,) in rows}


def test_migration_0022_keeps_rows_columns_and_not_null(tmp_path: Path) -> None:
    old, db = tmp_path / "migrations", tmp_path / "s.duckdb"
    old.mkdir()
    known = st.discover_migrations()
    for m in known:
        if m.version < 22:
            shutil.copy(m.path, old / m.filename)
    with st.connect(db, migrations_dir=old) as s:
        assert s.schema_version == 21 and set(DETAIL) <= _primary_keys(s)
        columns = {t: s.columns(t) for t in DETAIL}
        s.write_frame("eval_check", _checks("r1", True))
        s.write_frame("eval_bucket", pl.DataFrame({"run_id": ["r1"], "case_id": ["c1"],
                                                   "bucket": ["diagnosis"], "status": ["pass"]}))
        before = {t: s.table(t) for t in DETAIL}
    for m in known:
        if m.version >= 22:
            shutil.copy(m.path, old / m.filename)
    with st.connect(db, migrations_dir=old) as s:
        assert s.schema_version >= 22 and not set(DETAIL) & _primary_keys(s)
        assert {t: s.columns(t) for t in DETAIL} == columns
        for t in DETAIL:
            assert s.table(t).equals(before[t]), t
        with pytest.raises(InputError, match="nothing written"):
            s.write_frame("eval_bucket", pl.DataFrame({"run_id": ["r2"], "case_id": [None],
                                                       "bucket": ["x"], "status": ["pass"]}))


def test_write_frame_refuses_a_repeated_key_and_writes_nothing(store: st.Store) -> None:
    store.write_frame("eval_check", _checks("r1", True))
    with pytest.raises(InputError, match="duplicate values") as err:
        store.write_frame("eval_check", _checks("r1", False))
    assert err.value.field == ",".join(KEYS)
    assert "r1 / c1 / contract / window (2 rows)" in str(err.value)
    assert store.checks()["passed"].to_list() == [True, True]
    twice = pl.concat([_checks("r2", True), _checks("r2", True)])
    with pytest.raises(InputError, match="duplicate values"):
        store.write_frame("eval_check", twice)
    assert store.checks().height == 2
    # replace_keys makes the same write a replacement, not a clash
    store.write_frame("eval_check", _checks("r1", False), replace_keys=["run_id", "case_id"])
    assert store.checks()["passed"].to_list() == [False, False]
    assert store.duplicate_keys() == {}


def test_import_append_refuses_a_repeated_detail_key(store: st.Store, tmp_path: Path) -> None:
    store.write_frame("eval_check", _checks("r1", True))
    out = tmp_path / "export"
    store.export_parquet(out, tables=["eval_check"])
    with pytest.raises(InputError, match="store is unchanged") as err:
        store.import_parquet(out)
    assert err.value.file == str(out / "eval_check.parquet")
    assert err.value.field == ",".join(KEYS)
    assert store.checks().height == 2
    assert store.import_parquet(out, mode="replace") == {"eval_check": 2}
    assert store.checks().height == 2


def test_duplicate_keys_and_doctor_find_rows_written_behind_the_store(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    with st.connect(db) as s:
        s.write_frame("eval_check", _checks("r1", True))
        assert s.duplicate_keys() == {}
    [found] = [c for c in run_checks(db=db) if c.name == "store"]
    assert found.status == "ok", found
    with st.connect(db) as s:
        s.con.execute("INSERT INTO eval_check SELECT * FROM eval_check WHERE check_id = 'rc'")
        assert s.duplicate_keys() == {"eval_check": [("r1 / c1 / diagnosis / rc", 2)]}
    [found] = [c for c in run_checks(db=db) if c.name == "store"]
    assert found.status == "fail"
    assert "eval_check: r1 / c1 / diagnosis / rc (2 rows)" in found.detail
