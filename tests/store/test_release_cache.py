"""rcaeval.store.release_cache: DuckDB's cached blocks are given back, the memory limit is
kept (docs/store.md, "Memory and threads")."""

from __future__ import annotations

import rcaeval.store as st


def _used(con, tag: str) -> int:
    return con.execute("SELECT memory_usage_bytes FROM duckdb_memory() WHERE tag = ?",
                       [tag]).fetchall()[0][0]


def test_release_gives_cached_blocks_back_and_keeps_the_limit(tmp_path) -> None:
    store = st.connect(tmp_path / "s.duckdb", memory_limit="1GB")
    con = store.con
    try:
        con.execute("CREATE TABLE t AS SELECT range AS i, md5(range::VARCHAR) AS h"
                    " FROM range(6000000)")
        con.execute("CHECKPOINT")
        con.execute("SELECT count(DISTINCT h), sum(i) FROM t").fetchall()
        limit = con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
        cached = _used(con, "BASE_TABLE")
        assert cached > 96 * 2**20
        for _ in range(5):  # repeated calls keep the limit where it was
            st.release_cache(con)
        assert _used(con, "BASE_TABLE") <= 66 * 2**20 < cached  # down to the 64MiB target
        assert con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0] == limit
        assert con.execute("SELECT count(*) FROM t").fetchall() == [(6000000,)]
    finally:
        store.close()


def test_release_leaves_an_in_memory_database_alone() -> None:
    import duckdb

    con = duckdb.connect()
    con.execute("SET memory_limit = '1GB'")
    con.execute("CREATE TABLE t AS SELECT range AS i, md5(range::VARCHAR) AS h"
                " FROM range(3000000)")
    held = _used(con, "IN_MEMORY_TABLE")
    assert held > 96 * 2**20
    st.release_cache(con)
    assert _used(con, "IN_MEMORY_TABLE") == held  # nothing spilled to the temp directory
    assert con.execute("SELECT temporary_storage_bytes FROM duckdb_memory()"
                       " WHERE tag = 'IN_MEMORY_TABLE'").fetchall() == [(0,)]


def test_release_keeps_every_printed_limit_stable(tmp_path) -> None:
    import duckdb

    con = duckdb.connect(str(tmp_path / "s.duckdb"))
    for limit in ("1GB", "512MB", "2GiB", "100MB"):
        con.execute(f"SET memory_limit = '{limit}'")
        printed = con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
        for _ in range(3):
            st.release_cache(con)
        assert con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0] \
            == printed


def _wal_bytes(db) -> int:
    wal = db.with_name(db.name + ".wal")
    return wal.stat().st_size if wal.exists() else 0


def test_checkpoints_deferred_holds_the_log_until_asked_and_restores_the_threshold(
        tmp_path) -> None:
    """Inside ``checkpoints_deferred`` commits past DuckDB's threshold stay in the write-ahead
    log until ``checkpoint``; afterwards the threshold is the caller's again (DuckDB
    checkpoints at a commit that finds the log past it) and the log is in the file."""
    db = tmp_path / "s.duckdb"
    store = st.connect(db)
    con = store.con
    try:
        con.execute("SET checkpoint_threshold = '7MiB'")
        before = con.execute("SELECT current_setting('checkpoint_threshold')").fetchall()[0][0]
        con.execute("CREATE TABLE t (i BIGINT, h VARCHAR)")
        # ~10 MB of rows, under one row group: written to the log, not straight to the file
        big = "INSERT INTO t SELECT range, repeat(md5(range::VARCHAR), 8) FROM range(40000)"
        with st.checkpoints_deferred(con):
            assert con.execute("SELECT current_setting('checkpoint_threshold')"
                               ).fetchall()[0][0] != before
            for _ in range(3):
                con.execute(big)
            assert _wal_bytes(db) > 3 * 10**7  # three commits, none checkpointed
            assert st.wal_bytes(con) == _wal_bytes(db)
            st.checkpoint(con)
            assert _wal_bytes(db) == 0
            con.execute(big)
            assert _wal_bytes(db) > 10**7
        assert _wal_bytes(db) == 0  # leaving the block checkpoints
        assert con.execute("SELECT current_setting('checkpoint_threshold')"
                           ).fetchall()[0][0] == before
        con.execute(big)
        con.execute(big)  # the caller's threshold is in force again
        assert _wal_bytes(db) == 0
        assert con.execute("SELECT count(*) FROM t").fetchall() == [(240000,)]
    finally:
        store.close()
