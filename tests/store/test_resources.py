"""connect(memory_limit=..., threads=...) and $RCAEVAL_DB_MEMORY_LIMIT / $RCAEVAL_DB_THREADS."""

from __future__ import annotations

import pytest

import rcaeval.store as st
from rcaeval.errors import InputError


def _settings(s: st.Store) -> tuple[str, int]:
    row = s.con.execute(
        "SELECT current_setting('memory_limit'), current_setting('threads')"
    ).fetchall()[0]
    return row[0], int(row[1])


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    monkeypatch.delenv(st.MEMORY_LIMIT_ENV, raising=False)
    monkeypatch.delenv(st.THREADS_ENV, raising=False)


def test_explicit_memory_limit_and_threads(tmp_path):
    with st.connect(tmp_path / "s.duckdb", memory_limit="1GB", threads=1) as s:
        assert _settings(s) == ("953.6 MiB", 1)
        assert s.row_counts()  # still a migrated store


def test_env_defaults(monkeypatch):
    monkeypatch.setenv(st.MEMORY_LIMIT_ENV, "512MiB")
    monkeypatch.setenv(st.THREADS_ENV, "1")
    with st.connect(":memory:") as s:
        assert _settings(s) == ("512.0 MiB", 1)


def test_explicit_beats_env(monkeypatch):
    monkeypatch.setenv(st.MEMORY_LIMIT_ENV, "512MiB")
    monkeypatch.setenv(st.THREADS_ENV, "1")
    with st.connect(":memory:", memory_limit="256MiB", threads=2) as s:
        assert _settings(s) == ("256.0 MiB", 2)


def test_unset_and_blank_leave_duckdb_defaults(monkeypatch):
    with st.connect(":memory:") as s:
        default = _settings(s)
    monkeypatch.setenv(st.MEMORY_LIMIT_ENV, "  ")
    monkeypatch.setenv(st.THREADS_ENV, "")
    with st.connect(":memory:") as s:
        assert _settings(s) == default
    assert st.resolve_memory_limit() is None and st.resolve_threads() is None


@pytest.mark.parametrize("limit", ["lots", "2XB", ""])
def test_bad_memory_limit(limit):
    if limit == "":
        assert st.resolve_memory_limit(limit) is None
        return
    with pytest.raises(InputError, match="invalid memory limit"):
        st.connect(":memory:", memory_limit=limit)


@pytest.mark.parametrize("threads", [0, -2])
def test_bad_threads(threads):
    with pytest.raises(InputError, match="threads must be a positive integer"):
        st.connect(":memory:", threads=threads)


def test_bad_threads_env(monkeypatch):
    monkeypatch.setenv(st.THREADS_ENV, "many")
    with pytest.raises(InputError, match=r"\$RCAEVAL_DB_THREADS must be a positive integer"):
        st.connect(":memory:")


def test_bad_setting_closes_the_file(tmp_path):
    db = tmp_path / "s.duckdb"
    with pytest.raises(InputError):
        st.connect(db, memory_limit="lots")
    with st.connect(db) as s:  # not left locked / half open
        assert s.schema_version >= 1
