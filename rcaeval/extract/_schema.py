"""The raw-table catalog (:data:`RAW_CATALOG`: every raw table's columns and DuckDB types,
the one home of their schemas), the Arrow schemas extraction builds from it, and a builder.

Flatteners produce *payload* tables: the raw table's columns without ``run_id``/``case_id``.
:func:`with_keys` adds the two key columns when a case's tables are assembled.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pyarrow as pa

TS = pa.timestamp("us", tz="UTC")
LABELS = pa.map_(pa.string(), pa.string())

_ARROW: dict[str, pa.DataType] = {
    "VARCHAR": pa.string(), "INTEGER": pa.int32(), "BIGINT": pa.int64(),
    "DOUBLE": pa.float64(), "BOOLEAN": pa.bool_(), "TIMESTAMP WITH TIME ZONE": TS,
    "MAP(VARCHAR, VARCHAR)": LABELS,
}
"""The Arrow type extraction builds for each DuckDB column type of the catalog."""

KEY_COLUMNS: tuple[tuple[str, str], ...] = (("run_id", "VARCHAR"), ("case_id", "VARCHAR"))
SEQ_COLUMN: tuple[str, str] = ("bundle_seq", "BIGINT")
"""Every raw row's keys, first, and its case run's extraction number, last (migration 0009)."""


@dataclass(frozen=True)
class RawTable:
    """One raw table of the catalog: what extraction fills and the judge reads."""

    name: str
    columns: tuple[tuple[str, str], ...]
    """The payload columns (name, DuckDB type): the table's columns but the keys and
    ``bundle_seq``, in the order extraction builds them."""
    chunk_input: bool = True
    """Whether the judge copies the judged chunk's rows into a ``j_<name>`` TEMP table
    (``raw_bundle`` is carried by ``j_scope`` instead)."""
    judge_unread: tuple[str, ...] = ()
    """Payload columns no judging stage reads (left out of the chunk input)."""

    @property
    def store_columns(self) -> tuple[tuple[str, str], ...]:
        """Every column of the stored table (keys, payload, ``bundle_seq``)."""
        return (*KEY_COLUMNS, *self.columns, SEQ_COLUMN)

    @property
    def chunk_excluded(self) -> tuple[str, ...]:
        """The stored columns the chunk input leaves out."""
        return (SEQ_COLUMN[0], *self.judge_unread)

    @property
    def payload_schema(self) -> pa.Schema:
        return pa.schema([(n, _ARROW[t]) for n, t in self.columns])


_S, _I, _L, _D = "VARCHAR", "INTEGER", "BIGINT", "DOUBLE"
_TS, _B = "TIMESTAMP WITH TIME ZONE", "BOOLEAN"

RAW_CATALOG: dict[str, RawTable] = {t.name: t for t in (
    RawTable("raw_bundle", (
        ("case_dir", _S), ("bundle_dir", _S), ("status", _S), ("reason", _S),
        ("workspace_id", _S), ("manifest_status", _S)), chunk_input=False),
    RawTable("raw_file", (
        ("file", _S), ("kind", _S), ("size", _L), ("sha256", _S), ("status", _S),
        ("detail", _S))),
    RawTable("raw_json", (
        ("file", _S), ("path", _S), ("parent", _S), ("key", _S), ("type", _S),
        ("value_text", _S), ("value_num", _D), ("length", _I), ("elided_json", _S)),
        judge_unread=("elided_json",)),
    RawTable("raw_log_line", (
        ("file", _S), ("line_no", _I), ("entry_id", _S), ("ts", _TS), ("level", _S),
        ("component", _S), ("instance", _S), ("text", _S))),
    RawTable("raw_telemetry", (
        ("line_no", _I), ("ts", _TS), ("event", _S), ("tool", _S), ("status", _S),
        ("detail", _S), ("text", _S))),
    RawTable("raw_metric_point", (
        ("series_idx", _I), ("series_id", _S), ("name", _S),
        ("labels", "MAP(VARCHAR, VARCHAR)"), ("ts", _TS), ("value", _D))),
    RawTable("raw_query", (
        ("idx", _I), ("query_id", _S), ("digest", _S), ("kind", _S), ("sql_text", _S),
        ("instance", _S), ("exec_count", _L), ("avg_latency_ms", _D), ("note", _S))),
    RawTable("raw_event", (
        ("idx", _I), ("source", _S), ("event_id", _S), ("ts", _TS), ("type", _S),
        ("object", _S), ("reason", _S), ("message", _S))),
    RawTable("raw_patch_item", (
        ("idx", _I), ("item_id", _S), ("role", _S), ("claim", _S), ("shape_ok", _B),
        ("problem", _S))),
    RawTable("raw_patch_ref", (
        ("item_idx", _I), ("ref_idx", _I), ("ref_type", _S), ("ref_id", _S))),
    RawTable("raw_output_sentence", (
        ("section_idx", _I), ("section", _S), ("section_kind", _S), ("sentence_idx", _I),
        ("line_no", _I), ("text", _S), ("item", _S))),
    RawTable("raw_evidence_check", (
        ("file", _S), ("record_id", _S), ("seal", _S), ("incident", _S), ("detail", _S))),
)}
"""The raw tables, in insert order: the one home of their schemas. The store's migrations
create exactly these columns (tests/store checks a migrated store against it), extraction
builds its Arrow tables from :data:`PAYLOAD_SCHEMAS`, and the judge's chunk inputs are one
statement per table with :attr:`RawTable.chunk_input`, leaving out
:attr:`RawTable.chunk_excluded`."""

PAYLOAD_SCHEMAS: dict[str, pa.Schema] = {
    name: table.payload_schema for name, table in RAW_CATALOG.items()}

RAW_TABLES: tuple[str, ...] = tuple(RAW_CATALOG)
"""Every raw table extraction fills, in insert order."""

_S_ARROW = pa.string()


class TableBuilder:
    """Column-wise accumulator for one payload table (keeps memory linear, no row dicts)."""

    __slots__ = ("schema", "_cols")

    def __init__(self, table: str) -> None:
        self.schema = PAYLOAD_SCHEMAS[table]
        self._cols: dict[str, list[Any]] = {name: [] for name in self.schema.names}

    def add(self, **values: Any) -> None:
        for name, col in self._cols.items():
            col.append(values.get(name))

    def __len__(self) -> int:
        return len(next(iter(self._cols.values())))

    def finish(self) -> pa.Table:
        arrays = [
            pa.array(self._cols[f.name], type=f.type) for f in self.schema
        ]
        return pa.Table.from_arrays(arrays, schema=self.schema)


def empty_payload(table: str) -> pa.Table:
    return PAYLOAD_SCHEMAS[table].empty_table()


def with_keys(table: pa.Table, run_id: str, case_id: str) -> pa.Table:
    """Prefix a payload table with constant ``run_id`` and ``case_id`` columns."""
    n = table.num_rows
    table = table.add_column(0, "case_id", const_column(case_id, n))
    return table.add_column(0, "run_id", const_column(run_id, n))


def const_column(value: str, n: int) -> pa.Array:
    """A string column of ``n`` copies of ``value`` (built in C, not from a Python list)."""
    return pa.repeat(pa.scalar(value, type=_S_ARROW), n)
