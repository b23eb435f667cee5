"""Reading RCA responses from a file: a JSON object, a JSON array, JSONL, or Parquet.

A record that cannot be used (bad JSON on its line, not an object) is returned with an
``error`` and no data, so one malformed line marks one record invalid and loses nothing else.
A capture-export row (``{"capture_id": ..., "response": {...}, ...}``) is unwrapped: the
``response`` is checked and ``capture_id`` (or ``id``) becomes the record id.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from rcaeval._inputs import check_input_file, read_input
from rcaeval.errors import InputError

_ID_KEYS = ("capture_id", "record_id", "id")


@dataclass(slots=True)
class Record:
    index: int
    line: int | None
    record_id: str | None
    data: dict[str, Any] | None
    error: str | None = None


def drop_nulls(value: Any) -> Any:
    """Remove null-valued keys, recursively. A Parquet/polars struct gives every row every
    field any row has, filled with nulls (``operator_approval: null`` where the JSON simply
    omitted it); every nullable contract field defaults to null, so dropping them restores
    the response as it was captured instead of failing validation."""
    if isinstance(value, dict):
        return {k: drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [drop_nulls(v) for v in value]
    return value


def unwrap(obj: Any, index: int, line: int | None, *, from_frame: bool = False) -> Record:
    """``from_frame``: the row comes from a Parquet file or polars frame, where struct columns
    pad missing fields with nulls (see :func:`drop_nulls`)."""
    if from_frame and isinstance(obj, dict):
        obj = {k: drop_nulls(v) if isinstance(v, dict | list) else v for k, v in obj.items()}
    if not isinstance(obj, dict):
        return Record(index, line, None, None,
                      f"expected a JSON object, got {type(obj).__name__}")
    rid = next((str(obj[k]) for k in _ID_KEYS if obj.get(k) is not None), None)
    inner = obj.get("response")
    if "alert" not in obj and inner is not None:
        if isinstance(inner, str | bytes):
            try:
                inner = orjson.loads(inner)
            except orjson.JSONDecodeError as exc:
                return Record(index, line, rid, None, f"response is not valid JSON: {exc}")
        if not isinstance(inner, dict):
            return Record(index, line, rid, None, "response is not a JSON object")
        return Record(index, line, rid, inner)
    return Record(index, line, rid, obj)


def parse_text(text: bytes) -> list[Record]:
    """Records of a JSON object, a JSON array, or JSON lines (decided by trying in order)."""
    try:
        whole = orjson.loads(text)
    except orjson.JSONDecodeError:
        whole = None
    else:
        if isinstance(whole, list):
            return [unwrap(o, i, None) for i, o in enumerate(whole)]
        if isinstance(whole, dict):
            return [unwrap(whole, 0, 1)]
    records: list[Record] = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            records.append(Record(len(records), lineno, None, None, f"invalid JSON: {exc}"))
            continue
        records.append(unwrap(obj, len(records), lineno))
    return records


def read_responses(path: str | Path) -> list[Record]:
    """Read every record of ``path``; raise NotFoundError/InputError only when the file as a
    whole cannot be read: not a regular file (a FIFO, a device, a directory), larger than
    the harness cap (rcaeval._inputs.CAPS), or holding no responses at all."""
    p = Path(path)
    if p.suffix.lower() == ".parquet":
        records = _read_parquet(check_input_file(p, "harness"))
    else:
        records = parse_text(read_input(p, "harness"))
    if not records:
        raise InputError("holds no responses", file=str(p))
    return records


def _read_parquet(p: Path) -> list[Record]:
    import polars as pl
    import pyarrow.parquet as pq

    try:
        names = pq.read_schema(p).names
    except Exception as exc:  # noqa: BLE001 - pyarrow raises several error types
        raise InputError(f"cannot read Parquet: {exc}", file=str(p)) from None
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise InputError(f"column(s) {', '.join(map(repr, dupes))} appear more than once",
                         file=str(p), field=dupes[0])
    try:
        frame = pl.read_parquet(p)
    except Exception as exc:  # noqa: BLE001 - polars raises several error types
        raise InputError(f"cannot read Parquet: {exc}", file=str(p)) from None
    if "response" not in frame.columns:
        raise InputError("a Parquet capture needs a 'response' column", file=str(p),
                         field="response")
    return [unwrap(row, i, None, from_frame=True)
            for i, row in enumerate(frame.iter_rows(named=True))]
