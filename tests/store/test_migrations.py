from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import polars as pl
import pytest

import rcaeval.store as st
from rcaeval.errors import InputError, NotFoundError


def test_fresh_store_gets_every_package_migration(db_path: Path) -> None:
    known = st.discover_migrations()
    assert known and known[0].version == 1 and known[0].name == "init"
    with st.connect(db_path) as s:
        assert db_path.exists()  # parent dirs were created
        assert [m.version for m in s.applied_now] == [m.version for m in known]
        assert s.schema_version == known[-1].version
        rows = s.migrations()
        assert rows["version"].to_list() == [m.version for m in known]
        assert rows["name"].to_list() == [m.name for m in known]
        assert rows["checksum"].to_list() == [m.checksum for m in known]
        assert rows.schema["applied_at"] == pl.Datetime("us", "UTC")
        for table in ("eval_runs", "eval_case_runs", "eval_judgment", "eval_bucket", "eval_check"):
            assert table in s.tables()
        assert s.pending_migrations() == []


def test_reopen_is_idempotent(db_path: Path) -> None:
    with st.connect(db_path) as s:
        s.sql("INSERT INTO eval_runs (run_id, status) VALUES ('r1', 'completed')")
        first = s.migrations()
    with st.connect(db_path) as s:
        assert s.applied_now == []
        assert s.migrations().equals(first)
        assert s.runs()["run_id"].to_list() == ["r1"]


def test_forward_migration_applies_on_reopen_and_data_survives(
    db_path: Path, mig_dir: Path
) -> None:
    with st.connect(db_path, migrations_dir=mig_dir) as s:
        assert s.schema_version == 1
        s.sql("INSERT INTO thing VALUES (1, 'kept'), (2, 'also kept')")
    (mig_dir / "0002_thing_note.sql").write_text(
        "ALTER TABLE thing ADD COLUMN note VARCHAR;\n"
        "CREATE TABLE other (k VARCHAR PRIMARY KEY);\n"
        "INSERT INTO other VALUES ('seeded');\n",
        encoding="utf-8",
    )
    (mig_dir / "0010_later.sql").write_text("CREATE TABLE later (x INTEGER);", encoding="utf-8")
    with st.connect(db_path, migrations_dir=mig_dir) as s:
        assert [m.filename for m in s.applied_now] == ["0002_thing_note.sql", "0010_later.sql"]
        assert s.schema_version == 10
        assert s.table("thing").to_dicts() == [
            {"id": 1, "label": "kept", "note": None},
            {"id": 2, "label": "also kept", "note": None},
        ]
        assert s.table("other")["k"].to_list() == ["seeded"]
        assert "later" in s.tables()


def test_store_from_newer_rcaeval_is_refused(db_path: Path, mig_dir: Path) -> None:
    (mig_dir / "0002_more.sql").write_text("CREATE TABLE more (x INTEGER);", encoding="utf-8")
    st.connect(db_path, migrations_dir=mig_dir).close()
    (mig_dir / "0002_more.sql").unlink()  # this "older package" knows only 0001
    with pytest.raises(InputError, match="created by a newer rcaeval") as err:
        st.connect(db_path, migrations_dir=mig_dir)
    assert err.value.file == str(db_path)
    assert "schema version 2" in str(err.value)
    # refused in every mode
    with pytest.raises(InputError, match="newer rcaeval"):
        st.connect(db_path, migrations_dir=mig_dir, read_only=True, migrate=False)


def test_tampered_checksum_is_refused_unless_allowed(db_path: Path, mig_dir: Path) -> None:
    st.connect(db_path, migrations_dir=mig_dir).close()
    f = mig_dir / "0001_init.sql"
    f.write_text(f.read_text(encoding="utf-8") + "-- edited\n", encoding="utf-8")
    with pytest.raises(InputError, match="edited after it was applied") as err:
        st.connect(db_path, migrations_dir=mig_dir)
    assert err.value.file == str(f)
    with st.connect(db_path, migrations_dir=mig_dir, allow_checksum_mismatch=True) as s:
        assert s.schema_version == 1


def test_line_ending_change_is_not_tampering(db_path: Path, mig_dir: Path) -> None:
    st.connect(db_path, migrations_dir=mig_dir).close()
    f = mig_dir / "0001_init.sql"
    f.write_bytes(f.read_bytes().replace(b"\n", b"\r\n"))
    with st.connect(db_path, migrations_dir=mig_dir) as s:
        assert s.applied_now == [] and s.schema_version == 1


def test_out_of_order_migration_is_refused(db_path: Path, mig_dir: Path) -> None:
    (mig_dir / "0003_c.sql").write_text("CREATE TABLE c (x INTEGER);", encoding="utf-8")
    st.connect(db_path, migrations_dir=mig_dir).close()
    late = mig_dir / "0002_b.sql"
    late.write_text("CREATE TABLE b (x INTEGER);", encoding="utf-8")
    with pytest.raises(InputError, match="numbered after the latest") as err:
        st.connect(db_path, migrations_dir=mig_dir)
    assert err.value.file == str(late)


