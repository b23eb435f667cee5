"""The judgment packet's ``trajectory`` and ``efficiency`` sections, from the pass's
trajectory frames (queries/judge/trajectory.sql decides every number; docs/results.md,
"Trajectory and efficiency")."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import polars as pl

TRAJECTORY_KEYS = ("steps", "failed_calls", "repeated_calls", "tools_used", "channels_queried",
                   "calls_seconds", "evidence_step", "evidence_seconds", "evidence_check",
                   "evidence_id", "wall_seconds", "input_tokens", "output_tokens",
                   "total_tokens", "cost_usd")
"""The per-case measures, in packet order (eval_trajectory columns of the same names)."""

BUDGET_KEYS = ("max_steps", "max_tokens", "max_seconds")

_FLOATS = frozenset({"calls_seconds", "evidence_seconds", "wall_seconds", "cost_usd",
                     "max_seconds"})


def _value(key: str, value: Any) -> Any:
    if value is None:
        return None
    return round(float(value), 4) if key in _FLOATS else value


def sections(trajectory: pl.DataFrame, tools: pl.DataFrame
             ) -> dict[tuple[str, str], dict[str, Any]]:
    """``{(run_id, case_id): {"trajectory": ..., "efficiency": ...}}``."""
    per_tool: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in tools.iter_rows(named=True) if tools.height else ():
        per_tool[(row["run_id"], row["case_id"])].append({
            "tool": row["tool"], "channel": row["channel"], "calls": row["calls"],
            "failed_calls": row["failed_calls"], "repeated_calls": row["repeated_calls"],
        })
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for row in trajectory.iter_rows(named=True) if trajectory.height else ():
        key = (row["run_id"], row["case_id"])
        calls = per_tool.get(key, [])
        channels: dict[str, int] = defaultdict(int)
        for c in calls:
            if c["channel"] is not None:
                channels[c["channel"]] += c["calls"]
        out[key] = {
            "trajectory": {
                **{k: _value(k, row[k]) for k in TRAJECTORY_KEYS},
                "tools": calls,
                "channels": dict(sorted(channels.items())),
            },
            "efficiency": {
                "status": row["efficiency"],
                "enforced": row["budget_enforced"],
                "budgets": {k: _value(k, row[k]) for k in BUDGET_KEYS},
                "over_budget": list(row["over_budget"] or []),
                "reason": row["efficiency_reason"],
            },
        }
    return out
