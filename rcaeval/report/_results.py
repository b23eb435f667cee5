"""Machine-readable results of a run (or of the K runs of a repeat): the document behind
``rcaeval run --results-json`` and ``--junit-xml`` (docs/results.md describes the schema).

One document covers one run group: a plain run is a group of one. Per case it lists every
attempt (one per repeat) with its verdict, score, failing checks, parse errors, timings and
token usage, and the per-case repeat statistics; the summary carries the suite pass rate with
its Wilson interval (metric ``attempt_pass_rate``), pass@k and pass^k (metrics ``pass_at_k``,
``pass_hat_k``) and the flaky cases.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from rcaeval._vocab import CASE_OUTCOMES as OUTCOMES
from rcaeval.report._trajectory import case_entry, summary_entry
from rcaeval.stats import DEFAULT_CONFIDENCE
from rcaeval.store import Store

RESULTS_SCHEMA = "rcaeval.results/1"
"""``schema`` of the results document; bumped when a field changes meaning or goes away."""
_TOKENS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
_LAB_FIELDS = ("alert", "alert_after_s", "mitigation", "time_to_diagnosis_s",
               "time_to_mitigation_s", "actions_applied", "unsafe_attempts", "error")
"""An attempt's ``lab`` entry (``rcaeval run --suite lab``; eval_lab_mitigation)."""
_CHECK_FIELDS = ("bucket", "check_id", "kind", "required", "reason", "evidence_file",
                 "evidence_path", "evidence_line")


def _iso(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat().replace("+00:00", "Z")
    return str(value)


def _rate(row: dict[str, Any]) -> dict[str, Any]:
    return {"value": row["value"], "successes": int(row["numerator"] or 0),
            "n": int(row["denominator"] or 0), "ci_low": row["ci_low"],
            "ci_high": row["ci_high"]}


def _attempt(summary: Any, repeat: int, case: Any, row: dict[str, Any],
             checks: list[dict[str, Any]], parse_errors: list[dict[str, Any]],
             trajectory: dict[str, Any] | None = None,
             lab: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "repeat": repeat,
        "run_id": summary.run_id,
        "outcome": case.outcome,
        "status": case.status,
        "verdict": case.verdict,
        "subtype": case.subtype,
        "score": case.score,
        "raw_score": row.get("raw_score"),
        "reason": row.get("reason"),
        "failing_checks": [{k: c.get(k) for k in _CHECK_FIELDS} for c in checks],
        "parse_errors": parse_errors,
        "error": case.error,
        "attempts": case.attempts,
        "started_at": _iso(row.get("started_at")),
        "finished_at": _iso(row.get("finished_at")),
        "duration_s": case.duration_s,
        "tokens": {k: row.get(k) for k in _TOKENS},
        "cost_usd": row.get("cost_usd"),
        "audit_path": row.get("audit_path"),
        "lab": None if lab is None else {k: lab.get(k) for k in _LAB_FIELDS},
        **case_entry(trajectory),
    }


def _sum(values: list[Any]) -> Any:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def run_results(store: Store, summaries: Sequence[Any], *, group_id: str | None = None,
                gate: Any = None) -> dict[str, Any]:
    """The results document of ``summaries`` (:class:`rcaeval.runner.RunSummary`, one per
    repeat, in repeat order). ``gate`` (:class:`rcaeval.runner.RunGate`) adds the exit
    status; ``group_id`` names a repeat group (default: the only run's id)."""
    from rcaeval.lab import mitigation_rows
    from rcaeval.metrics import compute_metrics
    from rcaeval.report._data import load_run
    from rcaeval.report._parse_errors import parse_errors_of

    if not summaries:
        raise ValueError("run_results needs at least one run summary")
    first = summaries[0]
    k = len(summaries)
    per_case: dict[str, dict[str, Any]] = {}
    sandboxes: list[str | None] = []
    for i, s in enumerate(summaries, 1):
        data = load_run(store, s.run_id)
        sandboxes.append(data.run.get("sandbox"))
        rows = {r["case_id"]: r for r in data.case_rows()}
        perrs = parse_errors_of(store, s.run_id)
        labs = {r["case_id"]: r for r in mitigation_rows(store.con, s.run_id)}
        for c in s.cases:
            entry = per_case.setdefault(c.case_id, {
                "case_id": c.case_id, "case_type": c.case_type, "quarantined": c.quarantined,
                "attempts": []})
            entry["case_type"] = entry["case_type"] or c.case_type
            entry["attempts"].append(_attempt(s, i, c, rows.get(c.case_id, {}),
                                              data.failing_checks_of(c.case_id),
                                              perrs.get(c.case_id, []),
                                              data.trajectory_of(c.case_id),
                                              labs.get(c.case_id)))
    counts = dict.fromkeys(OUTCOMES, 0)
    flaky: list[str] = []
    for entry in per_case.values():
        outs = [a["outcome"] for a in entry["attempts"]]
        for o in outs:
            counts[o] = counts.get(o, 0) + 1
        passes = outs.count("pass")
        entry.update(runs=len(outs), passes=passes, pass_rate=passes / len(outs),
                     pass_at_k=passes > 0, pass_hat_k=passes == len(outs),
                     flaky=0 < passes < len(outs))
        if entry["flaky"]:
            flaky.append(entry["case_id"])
    excluded = sorted(cid for cid, e in per_case.items() if e["quarantined"])
    metrics = compute_metrics(store.con, ["attempt_pass_rate", "pass_at_k", "pass_hat_k"],
                              {"run_ids": [s.run_id for s in summaries], "excluded": excluded})
    rates = {r["metric"]: _rate(r) for r in metrics.iter_rows(named=True)}
    attempts = [a for e in per_case.values() for a in e["attempts"]]
    doc: dict[str, Any] = {
        "schema": RESULTS_SCHEMA,
        "generated_at": _iso(datetime.now(UTC)),
        "run": {
            "id": group_id or first.run_id,
            "run_ids": [s.run_id for s in summaries],
            "suite_id": first.suite_id,
            "suite_version": first.suite_version,
            "agent_spec": first.agent_spec,
            "agent_hash": first.agent_hash,
            "sandbox": sandboxes[0] if len(set(sandboxes)) == 1 else sandboxes,
            "status": ("completed" if all(s.status == "completed" for s in summaries)
                       else "interrupted"),
            "repeat": k,
            "reports": [str(p) for s in summaries for p in (s.reports or ())],
        },
        "exit": None if gate is None else {"code": int(gate.exit_code),
                                           "reasons": list(gate.reasons)},
        "summary": {
            "cases": len(per_case),
            "case_runs": len(attempts),
            "outcomes": counts,
            "quarantined": excluded,
            "pass_rate": rates["attempt_pass_rate"],
            "pass_at_k": rates["pass_at_k"],
            "pass_hat_k": rates["pass_hat_k"],
            "confidence": DEFAULT_CONFIDENCE,
            "flaky": sorted(flaky),
            "duration_s": _sum([a["duration_s"] for a in attempts]),
            "tokens": {t: _sum([a["tokens"][t] for a in attempts]) for t in _TOKENS},
            "cost_usd": _sum([a["cost_usd"] for a in attempts]),
            "trajectory": summary_entry(list(per_case.values())),
        },
        "cases": [per_case[cid] for cid in sorted(per_case)],
    }
    return doc


def write_results_json(doc: dict[str, Any], path: str | Path) -> Path:
    """Write the results document as indented JSON (parent dirs created)."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE
                                 | orjson.OPT_NON_STR_KEYS))
    return out