def test_failed_migration_rolls_back_entirely(db_path: Path, mig_dir: Path) -> None:
    bad = mig_dir / "0002_bad.sql"
    bad.write_text(
        "CREATE TABLE half (x INTEGER);\nINSERT INTO no_such_table VALUES (1);\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError, match="migration failed") as err:
        st.connect(db_path, migrations_dir=mig_dir)
    assert err.value.file == str(bad)
    bad.unlink()
    with st.connect(db_path, migrations_dir=mig_dir) as s:
        assert s.schema_version == 1  # 0001 committed on its own, 0002 not at all
        assert "half" not in s.tables()


def test_read_only_open_needing_migration_is_refused(db_path: Path, mig_dir: Path) -> None:
    with pytest.raises(NotFoundError, match="no store at"):
        st.connect(db_path, read_only=True)
    st.connect(db_path, migrations_dir=mig_dir).close()
    (mig_dir / "0002_more.sql").write_text("CREATE TABLE more (x INTEGER);", encoding="utf-8")
    with pytest.raises(InputError, match="needs migrations .*0002_more.sql.*read-only"):
        st.connect(db_path, migrations_dir=mig_dir, read_only=True)
    # migrate=False opens it as is and reports what is pending
    with st.connect(db_path, migrations_dir=mig_dir, read_only=True, migrate=False) as s:
        assert s.schema_version == 1
        assert [m.filename for m in s.pending_migrations()] == ["0002_more.sql"]
    with st.connect(db_path, migrations_dir=mig_dir) as s:
        assert s.schema_version == 2
    with st.connect(db_path, migrations_dir=mig_dir, read_only=True) as s:
        assert s.read_only and s.schema_version == 2


def test_badly_named_migration_file_is_reported(mig_dir: Path) -> None:
    (mig_dir / "2_oops.sql").write_text("SELECT 1;", encoding="utf-8")
    with pytest.raises(InputError, match="NNNN_name.sql") as err:
        st.connect(":memory:", migrations_dir=mig_dir)
    assert err.value.file == str(mig_dir / "2_oops.sql")


def test_duplicate_version_is_reported(mig_dir: Path) -> None:
    (mig_dir / "0001_again.sql").write_text("SELECT 1;", encoding="utf-8")
    with pytest.raises(InputError, match="duplicate migration version 0001"):
        st.discover_migrations(mig_dir)


def test_migrations_sorted_numerically(mig_dir: Path) -> None:
    for name in ("0100_c.sql", "0020_b.sql", "0003_a.sql"):
        (mig_dir / name).write_text("SELECT 1;", encoding="utf-8")
    assert [m.version for m in st.discover_migrations(mig_dir)] == [1, 3, 20, 100]


def test_timezone_is_utc_and_timestamptz_round_trips(db_path: Path) -> None:
    with st.connect(db_path) as s:
        assert s.sql("SELECT current_setting('TimeZone') AS tz")["tz"].item() == "UTC"
        s.sql(
            "INSERT INTO eval_runs (run_id, started_at) VALUES "
            "('r1', TIMESTAMPTZ '2026-10-03 16:00:00.123456+02:00')"
        )
        got = s.runs()
        assert got.schema["started_at"] == pl.Datetime("us", "UTC")
        assert got["started_at"].item() == datetime(2026, 10, 3, 14, 0, 0, 123456, tzinfo=UTC)
        # text rendering is UTC too
        text = s.sql("SELECT CAST(started_at AS VARCHAR) AS t FROM eval_runs")["t"].item()
        assert text == "2026-10-03 14:00:00.123456+00"
    with st.connect(db_path, read_only=True) as s:
        assert s.sql("SELECT current_setting('TimeZone') AS tz")["tz"].item() == "UTC"
    with st.connect(":memory:") as s:
        assert s.path is None and s.label == ":memory:"
        assert s.sql("SELECT current_setting('TimeZone') AS tz")["tz"].item() == "UTC"


def test_default_path_honours_rcaeval_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "env" / "x.duckdb"
    monkeypatch.setenv("RCAEVAL_DB", str(target))
    with st.connect() as s:
        assert s.path == target
    assert target.exists()


def test_memory_store_cannot_be_read_only() -> None:
    with pytest.raises(InputError, match="in-memory"):
        st.connect(":memory:", read_only=True)


def test_close_and_context_manager(db_path: Path) -> None:
    s = st.connect(db_path)
    with s as same:
        assert same is s
    assert s.closed
    s.close()  # idempotent
    # the file is released: a read-only open in the same process works
    with st.connect(db_path, read_only=True) as r:
        assert r.schema_version >= 1
