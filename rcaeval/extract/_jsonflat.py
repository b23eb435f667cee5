"""``raw_json``: one row per JSON value (containers included), addressed by JSONPath-lite."""

from __future__ import annotations

import re
from typing import Any

import orjson
import pyarrow as pa

from rcaeval.extract._schema import PAYLOAD_SCHEMAS, const_column

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


def child_path(parent: str, key: str | int) -> str:
    """Path of a child value: ``$.a``, ``$.a[3]``, or ``$["odd key"]`` for keys that are not
    identifiers (letters, digits, ``_`` and ``-``, not starting with a digit or ``-``)."""
    if isinstance(key, int):
        return f"{parent}[{key}]"
    if _IDENT.match(key):
        return f"{parent}.{key}"
    return f"{parent}[{orjson.dumps(key).decode('utf-8')}]"


def flatten_json(obj: Any, file: str) -> pa.Table:
    """Flatten a parsed JSON document into ``raw_json`` payload rows, in document order.

    Iterative pre-order walk: linear in the number of values, no recursion limit.
    """
    c_path: list[str] = []
    c_parent: list[str | None] = []
    c_key: list[str | None] = []
    c_type: list[str] = []
    c_text: list[str | None] = []
    c_num: list[float | None] = []
    c_len: list[int | None] = []

    stack: list[tuple[Any, str, str | None, str | None]] = [(obj, "$", None, None)]
    pop, push = stack.pop, stack.append
    while stack:
        value, path, parent, key = pop()
        c_path.append(path)
        c_parent.append(parent)
        c_key.append(key)
        vt = type(value)
        if vt is dict:
            c_type.append("object")
            c_text.append(None)
            c_num.append(None)
            c_len.append(len(value))
            for k, child in reversed(list(value.items())):
                push((child, child_path(path, k), path, k))
        elif vt is list:
            c_type.append("array")
            c_text.append(None)
            c_num.append(None)
            c_len.append(len(value))
            for i in range(len(value) - 1, -1, -1):
                push((value[i], f"{path}[{i}]", path, str(i)))
        elif vt is str:
            c_type.append("string")
            c_text.append(value)
            c_num.append(None)
            c_len.append(None)
        elif vt is bool:
            c_type.append("boolean")
            c_text.append("true" if value else "false")
            c_num.append(None)
            c_len.append(None)
        elif vt is int:
            c_type.append("number")
            c_text.append(str(value))
            c_num.append(float(value))
            c_len.append(None)
        elif vt is float:
            c_type.append("number")
            c_text.append(repr(value))
            c_num.append(value)
            c_len.append(None)
        else:  # None (orjson yields only the JSON types)
            c_type.append("null")
            c_text.append(None)
            c_num.append(None)
            c_len.append(None)

    n = len(c_path)
    schema = PAYLOAD_SCHEMAS["raw_json"]
    return pa.Table.from_arrays(
        [
            const_column(file, n),
            pa.array(c_path, pa.string()),
            pa.array(c_parent, pa.string()),
            pa.array(c_key, pa.string()),
            pa.array(c_type, pa.string()),
            pa.array(c_text, pa.string()),
            pa.array(c_num, pa.float64()),
            pa.array(c_len, pa.int32()),
        ],
        schema=schema,
    )
