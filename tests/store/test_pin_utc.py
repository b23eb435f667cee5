"""pin_utc: one home for the session time zone, applied by every entry point that takes a
caller's connection."""

from __future__ import annotations

import duckdb

import rcaeval.store as st
from rcaeval.judge import run_judge_sql


def _zone(con: duckdb.DuckDBPyConnection) -> str:
    return con.execute("SELECT current_setting('TimeZone')").fetchone()[0]


def test_pin_utc_sets_the_session_zone() -> None:
    con = duckdb.connect()
    con.execute("SET TimeZone = 'America/New_York'")
    st.pin_utc(con)
    assert _zone(con) == "UTC"
    ts = con.execute("SELECT TIMESTAMPTZ '2026-01-01 00:00:00+05'::VARCHAR").fetchone()[0]
    assert ts == "2025-12-31 19:00:00+00"


def test_judging_a_handed_connection_pins_utc() -> None:
    store = st.connect(st.MEMORY)
    store.con.execute("SET TimeZone = 'Asia/Tokyo'")
    run_judge_sql(store.con, [])
    assert _zone(store.con) == "UTC"
    store.close()
