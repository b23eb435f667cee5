"""Arrow schemas of the raw tables (mirroring queries/migrations: 0001_init.sql and the
columns later migrations add) and a builder.

Flatteners produce *payload* tables: the raw table's columns without ``run_id``/``case_id``.
:func:`with_keys` adds the two key columns when a case's tables are assembled.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

TS = pa.timestamp("us", tz="UTC")
LABELS = pa.map_(pa.string(), pa.string())

_S = pa.string()
_I32 = pa.int32()

PAYLOAD_SCHEMAS: dict[str, pa.Schema] = {
    "raw_bundle": pa.schema([
        ("case_dir", _S), ("bundle_dir", _S), ("status", _S), ("reason", _S),
        ("workspace_id", _S), ("manifest_status", _S),
    ]),
    "raw_file": pa.schema([
        ("file", _S), ("kind", _S), ("size", pa.int64()), ("sha256", _S), ("status", _S),
        ("detail", _S),
    ]),
    "raw_json": pa.schema([
        ("file", _S), ("path", _S), ("parent", _S), ("key", _S), ("type", _S),
        ("value_text", _S), ("value_num", pa.float64()), ("length", _I32),
        ("elided_json", _S),
    ]),
    "raw_log_line": pa.schema([
        ("file", _S), ("line_no", _I32), ("entry_id", _S), ("ts", TS), ("level", _S),
        ("component", _S), ("instance", _S), ("text", _S),
    ]),
    "raw_telemetry": pa.schema([
        ("line_no", _I32), ("ts", TS), ("event", _S), ("tool", _S), ("status", _S),
        ("detail", _S), ("text", _S),
    ]),
    "raw_metric_point": pa.schema([
        ("series_idx", _I32), ("series_id", _S), ("name", _S), ("labels", LABELS),
        ("ts", TS), ("value", pa.float64()),
    ]),
    "raw_query": pa.schema([
        ("idx", _I32), ("query_id", _S), ("digest", _S), ("kind", _S), ("sql_text", _S),
        ("instance", _S), ("exec_count", pa.int64()), ("avg_latency_ms", pa.float64()),
        ("note", _S),
    ]),
    "raw_event": pa.schema([
        ("idx", _I32), ("source", _S), ("event_id", _S), ("ts", TS), ("type", _S),
        ("object", _S), ("reason", _S), ("message", _S),
    ]),
    "raw_patch_item": pa.schema([
        ("idx", _I32), ("item_id", _S), ("role", _S), ("claim", _S), ("shape_ok", pa.bool_()),
        ("problem", _S),
    ]),
    "raw_patch_ref": pa.schema([
        ("item_idx", _I32), ("ref_idx", _I32), ("ref_type", _S), ("ref_id", _S),
    ]),
    "raw_output_sentence": pa.schema([
        ("section_idx", _I32), ("section", _S), ("section_kind", _S), ("sentence_idx", _I32),
        ("line_no", _I32), ("text", _S), ("item", _S),
    ]),
    "raw_evidence_check": pa.schema([
        ("file", _S), ("record_id", _S), ("seal", _S), ("incident", _S), ("detail", _S),
    ]),
}

RAW_TABLES: tuple[str, ...] = tuple(PAYLOAD_SCHEMAS)
"""Every raw table extraction fills, in insert order."""


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
    return pa.repeat(pa.scalar(value, type=_S), n)
