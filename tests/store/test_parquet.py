from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import rcaeval.store as st
from rcaeval.errors import InputError, NotFoundError


@pytest.fixture
def full(tmp_path: Path, fill: Callable[..., pa.Table]) -> st.Store:
    s = st.connect(tmp_path / "src.duckdb")
    for t in s.tables():
        if t != st.MIGRATIONS_TABLE:
            fill(s, t)
    return s


def test_export_import_reproduces_every_table(full: st.Store, tmp_path: Path) -> None:
    out = tmp_path / "export"
    paths = full.export_parquet(out)
    assert [p.name for p in paths] == [f"{t}.parquet" for t in full.tables()]
    assert all(p.exists() for p in paths)
    assert not list(out.glob(".*tmp"))  # no temp files left behind
    with st.connect(tmp_path / "dst.duckdb") as dst:
        counts = dst.import_parquet(out)
        assert st.MIGRATIONS_TABLE not in counts  # migration history is never imported
        for t in full.tables():
            a, b = full.table(t), dst.table(t)
            if t == st.MIGRATIONS_TABLE:
                assert a.drop("applied_at").equals(b.drop("applied_at"))
                continue
            assert counts[t] == a.height == 3
            assert a.schema == b.schema, t
            assert a.equals(b), t
    mp = full.table("raw_metric_point").sort("series_idx")
    assert mp.schema["labels"] == pl.Map(pl.String, pl.String)
    assert mp.schema["ts"] == pl.Datetime("us", "UTC")
    assert mp["labels"].to_list() == [{"instance": "tikv-0", "区域": "us-east-1"}, {}, None]
    assert mp["ts"].to_list()[0] == datetime(2026, 10, 3, 14, 0, 7, 123456, tzinfo=UTC)
    full.close()


def test_parquet_files_keep_map_and_timestamptz_types(full: st.Store, tmp_path: Path) -> None:
    full.export_parquet(tmp_path / "x", tables=["raw_metric_point"])
    schema = pq.read_schema(tmp_path / "x" / "raw_metric_point.parquet")
    assert pa.types.is_map(schema.field("labels").type)
    ts = schema.field("ts").type
    assert pa.types.is_timestamp(ts) and ts.tz is not None
    full.close()


def test_export_subset_always_carries_schema_migrations(full: st.Store, tmp_path: Path) -> None:
    paths = full.export_parquet(tmp_path / "x", tables=["eval_check", "eval_runs", "eval_check"])
    assert [p.name for p in paths] == [
        "eval_check.parquet",
        "eval_runs.parquet",
        "schema_migrations.parquet",
    ]
    with pytest.raises(NotFoundError, match="no_such"):
        full.export_parquet(tmp_path / "y", tables=["no_such"])
    full.close()


def test_export_is_reproducible(full: st.Store, tmp_path: Path) -> None:
    a = full.export_parquet(tmp_path / "a", tables=["eval_check", "raw_metric_point"])
    b = full.export_parquet(tmp_path / "b", tables=["eval_check", "raw_metric_point"])
    for pa_, pb in zip(a, b, strict=True):
        if pa_.stem != st.MIGRATIONS_TABLE:
            assert pa_.read_bytes() == pb.read_bytes(), pa_.name
    full.close()


def test_import_append_clash_leaves_store_unchanged(full: st.Store, tmp_path: Path) -> None:
    out = tmp_path / "export"
    full.export_parquet(out, tables=["eval_bucket", "raw_query"])
    before = {t: full.table(t) for t in ("eval_bucket", "raw_query")}
    # raw_query has no key (appends), eval_bucket clashes on its primary key
    with pytest.raises(InputError, match="store is unchanged") as err:
        full.import_parquet(out)
    assert err.value.file is not None and err.value.file.endswith(".parquet")
    for t, frame in before.items():
        assert full.table(t).equals(frame), t
    counts = full.import_parquet(out, mode="replace")
    assert counts == {"eval_bucket": 3, "raw_query": 3}
    for t, frame in before.items():
        assert full.table(t).equals(frame), t
    full.close()


def test_import_wrong_columns_names_the_file(store: st.Store, tmp_path: Path) -> None:
    d = tmp_path / "bad"
    d.mkdir()
    f = d / "eval_runs.parquet"
    pq.write_table(pa.table({"run_id": ["r1"], "colour": ["blue"]}), f)
    with pytest.raises(InputError, match="colour") as err:
        store.import_parquet(d)
    assert err.value.file == str(f)
    assert "missing columns of table eval_runs" in str(err.value)
    assert store.runs().height == 0


def test_import_unknown_table_names_the_file(store: st.Store, tmp_path: Path) -> None:
    d = tmp_path / "bad"
    d.mkdir()
    f = d / "not_a_table.parquet"
    pq.write_table(pa.table({"x": [1]}), f)
    with pytest.raises(InputError, match="no table named 'not_a_table'") as err:
        store.import_parquet(d)
    assert err.value.file == str(f)


def test_import_bad_inputs(store: st.Store, tmp_path: Path) -> None:
    with pytest.raises(NotFoundError):
        store.import_parquet(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no <table>.parquet"):
        store.import_parquet(tmp_path / "empty")
    with pytest.raises(InputError, match="import mode"):
        store.import_parquet(tmp_path / "empty", mode="merge")
    d = tmp_path / "junk"
    d.mkdir()
    (d / "eval_runs.parquet").write_text("not parquet", encoding="utf-8")
    with pytest.raises(InputError, match="not a readable Parquet") as err:
        store.import_parquet(d)
    assert err.value.file == str(d / "eval_runs.parquet")


def test_old_export_imports_into_migrated_store(tmp_path: Path, mig_dir: Path) -> None:
    with st.connect(tmp_path / "v1.duckdb", migrations_dir=mig_dir) as v1:
        v1.sql("INSERT INTO thing VALUES (1, 'a'), (2, 'b')")
        v1.export_parquet(tmp_path / "v1export")
    (mig_dir / "0002_note.sql").write_text(
        "ALTER TABLE thing ADD COLUMN note VARCHAR DEFAULT 'n/a';", encoding="utf-8"
    )
    with st.connect(tmp_path / "v2.duckdb", migrations_dir=mig_dir) as v2:
        assert v2.import_parquet(tmp_path / "v1export") == {"thing": 2}
        assert v2.table("thing").rows() == [(1, "a", "n/a"), (2, "b", "n/a")]
        v2.export_parquet(tmp_path / "v2export")
    # a v2 export into a v1 store is refused
    (mig_dir / "0002_note.sql").unlink()
    with st.connect(tmp_path / "v1b.duckdb", migrations_dir=mig_dir) as v1b:
        with pytest.raises(InputError, match="schema version 2 but the store is at 1") as err:
            v1b.import_parquet(tmp_path / "v2export")
        assert err.value.file == str(tmp_path / "v2export" / "schema_migrations.parquet")
        assert v1b.table("thing").height == 0


def test_same_version_export_must_have_every_column(tmp_path: Path, mig_dir: Path) -> None:
    with st.connect(tmp_path / "a.duckdb", migrations_dir=mig_dir) as a:
        a.sql("INSERT INTO thing VALUES (1, 'a')")
        a.export_parquet(tmp_path / "e")
    f = tmp_path / "e" / "thing.parquet"
    pq.write_table(pq.read_table(f).drop_columns(["label"]), f)
    with st.connect(tmp_path / "b.duckdb", migrations_dir=mig_dir) as b:
        with pytest.raises(InputError, match="missing columns of table thing: label") as err:
            b.import_parquet(tmp_path / "e")
        assert err.value.file == str(f)
