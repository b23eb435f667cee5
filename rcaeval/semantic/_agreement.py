"""Reading the semantic shadow back: agreement with the detectors per diagnosis check
(confusion counts, Cohen's kappa), deterministic vs blended verdict counts, and a run's
shadow summary for reports (queries/semantic/*.sql)."""

from __future__ import annotations

from typing import Any

import duckdb
import polars as pl

from rcaeval._paths import read_query
from rcaeval.semantic._view import has_shadow
from rcaeval.stats import cohen_kappa
from rcaeval.store import Connectable, connection_of

AGREEMENT_COLUMNS = ("check_id", "kind", "n", "both_pass", "det_pass_sem_fail",
                     "det_fail_sem_pass", "both_fail", "ties", "case_runs", "agreement",
                     "kappa")


def _con(store: Connectable) -> duckdb.DuckDBPyConnection:
    return connection_of(store)


def _frame(store: Connectable, name: str, params: dict[str, Any]) -> pl.DataFrame:
    return _con(store).sql(read_query(f"semantic/{name}.sql"), params=params).pl()


def agreement(store: Connectable, run_id: str | None = None) -> pl.DataFrame:
    """Deterministic vs semantic verdicts per diagnosis check of run ``run_id`` (``None``:
    every run): n (case runs with a semantic majority), the four confusion counts, ties,
    observed agreement and Cohen's kappa (null when undefined). The last row
    (``check_id`` null) totals every check."""
    df = _frame(store, "agreement", {"run_id": run_id})
    rows = df.to_dicts()
    for r in rows:
        n = r["n"]
        r["agreement"] = (r["both_pass"] + r["both_fail"]) / n if n else None
        r["kappa"] = cohen_kappa(r["both_pass"], r["det_pass_sem_fail"], r["det_fail_sem_pass"],
                                 r["both_fail"])
    schema = {"check_id": pl.String, "kind": pl.String, **{
        c: pl.Int64 for c in AGREEMENT_COLUMNS[2:9]}, "agreement": pl.Float64,
        "kappa": pl.Float64}
    return pl.DataFrame(rows, schema=schema)


def verdict_comparison(store: Connectable, run_id: str) -> pl.DataFrame:
    """Cases per verdict of run ``run_id``: ``deterministic`` (eval_judgment), ``blended``
    (the second pass where there was one, else the deterministic verdict) and
    ``changed_from`` (cases with this deterministic verdict whose blended verdict differs)."""
    from rcaeval._vocab import VERDICTS

    return _frame(store, "verdicts", {"run_id": run_id, "verdicts": list(VERDICTS)})


def blended_verdicts(store: Connectable, run_id: str) -> pl.DataFrame:
    """``case_id``, ``blended_verdict``: the second pass's verdict of each case of run
    ``run_id`` the shadow judged again (none for a case whose deterministic verdict stands;
    an empty frame when the run has no shadow or the store predates migration 0003)."""
    if not has_shadow(_con(store)):
        return pl.DataFrame(schema={"case_id": pl.String, "blended_verdict": pl.String})
    return _frame(store, "blended_verdicts", {"run_id": run_id})


def semantic_summary(store: Connectable, run_id: str) -> dict[str, Any] | None:
    """The run's shadow in one dict (counts per status, second passes, cache hits, requests,
    tokens, cost, providers, models, prompts, samples); ``None`` when the run has none."""
    if not has_shadow(_con(store)):
        return None
    row = _frame(store, "summary", {"run_id": run_id}).to_dicts()[0]
    return row if row["n"] else None


def _fmt_int(value: Any) -> str:
    return "-" if value is None else f"{int(value):,}"


def _counts(frame: pl.DataFrame, col: str) -> str:
    return ", ".join(f"{r['verdict']} {r[col]}" for r in frame.iter_rows(named=True))


def report_lines(store: Connectable, run_id: str, *, width: int = 19) -> list[str]:
    """The run report's lines on the semantic shadow (docs/reports.md): provider and
    settings, statuses, judge tokens and cost, deterministic vs blended verdict counts. Empty
    when the run has no shadow, so reports of runs judged without it do not change."""
    s = semantic_summary(store, run_id)
    if s is None:
        return []

    def kv(label: str, value: str) -> str:
        return f"{label + ':':<{width}}{value}".rstrip()

    statuses = ", ".join(f"{k} {s[k]}" for k in (
        "ok", "missing_provider", "provider_failure", "timeout", "unsupported_provider")
        if s[k])
    who = " ".join(filter(None, [", ".join(s["providers"]), ", ".join(s["models"])]))
    samples = "/".join(str(x) for x in s["samples"])
    cost = "-" if s["cost_usd"] is None else f"${s['cost_usd']:.4f}"
    v = verdict_comparison(store, run_id)
    return [
        kv("semantic judge", f"{who}, prompt {', '.join(s['prompts'])}, {samples} sample(s)"),
        kv("semantic status", f"{s['n']} cases: {statuses}; {s['second_pass']} second "
           f"pass(es), {s['cache_hits']} from cache"),
        kv("judge tokens", f"input {_fmt_int(s['input_tokens'])}, output "
           f"{_fmt_int(s['output_tokens'])} ({_fmt_int(s['requests'])} requests)"),
        kv("judge cost", f"{cost} ({s['cost_cases']} of {s['n']} cases reported)"),
        kv("blended verdicts", f"{_counts(v, 'blended')} (deterministic: "
           f"{_counts(v, 'deterministic')})"),
    ]
