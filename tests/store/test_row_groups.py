"""A store file is attached with a row group size (connect(row_group_size=...),
$RCAEVAL_DB_ROW_GROUP_SIZE): what the store writes is cut into row groups of that many rows,
connections in one process share the file, and the last one closed lets another process in
(docs/store.md, "Row groups")."""

from __future__ import annotations

import subprocess
import sys

import pytest

import rcaeval.store as st
from rcaeval.errors import InputError

ROW_GROUPS = ("SELECT row_group_id, max(count) FROM pragma_storage_info('t')"
              " GROUP BY ALL ORDER BY 1")


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    monkeypatch.delenv(st.ROW_GROUP_SIZE_ENV, raising=False)


def _row_groups(s: st.Store, rows: int) -> list[tuple[int, int]]:
    s.con.execute("CREATE OR REPLACE TABLE t AS SELECT range AS i FROM range(?)", [rows])
    s.con.execute("CHECKPOINT")
    return s.con.execute(ROW_GROUPS).fetchall()


def test_default_row_groups_are_the_store_size_not_duckdbs(tmp_path):
    with st.connect(tmp_path / "s.duckdb") as s:
        groups = _row_groups(s, 3 * st.DEFAULT_ROW_GROUP_SIZE + 5)
    assert [n for _, n in groups] == [st.DEFAULT_ROW_GROUP_SIZE] * 3 + [5]


def test_argument_beats_env_and_env_beats_default(tmp_path, monkeypatch):
    monkeypatch.setenv(st.ROW_GROUP_SIZE_ENV, "4096")
    with st.connect(tmp_path / "a.duckdb") as s:
        assert [n for _, n in _row_groups(s, 10000)] == [4096, 4096, 1808]
    with st.connect(tmp_path / "b.duckdb", row_group_size=2048) as s:
        assert [n for _, n in _row_groups(s, 5000)] == [2048, 2048, 904]


@pytest.mark.parametrize("bad", ["lots", "0", "1000", "-2048", "3000"])
def test_bad_row_group_size_names_the_variable(tmp_path, monkeypatch, bad):
    monkeypatch.setenv(st.ROW_GROUP_SIZE_ENV, bad)
    with pytest.raises(InputError, match=st.ROW_GROUP_SIZE_ENV) as err:
        st.connect(tmp_path / "s.duckdb")
    assert err.value.field == "row_group_size"
    assert not (tmp_path / "s.duckdb").exists()  # refused before the file is touched
    with pytest.raises(InputError, match="row_group_size must be a positive multiple of 2048"):
        st.connect(tmp_path / "s.duckdb", row_group_size=1000)


def test_connections_in_one_process_share_the_file_and_the_last_close_unlocks_it(tmp_path):
    db = tmp_path / "shared.duckdb"
    probe = [sys.executable, "-c", "import duckdb, sys; duckdb.connect(sys.argv[1]).close()",
             str(db)]
    first = st.connect(db)
    second = st.connect(db)
    try:
        first.con.execute("CREATE TABLE t (i INTEGER)")
        first.con.execute("INSERT INTO t VALUES (1)")
        assert second.con.execute("SELECT * FROM t").fetchall() == [(1,)]
        first.close()
        locked = subprocess.run(probe, capture_output=True, text=True, timeout=60)
        assert locked.returncode != 0 and "lock" in locked.stderr
    finally:
        second.close()
    assert subprocess.run(probe, capture_output=True, text=True, timeout=60).returncode == 0
    with st.connect(db, read_only=True) as ro:  # and this process opens it again
        assert ro.con.execute("SELECT * FROM t").fetchall() == [(1,)]


@pytest.mark.parametrize("name, catalog", [("rcaeval.duckdb", "rcaeval"),
                                           ("memory.duckdb", "memory_store"),
                                           ("main", "main_store"),
                                           ('we"ird name.v2.duckdb', 'we"ird name')])
def test_the_catalog_is_named_after_the_file(tmp_path, name, catalog):
    with st.connect(tmp_path / name) as s:
        assert s.con.execute("SELECT current_database()").fetchall() == [(catalog,)]
        assert "eval_runs" in s.tables()
    with st.connect(tmp_path / name, read_only=True) as s:
        assert s.con.execute("SELECT count(*) FROM eval_runs").fetchall() == [(0,)]


def test_the_file_open_another_way_in_this_process_is_a_clear_error(tmp_path):
    import duckdb

    db = tmp_path / "s.duckdb"
    st.connect(db).close()
    own = duckdb.connect(str(db))
    try:
        with pytest.raises(InputError, match="already has the file open") as err:
            st.connect(db)
        assert err.value.file == str(db)
    finally:
        own.close()
    with st.connect(db) as s, pytest.raises(InputError, match="already has the file open"):
        st.connect(db, read_only=True)
    with st.connect(db, read_only=True) as s:  # nothing else holds it now
        assert "eval_runs" in s.tables()
