"""``raw_json``: one row per JSON value (containers included), addressed by JSONPath-lite."""

from __future__ import annotations

import re
from typing import Any

import orjson
import pyarrow as pa

from rcaeval.extract._schema import PAYLOAD_SCHEMAS, const_column

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")

JSON_STRIDE = 7
"""Values per row in the flat lists :func:`json_rows` fills: ``path, parent, key, type,
value_text, value_num, length`` (a ``raw_json`` row without its ``file``, in the payload
schema's column order). One flat list, sliced into columns with a stride, costs less than a
tuple per row or seven lists."""

_SEGMENTS: dict[str, str] = {}
"""Object key → its path segment (``.key`` or ``["odd key"]``); bundles repeat a few hundred
keys millions of times, so the identifier check runs once per distinct key."""
_SEGMENTS_MAX = 1 << 16


def _segment(key: str) -> str:
    seg = _SEGMENTS.get(key)
    if seg is None:
        seg = f".{key}" if _IDENT.match(key) else f"[{orjson.dumps(key).decode('utf-8')}]"
        if len(_SEGMENTS) < _SEGMENTS_MAX:
            _SEGMENTS[key] = seg
    return seg


def child_path(parent: str, key: str | int) -> str:
    """Path of a child value: ``$.a``, ``$.a[3]``, or ``$["odd key"]`` for keys that are not
    identifiers (letters, digits, ``_`` and ``-``, not starting with a digit or ``-``)."""
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return parent + _segment(key)


def _scalar_row(value: Any, path: str, parent: str | None,
                key: str | None) -> tuple[Any, ...]:
    """The row of a non-container value (orjson yields only the JSON types)."""
    vt = type(value)
    if vt is str:
        return (path, parent, key, "string", value, None, None)
    if vt is float:
        return (path, parent, key, "number", repr(value), value, None)
    if vt is int:
        return (path, parent, key, "number", str(value), float(value), None)
    if vt is bool:
        return (path, parent, key, "boolean", "true" if value else "false", None, None)
    return (path, parent, key, "null", None, None, None)


def json_rows(obj: Any, out: list[Any] | None = None) -> list[Any]:
    """Append the ``raw_json`` rows of a parsed document to the flat list ``out``
    (:data:`JSON_STRIDE` values a row) in document order (pre-order: a container's row, then
    its children's), and return it.

    Iterative, with a stack of child iterators: linear in the number of values, no recursion
    limit. Scalar children, most of any document, are emitted inline without touching the
    stack; the branches below are :func:`_scalar_row` unrolled for that reason.
    """
    flat: list[Any] = [] if out is None else out
    ext = flat.extend
    segment, segments = _segment, _SEGMENTS
    vt = type(obj)
    if vt is dict:
        ext(("$", None, None, "object", None, None, len(obj)))
    elif vt is list:
        ext(("$", None, None, "array", None, None, len(obj)))
    else:
        ext(_scalar_row(obj, "$", None, None))
        return flat
    stack: list[tuple[Any, str, bool]] = [
        (iter(obj.items()) if vt is dict else iter(enumerate(obj)), "$", vt is dict)]
    push, pop = stack.append, stack.pop
    while stack:
        it, parent, is_obj = stack[-1]
        for k, v in it:
            if is_obj:
                key = k
                path = parent + (segments.get(k) or segment(k))
            else:
                key = str(k)
                path = f"{parent}[{key}]"
            vt = type(v)
            if vt is str:
                ext((path, parent, key, "string", v, None, None))
            elif vt is float:
                ext((path, parent, key, "number", repr(v), v, None))
            elif vt is int:
                ext((path, parent, key, "number", str(v), float(v), None))
            elif vt is list:
                ext((path, parent, key, "array", None, None, len(v)))
                push((iter(enumerate(v)), path, False))
                break
            elif vt is dict:
                ext((path, parent, key, "object", None, None, len(v)))
                push((iter(v.items()), path, True))
                break
            elif vt is bool:
                ext((path, parent, key, "boolean", "true" if v else "false", None, None))
            else:
                ext((path, parent, key, "null", None, None, None))
        else:
            pop()
    return flat


def json_columns(flat: list[Any]) -> list[pa.Array]:
    """The seven payload columns after ``file`` (``path`` … ``length``) of a flat row list."""
    fields = list(PAYLOAD_SCHEMAS["raw_json"])[1:]
    return [pa.array(flat[i::JSON_STRIDE], f.type) for i, f in enumerate(fields)]


def flatten_json(obj: Any, file: str) -> pa.Table:
    """Flatten a parsed JSON document into ``raw_json`` payload rows, in document order."""
    flat = json_rows(obj)
    return pa.Table.from_arrays([const_column(file, len(flat) // JSON_STRIDE),
                                 *json_columns(flat)],
                                schema=PAYLOAD_SCHEMAS["raw_json"])
