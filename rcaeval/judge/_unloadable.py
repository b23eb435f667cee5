"""Cases the registry cannot supply (missing, or whose case.yaml/judge.yaml does not load).

One such case must not stop a judging pass: it gets an ``invalid`` judgment of its own whose
reason names the registry file and field, and every other case is judged normally.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pyarrow as pa

from rcaeval._vocab import (
    SUBTYPE_NOT_IN_REGISTRY,
    SUBTYPE_SPEC_INVALID,
)
from rcaeval.errors import InputError, NotFoundError
from rcaeval.judge._manifest import sql_digest, statement
from rcaeval.judge._packet import (
    EVAL_JUDGMENT_SCHEMA,
    JUDGMENT_VERSION,
    clear_judged,
    write_packets,
)
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


def _packet(run_id: str, case_id: str, subtype: str, reason: str, judge_version: str) -> bytes:
    packet = {
        "judgment_version": JUDGMENT_VERSION,
        "judge_version": judge_version,
        "judge_sql_digest": sql_digest(),
        "run_id": run_id,
        "case_id": case_id,
        "case_type": None,
        "rules_hash": None,
        "scoring_profile": None,
        "verdict": "invalid",
        "subtype": subtype,
        "precedence_step": 0,
        "score": 0.0,
        "raw_score": 0.0,
        "hard_gate": False,
        "reason": reason,
        "bundle": {"status": None, "reason": None, "dir": None, "workspace_id": None},
        "buckets": [],
        "facts": {},
    }
    return orjson.dumps(packet, option=orjson.OPT_INDENT_2) + b"\n"


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
    ``(run_id, case_id)`` is in ``per_ref`` (which wins). Returns the per-case rows in the
    shape of the judging API's frame."""
    now = datetime.now(UTC)
    rows, packets, case_dirs, case_runs = [], {}, {}, []
    for ref in refs:
        key = (ref.run_id, ref.case_id)
        failure = (per_ref or {}).get(key) or failures.get(ref.case_id)
        if failure is None:
            continue
        subtype, reason = failure
        packets[key] = _packet(ref.run_id, ref.case_id, subtype, reason, judge_version)
        case_dirs[key] = ref.case_dir
        rows.append({
            "run_id": ref.run_id, "case_id": ref.case_id, "verdict": "invalid",
            "subtype": subtype, "score": 0.0, "raw_score": 0.0, "hard_gate": False,
            "case_type": None, "scoring_profile": None, "judge_version": judge_version,
            "rules_hash": None, "reason": reason,
            "judgment_json": packets[key].decode("utf-8"), "judged_at": now,
        })
        case_runs.append({"run_id": ref.run_id, "case_id": ref.case_id,
                          "audit_path": str(ref.case_dir), "error": reason})
    if not rows:
        return []
    judgments = pa.Table.from_pylist(rows, schema=EVAL_JUDGMENT_SCHEMA)
    runs = pa.Table.from_pylist(case_runs, schema=pa.schema([
        ("run_id", pa.string()), ("case_id", pa.string()), ("audit_path", pa.string()),
        ("error", pa.string()),
    ]))
    with registered(con, {"__rcaeval_judgments": judgments,
                          "__rcaeval_unloadable_runs": runs}), transaction(con):
        clear_judged(con, "write.unloadable", "unloadable")
        for rel in ("judge/write_judgments.sql", "judge/unloadable_case_runs.sql"):
            con.execute(statement("write.unloadable", "unloadable", rel))
    if write_files:
        write_packets(packets, case_dirs, out_dir)
    return [{k: r[k] for k in ("run_id", "case_id", "case_type", "verdict", "subtype", "score",
                               "raw_score", "hard_gate", "reason")} for r in rows]
