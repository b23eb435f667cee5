"""The lab's restricted database tool: a fixed set of read-only views (``pg_stat_activity``,
``pg_locks`` with the blocking sessions, ``pg_stat_statements``), each one SQL file under
``queries/lab/view_*.sql``, run as the role ``lab_ro`` (``pg_read_all_stats``, read-only
transactions, a 5 s statement timeout). No SQL of the agent's own is ever run. Rows are
recorded into the bundle's queries channel like the slow-SQL tool's."""

from __future__ import annotations

import json
from typing import Any

from rcaeval.lab._procs import LabError
from rcaeval.lab._stack import psql

VIEWS = ("pg_stat_activity", "pg_locks", "pg_stat_statements")
VIEW_LIMIT_MAX = 100


def _record(view: str, row: dict[str, Any], i: int, stamp: str) -> dict[str, Any]:
    """A view row as a queries-channel record (kinds of the bundle contract)."""
    if view == "pg_stat_statements":
        return {"id": f"Q-{row['queryid']}", "kind": "top_sql", "instance": "postgres",
                "sql_text": row["query"], "exec_count": row["calls"],
                "avg_latency_ms": row["mean_ms"], "max_latency_ms": row["max_ms"],
                "view": view, **{k: row[k] for k in ("total_ms", "rows") if k in row}}
    ms = row.get("waiting_ms") if view == "pg_locks" else row.get("query_ms")
    return {"id": f"Q-{view}-{stamp}-{i:03d}", "kind": "slow_query", "instance": "postgres",
            "sql_text": row.get("query") or "", "max_latency_ms": ms or 0, "view": view,
            **{k: v for k, v in row.items() if k != "query"}}


def query_view(tools: Any, view: str, limit: int | None = None) -> dict[str, Any]:
    """One read-only database view of the running lab, through ``tools.call`` (so it is
    recorded and counted like any tool call)."""
    from datetime import UTC, datetime

    from rcaeval.tools import ToolInputError

    args = {"view": view, "limit": limit}

    def run() -> dict[str, Any]:
        if view not in VIEWS:
            raise ToolInputError(f"view must be one of {', '.join(VIEWS)}, got {view!r}")
        if limit is not None and not 1 <= limit <= VIEW_LIMIT_MAX:
            raise ToolInputError(f"limit must be 1..{VIEW_LIMIT_MAX}")
        try:
            text = psql(tools.source.state, file=f"view_{view}.sql", user="lab_ro",
                        timeout_s=15)
        except LabError as exc:
            raise ToolInputError(f"the database view failed: {exc}") from None
        rows = (json.loads(text.strip() or "[]") or [])[: limit or VIEW_LIMIT_MAX]
        stamp = datetime.now(UTC).strftime("%H%M%S%f")[:9]
        records = [_record(view, r, i, stamp) for i, r in enumerate(rows, start=1)]
        ids = tools.writer.add_queries(records)
        return {"view": view, "rows": records, "total": len(records), "_ids": ids}
    return tools.call("query_database_view", args, run, channel="queries")
