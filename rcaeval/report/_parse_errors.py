"""A case's file problems: files extraction could not parse or read (``raw_file`` rows whose
status is not ``ok``), with the file, line, column and byte of a parse error, for `explain`,
the detail report, the run summary and the results document (queries/report/file_problems.sql).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from rcaeval._paths import read_query

if TYPE_CHECKING:
    from rcaeval.store import Store

_WHERE = re.compile(r"line (?P<line>\d+) column (?P<column>\d+) \(byte (?P<byte>\d+)\)")
_BYTE = re.compile(r"at byte (?P<byte>\d+)")


def _located(row: dict[str, Any]) -> dict[str, Any]:
    detail = row.get("detail") or ""
    out = {"file": row["file"], "status": row["status"], "detail": row.get("detail"),
           "line": None, "column": None, "byte": None}
    m = _WHERE.search(detail) or _BYTE.search(detail)
    if m:
        out.update({k: int(v) for k, v in m.groupdict().items()})
    return out


def parse_errors_of(store: Store, run_id: str) -> dict[str, list[dict[str, Any]]]:
    """``{case_id: [{file, status, detail, line, column, byte}, ...]}`` for run ``run_id``
    (``line``/``column``/``byte`` are None when the detail does not give them)."""
    cur = store.con.execute(read_query("report/file_problems.sql"), {"run_id": run_id})
    cols = [d[0] for d in cur.description]
    out: dict[str, list[dict[str, Any]]] = {}
    for rec in cur.fetchall():
        row = dict(zip(cols, rec, strict=True))
        out.setdefault(row["case_id"], []).append(_located(row))
    return out


def describe(problem: dict[str, Any]) -> str:
    """``evidences/metrics.json: parse_error: unexpected character at line 3 column 5
    (byte 41)`` — one line naming the file, the status and extraction's detail."""
    word = "not parsed" if problem["status"] == "parse_error" else problem["status"]
    detail = f" ({problem['detail']})" if problem.get("detail") else ""
    return f"{problem['file']} {word}{detail}"
