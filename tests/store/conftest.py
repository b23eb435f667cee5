from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pyarrow as pa
import pytest

import rcaeval.store as st
from rcaeval.store._parquet import IMPORT_DOMAINS

_TZ_PLUS2 = timezone(timedelta(hours=2))


_SCALARS: dict[str, tuple[pa.DataType, Callable[[str, int], object]]] = {
    "VARCHAR": (
        pa.string(),
        lambda c, i: f"{c}-{i}" if i != 1 else f"{c} ünïcode 根因 'quoted' {i}",
    ),
    "JSON": (pa.string(), lambda c, i: f'{{"{c}": {i}}}'),
    "SMALLINT": (pa.int16(), lambda c, i: i),
    "INTEGER": (pa.int32(), lambda c, i: i),
    "BIGINT": (pa.int64(), lambda c, i: 10**12 + i),
    "UBIGINT": (pa.uint64(), lambda c, i: 2**63 + i),
    "FLOAT": (pa.float32(), lambda c, i: i + 0.5),
    "DOUBLE": (pa.float64(), lambda c, i: i + 0.25),
    "BOOLEAN": (pa.bool_(), lambda c, i: i % 2 == 0),
    "DATE": (pa.date32(), lambda c, i: date(2026, 10, 3 + i)),
    "TIMESTAMP": (pa.timestamp("us"), lambda c, i: datetime(2026, 10, 3, 14, i, 1, 5)),
    # a non-UTC offset on the way in, microseconds kept
    "TIMESTAMP WITH TIME ZONE": (
        pa.timestamp("us", tz="UTC"),
        lambda c, i: datetime(2026, 10, 3, 16, i, 7, 123456, tzinfo=_TZ_PLUS2),
    ),
    "MAP(VARCHAR, VARCHAR)": (
        pa.map_(pa.string(), pa.string()),
        lambda c, i: [("instance", f"tikv-{i}"), ("区域", "us-east-1")] if i != 1 else [],
    ),
}


def _column(dtype: str, col: str, rows: int, nullable: bool) -> pa.Array:
    """Synthetic values; the last row is NULL when the column allows it. A type the filler
    does not know is all-NULL (so later migrations adding types do not break these tests)."""
    if dtype.endswith("[]") and dtype[:-2] in _SCALARS:
        inner, make = _SCALARS[dtype[:-2]]
        values = [[make(col, i), make(col, i + 1)] if i != 1 else [] for i in range(rows)]
        typ: pa.DataType = pa.list_(inner)
    elif dtype in _SCALARS:
        typ, make = _SCALARS[dtype]
        values = [make(col, i) for i in range(rows)]
    else:
        assert nullable, f"test filler cannot fill NOT NULL column {col} {dtype}; extend it"
        return pa.nulls(rows)
    if nullable:
        values[-1] = None
    return pa.array(values, type=typ)


def fill_table(store: st.Store, table: str, rows: int = 3) -> pa.Table:
    """``rows`` synthetic rows for every column of ``table``; the last row has NULLs in every
    nullable column."""
    meta = store.con.execute(
        "SELECT column_name, data_type, is_nullable FROM duckdb_columns() "
        "WHERE table_name = ? ORDER BY column_index",
        [table],
    ).fetchall()
    domains = IMPORT_DOMAINS.get(table, {})  # enumerated columns hold their own values
    frame = pa.table({col: pa.array([domains[col][i % len(domains[col])] for i in range(rows)],
                                    pa.string()) if col in domains
                      else _column(dtype, col, rows, nullable) for col, dtype, nullable in meta})
    store.write_frame(table, frame)
    return frame


@pytest.fixture
def fill() -> Callable[..., pa.Table]:
    return fill_table


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "nested" / "dir" / "store.duckdb"


@pytest.fixture
def store(db_path: Path) -> Iterator[st.Store]:
    s = st.connect(db_path)
    yield s
    s.close()


@pytest.fixture
def mig_dir(tmp_path: Path) -> Path:
    """A private migrations dir holding a copy of 0001 only."""
    d = tmp_path / "migrations"
    d.mkdir()
    (d / "0001_init.sql").write_text(
        "CREATE TABLE thing (id INTEGER PRIMARY KEY, label VARCHAR);\n", encoding="utf-8"
    )
    return d
