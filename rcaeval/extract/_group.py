"""Assembling the rows of a group of cases into one Arrow table per raw table.

A worker extracts several cases per task and hands back one table per raw table for the
whole group, instead of a dozen small tables per case: fewer, larger Arrow tables to build,
pickle across the process boundary and insert. Each table holds the raw table's payload
columns, ``run_id`` and ``case_id`` (dictionary-encoded: one entry per case of the group, so
the keys cost four bytes a row in transit) and ``case_pos``, the case's position in the
group, from which the writer numbers ``bundle_seq``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from rcaeval.extract._jsonflat import JSON_STRIDE, json_columns
from rcaeval.extract._schema import PAYLOAD_SCHEMAS, RAW_TABLES, TableBuilder

GroupTables = dict[str, pa.Table]
"""Raw table name → rows of a group of cases (keys dictionary-encoded, plus ``case_pos``)."""

WireTables = dict[str, bytes]
"""A :data:`GroupTables` as it crosses the process boundary: each table as one Arrow IPC
stream (:func:`to_wire`, :func:`from_wire`)."""

_POS = pa.int32()


@dataclass
class CaseParts:
    """The rows of one extracted case, not yet Arrow: its ``raw_bundle`` row, its
    ``raw_file`` rows, its ``raw_json`` rows per file and the other payload tables."""

    bundle: dict[str, Any]
    files: list[dict[str, Any]] = field(default_factory=list)
    json: list[tuple[str, list[Any]]] = field(default_factory=list)
    """(file, its rows as one flat list: :func:`~rcaeval.extract._jsonflat.json_rows`), in
    load order."""
    tables: dict[str, list[pa.Table]] = field(default_factory=dict)
    """Raw table → payload tables, in the order the flatteners produced them."""


def _positions(counts: list[int]) -> pa.Array:
    """``case_pos`` of every row: position ``i`` repeated ``counts[i]`` times."""
    out: list[int] = []
    for pos, n in enumerate(counts):
        out.extend([pos] * n)
    return pa.array(out, _POS)


def _json_payload(cases: list[CaseParts]) -> tuple[list[pa.Array], list[int]]:
    """The ``raw_json`` payload columns of every case (``file`` dictionary-encoded) and the
    number of rows of each case."""
    files: dict[str, int] = {}
    file_idx: list[int] = []
    flat: list[Any] = []
    counts: list[int] = []
    for case in cases:
        n = 0
        for label, part in case.json:
            rows = len(part) // JSON_STRIDE
            file_idx.extend([files.setdefault(label, len(files))] * rows)
            flat.extend(part)
            n += rows
        counts.append(n)
    file_col = pa.DictionaryArray.from_arrays(pa.array(file_idx, pa.int32()),
                                              pa.array(list(files), pa.string()))
    return [file_col, *json_columns(flat)], counts


class GroupBuilder:
    """Collects the :class:`CaseParts` of consecutive cases; :meth:`finish` assembles them."""

    def __init__(self) -> None:
        self.run_ids: list[str] = []
        self.case_ids: list[str] = []
        self.cases: list[CaseParts] = []

    def add(self, run_id: str, case_id: str, parts: CaseParts) -> None:
        self.run_ids.append(run_id)
        self.case_ids.append(case_id)
        self.cases.append(parts)

    def _table(self, name: str) -> tuple[list[pa.Array], list[int]]:
        if name == "raw_json":
            return _json_payload(self.cases)
        if name in ("raw_bundle", "raw_file"):
            b = TableBuilder(name)
            counts = []
            for case in self.cases:
                rows = [case.bundle] if name == "raw_bundle" else case.files
                for row in rows:
                    b.add(**row)
                counts.append(len(rows))
            return b.finish().columns, counts
        parts: list[pa.Table] = []
        counts = []
        for case in self.cases:
            tables = [t for t in case.tables.get(name, ()) if t.num_rows]
            parts.extend(tables)
            counts.append(sum(t.num_rows for t in tables))
        if not parts:
            return PAYLOAD_SCHEMAS[name].empty_table().columns, counts
        return pa.concat_tables(parts).combine_chunks().columns, counts

    def finish(self) -> GroupTables:
        run_dict = pa.array(self.run_ids, pa.string())
        case_dict = pa.array(self.case_ids, pa.string())
        out: GroupTables = {}
        for name in RAW_TABLES:
            payload, counts = self._table(name)
            pos = _positions(counts)
            schema = pa.schema([("run_id", pa.dictionary(_POS, pa.string())),
                                ("case_id", pa.dictionary(_POS, pa.string())),
                                *(pa.field(f.name, c.type) for f, c in
                                  zip(PAYLOAD_SCHEMAS[name], payload, strict=True)),
                                ("case_pos", _POS)])
            out[name] = pa.Table.from_arrays(
                [pa.DictionaryArray.from_arrays(pos, run_dict),
                 pa.DictionaryArray.from_arrays(pos, case_dict), *payload, pos],
                schema=schema)
        return out


def labels_per_series(points: pa.Table) -> pa.Table:
    """``raw_metric_point`` rows of a group with ``labels`` dictionary-encoded: one map per
    series (a run of rows with the same ``case_pos`` and ``series_idx``), an index per point.
    The rows and values are the same; DuckDB converts each series' map once instead of once
    per point (the per-point maps were most of the parent's insert CPU)."""
    i = points.schema.get_field_index("labels")
    if points.num_rows == 0 or pa.types.is_dictionary(points.schema.field(i).type):
        return points
    pos = points.column("case_pos").combine_chunks()
    idx = points.column("series_idx").combine_chunks()
    n = points.num_rows
    head, tail = slice(0, n - 1), slice(1, n)
    change = pc.or_(pc.not_equal(idx[tail], idx[head]), pc.not_equal(pos[tail], pos[head]))
    start = pa.concat_arrays([pa.array([True]), pc.fill_null(change, True)])
    ordinal = pc.subtract(pc.cumulative_sum(pc.cast(start, pa.int32())),
                          pa.scalar(1, pa.int32()))
    labels = points.column(i).combine_chunks().take(pc.indices_nonzero(start))
    encoded = pa.DictionaryArray.from_arrays(ordinal, labels)
    return points.set_column(i, pa.field("labels", encoded.type), encoded)


def to_wire(tables: GroupTables) -> WireTables:
    """Each table as one Arrow IPC stream: pickling the bytes costs a copy, where pickling
    the tables themselves reduces every array and buffer separately (about half of the
    worker's and the parent's pickling CPU went there)."""
    out: WireTables = {}
    for name, table in tables.items():
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)
        out[name] = sink.getvalue().to_pybytes()
    return out


def from_wire(wire: WireTables) -> GroupTables:
    """The tables of :func:`to_wire`, read without copying the column data."""
    return {name: pa.ipc.open_stream(data).read_all() for name, data in wire.items()}
