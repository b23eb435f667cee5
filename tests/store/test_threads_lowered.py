"""rcaeval.store.threads_lowered sets DuckDB's worker threads for a block and sets them back
(the judge's output detectors run on one thread: docs/judge.md "SQL stages")."""

from __future__ import annotations

import pytest

import rcaeval.store as st


def _threads(s: st.Store) -> int:
    return int(s.con.execute("SELECT current_setting('threads')").fetchone()[0])


def test_lowered_inside_and_set_back(tmp_path) -> None:
    with st.connect(tmp_path / "s.duckdb", threads=3) as s:
        with st.threads_lowered(s.con, 1):
            assert _threads(s) == 1
            assert s.con.execute("SELECT count(*) FROM range(100000)").fetchone()[0] == 100000
        assert _threads(s) == 3
        with st.threads_lowered(s.con, 2):
            assert _threads(s) == 2
        assert _threads(s) == 3


def test_set_back_when_the_block_raises(tmp_path) -> None:
    with st.connect(tmp_path / "s.duckdb", threads=2) as s:
        with pytest.raises(RuntimeError, match="boom"), st.threads_lowered(s.con, 1):
            assert _threads(s) == 1
            raise RuntimeError("boom")
        assert _threads(s) == 2


def test_never_raises_the_count(tmp_path) -> None:
    with st.connect(tmp_path / "s.duckdb", threads=1) as s:
        with st.threads_lowered(s.con, 4):
            assert _threads(s) == 1
        assert _threads(s) == 1
