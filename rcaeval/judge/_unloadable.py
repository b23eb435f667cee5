"""Cases the registry cannot supply (missing, or whose case.yaml/judge.yaml does not load).

One such case must not stop a judging pass: it gets an ``invalid`` judgment of its own whose
reason names the registry file and field, and every other case is judged normally.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa

from rcaeval._vocab import (
    SUBTYPE_NOT_IN_REGISTRY,
    SUBTYPE_SPEC_INVALID,
)
from rcaeval.errors import InputError, NotFoundError
from rcaeval.judge._manifest import statement
from rcaeval.judge._packet import (
    build_packets,
    clear_judged,
    judgment_rows,
    judgments_frame,
    write_packets,
)
from rcaeval.judge._pipeline import JudgeFrames
from rcaeval.store import registered, transaction


def describe_load_error(exc: Exception) -> tuple[str, str]:
    """``(subtype, reason)`` for an error raised while loading one case from the registry."""
    if isinstance(exc, NotFoundError):
        return SUBTYPE_NOT_IN_REGISTRY, f"not in the registry: {exc}"
    problems = getattr(exc, "problems", None)
    if problems:
        root = getattr(exc, "file", "") or ""
        base = root[: -len(problems[0].file)] if root.endswith(problems[0].file) else ""
        parts = []
        for p in problems[:5]:
            where = f"{base}{p.file}" + (f":{p.line}" if p.line else "")
            where += f" [{p.field}]" if p.field else ""
            parts.append(f"{where}: {p.message}")
        more = len(problems) - 5
        text = "; ".join(parts) + (f" (+{more} more)" if more > 0 else "")
        return SUBTYPE_SPEC_INVALID, f"case spec does not load: {text}"
    if isinstance(exc, InputError):
        return SUBTYPE_SPEC_INVALID, f"case spec does not load: {exc}"
    return SUBTYPE_SPEC_INVALID, f"case spec does not load: {exc!r}"


_INPUT = pa.schema([("run_id", pa.string()), ("case_id", pa.string()), ("subtype", pa.string()),
                    ("reason", pa.string()), ("ord", pa.int64())])
"""The input of judge/unloadable_judgments.sql: one row per unloadable case dir, in order."""


def record_unloadable(
    con: duckdb.DuckDBPyConnection,
    failures: Mapping[str, tuple[str, str]],
    refs: Iterable[Any],
    *,
    judge_version: str,
    out_dir: str | Path | None,
    write_files: bool,
    per_ref: Mapping[tuple[str, str], tuple[str, str]] | None = None,
) -> list[dict[str, Any]]:
    """Write an ``invalid`` judgment (store rows and judgment.json) for every case dir in
    ``refs`` whose case id is in ``failures`` (``case_id -> (subtype, reason)``) or whose
    ``(run_id, case_id)`` is in ``per_ref`` (which wins). The verdict rows come from
    judge/unloadable_judgments.sql; packets and eval_judgment rows are built from them by the
    judged cases' builders (:func:`build_packets`, :func:`judgment_rows`) and written by
    [write.unloadable]. Returns the per-case rows in the shape of the judging API's frame."""
    inputs, case_dirs, case_runs = [], {}, []
    for ref in refs:
        key = (ref.run_id, ref.case_id)
        failure = (per_ref or {}).get(key) or failures.get(ref.case_id)
        if failure is None:
            continue
        subtype, reason = failure
        inputs.append({"run_id": ref.run_id, "case_id": ref.case_id, "subtype": subtype,
                       "reason": reason, "ord": len(inputs)})
        case_dirs[key] = ref.case_dir
        case_runs.append({"run_id": ref.run_id, "case_id": ref.case_id,
                          "audit_path": str(ref.case_dir), "error": reason})
    if not inputs:
        return []
    with registered(con, {"__rcaeval_unloadable": pa.Table.from_pylist(inputs, schema=_INPUT)}):
        verdicts = con.sql(statement("write.unloadable", "unloadable",
                                     "judge/unloadable_judgments.sql")).pl()
    frames = JudgeFrames(judgments=verdicts, buckets=pl.DataFrame(), checks=pl.DataFrame(),
                         facts=pl.DataFrame(), scope=pl.DataFrame())
    packets = build_packets(frames, judge_version=judge_version)
    runs = pa.Table.from_pylist(case_runs, schema=pa.schema([
        ("run_id", pa.string()), ("case_id", pa.string()), ("audit_path", pa.string()),
        ("error", pa.string()),
    ]))
    with registered(con, {"__rcaeval_judgments": judgment_rows(
            frames, packets, judge_version=judge_version),
                          "__rcaeval_unloadable_runs": runs}), transaction(con):
        clear_judged(con, "write.unloadable", "unloadable")
        for rel in ("judge/write_judgments.sql", "judge/unloadable_case_runs.sql"):
            con.execute(statement("write.unloadable", "unloadable", rel))
    if write_files:
        write_packets(packets, case_dirs, out_dir)
    return judgments_frame(frames).to_dicts()
