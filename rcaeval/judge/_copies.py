"""Judging a copy of a recorded run: ``rcaeval judge`` takes a case's run id from its
``manifest.json``, so a copy of a run's audit dir would replace the original run's judgments
while the store kept citing the original's audit path. Such a copy is refused unless the
caller asks to replace (``rcaeval judge --replace``); a replaced case run then cites the copy
(docs/judge.md, "Judging a copy of a run").
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from rcaeval.errors import InputError
from rcaeval.judge._manifest import statement

MAX_LISTED = 3


def _real(path: str | Path) -> str:
    return os.path.realpath(path)


def _recorded_dir(audit_path: str | None, audit_root: str | None) -> str | None:
    """The case dir ``eval_case_runs.audit_path`` names (a relative path is tried under the
    run's audit root first, as the reports do)."""
    if not audit_path:
        return None
    path = Path(audit_path)
    if not path.is_absolute() and audit_root and (Path(audit_root) / path).is_dir():
        path = Path(audit_root) / path
    return _real(path)


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def find_copies(db: duckdb.DuckDBPyConnection, refs: Iterable[Any]) -> list[tuple[Any, str]]:
    """``(ref, recorded location)`` for every case dir in ``refs`` whose run id (and case id)
    the store already holds from another place: the case run's ``audit_path`` is another
    dir, or (for a case run the store does not have yet) the dir is outside the run's
    recorded ``audit_root``."""
    refs = list(refs)
    rows = db.execute(statement("load", "copies", "judge_io/recorded_audit_dirs.sql"),
                      {"run_ids": sorted({r.run_id for r in refs})}).fetchall()
    cases = {(run, case): _recorded_dir(path, root) for run, case, path, root in rows if case}
    roots = {run: _real(root) for run, case, _, root in rows if case is None and root}
    out: list[tuple[Any, str]] = []
    for ref in refs:
        here = _real(ref.case_dir)
        key = (ref.run_id, ref.case_id)
        if key in cases:
            recorded = cases[key]
            if recorded is not None and recorded != here:
                out.append((ref, recorded))
        elif ref.run_id in roots and not _under(here, roots[ref.run_id]):
            out.append((ref, roots[ref.run_id]))
    return out


def refuse_copies(copies: list[tuple[Any, str]]) -> None:
    """An :class:`InputError` (exit 3) naming the copies and ``--replace``."""
    if not copies:
        return
    listed = "; ".join(f"{ref.case_dir} is run {ref.run_id!r} case {ref.case_id!r}, which the "
                       f"store has from {where}" for ref, where in copies[:MAX_LISTED])
    more = len(copies) - MAX_LISTED
    raise InputError(
        f"{len(copies)} case dir(s) are a copy of a run already in the store (run and case ids "
        f"come from manifest.json): {listed}" + (f"; and {more} more" if more > 0 else "")
        + ". Judging them would replace the original run's judgments: give --replace "
        "(judge_audit(..., replace=True)) to do that, or change run_id in the copies' "
        "manifest.json to judge them as a run of their own",
        file=str(copies[0][0].case_dir / "manifest.json"), field="run_id")


def cite_copies(db: duckdb.DuckDBPyConnection, copies: list[tuple[Any, str]]) -> None:
    """After a replacing judgment: the replaced case runs' ``audit_path`` is the copy."""
    if not copies:
        return
    table = pa.table({"run_id": [r.run_id for r, _ in copies],
                      "case_id": [r.case_id for r, _ in copies],
                      "audit_path": [str(r.case_dir) for r, _ in copies]})
    db.register("__rcaeval_replaced", table)
    try:
        db.execute(statement("load", "copies", "judge_io/replace_audit_path.sql"))
    finally:
        db.unregister("__rcaeval_replaced")
