"""Trajectory and efficiency in the run reports: report.txt lines, the per-case block and the
results JSON entries (the numbers are the judge's, queries/judge/trajectory.sql; docs/
reports.md, "Trajectory")."""

from __future__ import annotations

from statistics import median
from typing import TYPE_CHECKING, Any

from rcaeval.report._fmt import NA, fmt_duration, fmt_int, table

if TYPE_CHECKING:
    from rcaeval.store import Store

MEASURES = ("steps", "failed_calls", "repeated_calls", "tools_used", "channels_queried",
            "calls_seconds", "evidence_step", "evidence_seconds", "evidence_check",
            "evidence_id", "wall_seconds", "input_tokens", "output_tokens", "total_tokens",
            "cost_usd")
"""The per-case trajectory measures of the results JSON (eval_trajectory columns)."""


def _median(values: list[Any]) -> float | None:
    known = [v for v in values if v is not None]
    return float(median(known)) if known else None


def _num(value: float | None) -> str:
    return NA if value is None else f"{value:g}"


def summary_lines(rows: list[dict[str, Any]], kv: Any) -> list[str]:
    """The report.txt summary lines (``kv(label, value)`` formats one)."""
    if not rows:
        return [kv("trajectory", f"{NA} (no judged case has a trajectory row)")]
    n = len(rows)
    reached = [r for r in rows if r["evidence_step"] is not None]
    to_evidence = fmt_duration(_median([r["evidence_seconds"] for r in reached]))
    lines = [
        kv("trajectory", f"{sum(r['steps'] for r in rows)} steps over {n} cases (median "
                         f"{_num(_median([r['steps'] for r in rows]))}), "
                         f"{sum(r['failed_calls'] for r in rows)} failed, "
                         f"{sum(r['repeated_calls'] for r in rows)} repeated"),
        kv("time to evidence", f"{len(reached)} of {n} cases reached cited evidence through "
                               f"a tool call; median step "
                               f"{_num(_median([r['evidence_step'] for r in reached]))}, "
                               f"median {to_evidence}"),
    ]
    budgeted = [r for r in rows if r["efficiency"] != "no_budget"]
    if budgeted:
        over = [r for r in budgeted if r["efficiency"] == "over_budget"]
        counts = ", ".join(f"{sum(1 for r in budgeted if r['efficiency'] == s)} {s}"
                           for s in ("within_budget", "over_budget", "unmeasured"))
        lines.append(kv("efficiency", f"{len(budgeted)} budgeted cases: {counts}"
                        + "".join(f"; {r['case_id']}: {r['efficiency_reason']}"
                                  for r in over)))
    return lines


def case_block(rows: list[dict[str, Any]]) -> list[str]:
    """The report.txt ``trajectory:`` table, one row per case."""
    if not rows:
        return []
    body = [[r["case_id"], str(r["steps"]), str(r["failed_calls"]), str(r["repeated_calls"]),
             NA if r["evidence_step"] is None else str(r["evidence_step"]),
             fmt_duration(r["evidence_seconds"]), fmt_int(r["total_tokens"]),
             fmt_duration(r["wall_seconds"]), r["efficiency"]] for r in rows]
    return ["", "trajectory:", *table(
        ["case", "steps", "failed", "repeated", "evidence step", "to evidence", "tokens",
         "wall", "efficiency"], body, right={1, 2, 3, 4, 5, 6, 7}, indent="  ")]


def case_entry(row: dict[str, Any] | None) -> dict[str, Any]:
    """A results-JSON attempt's ``trajectory`` and ``efficiency`` (``None`` without a row)."""
    if row is None:
        return {"trajectory": None, "efficiency": None}
    channels: dict[str, int] = {}
    for t in row["tools"] or []:
        if t["channel"] is not None:
            channels[t["channel"]] = channels.get(t["channel"], 0) + t["calls"]
    return {
        "trajectory": {**{k: row[k] for k in MEASURES}, "tools": list(row["tools"] or []),
                       "channels": dict(sorted(channels.items()))},
        "efficiency": {"status": row["efficiency"], "enforced": row["budget_enforced"],
                       "budgets": {k: row[k] for k in ("max_steps", "max_tokens",
                                                       "max_seconds")},
                       "over_budget": list(row["over_budget"] or []),
                       "reason": row["efficiency_reason"]},
    }


def summary_entry(cases: list[dict[str, Any]]) -> dict[str, Any]:
    """The results-JSON summary's ``trajectory``: totals and medians over the case runs of
    ``cases`` (the document's case entries)."""
    rows = [a["trajectory"] for c in cases for a in c["attempts"] if a.get("trajectory")]
    reached = [r for r in rows if r["evidence_step"] is not None]
    return {
        "case_runs": len(rows),
        "steps": sum(r["steps"] for r in rows),
        "median_steps": _median([r["steps"] for r in rows]),
        "failed_calls": sum(r["failed_calls"] for r in rows),
        "repeated_calls": sum(r["repeated_calls"] for r in rows),
        "evidence_reached": len(reached),
        "median_evidence_step": _median([r["evidence_step"] for r in reached]),
        "median_evidence_seconds": _median([r["evidence_seconds"] for r in reached]),
        "over_budget": sorted({c["case_id"] for c in cases for a in c["attempts"]
                               if (a.get("efficiency") or {}).get("status") == "over_budget"}),
    }


def compare_runs(store: Store, run_a: str, run_b: str) -> dict[str, Any] | None:
    """Run ``run_b`` against ``run_a`` on their shared cases' trajectories
    (queries/report/trajectory_compare.sql); ``None`` when they share no case with a
    trajectory row (e.g. the baseline's run is not in this store)."""
    from rcaeval._paths import read_query

    row = store.sql(read_query("report/trajectory_compare.sql"),
                    {"run_a": run_a, "run_b": run_b}).row(0, named=True)
    return row if row["shared_cases"] else None


def compare_line(cmp: dict[str, Any]) -> str:
    """One line of a run-vs-baseline comparison's trajectory (``before -> after``)."""
    def pair(key: str, fmt: Any = _num) -> str:
        return f"{fmt(cmp[key + '_before'])} -> {fmt(cmp[key + '_after'])}"

    return (f"median steps {pair('median_steps')}, reached cited evidence "
            f"{pair('evidence_reached', str)}, median steps to it "
            f"{pair('median_evidence_step')} ({pair('median_evidence_seconds', fmt_duration)}), "
            f"failed calls {pair('failed_calls', str)}, repeated "
            f"{pair('repeated_calls', str)} over {cmp['shared_cases']} shared cases "
            "(informational: never gates)")
