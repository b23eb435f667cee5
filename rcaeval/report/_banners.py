"""What each report page's decision banner says (:func:`rcaeval.charts.show_banner`): the run
page's verdict counts, the regression report's REGRESSION / no regression, the release gate's
PASSED / FAILED. Each returns ``(ok, headline, details)``; ``ok`` None: nothing decided."""

from __future__ import annotations

from typing import Any

from rcaeval._numfmt import display_value
from rcaeval._vocab import VERDICTS
from rcaeval.store import Store

Banner = tuple[bool | None, str, list[str]]


def run_banner(store: Store, run_id: str) -> Banner:
    """The run's cases by verdict, and the errored / timed-out ones that got no verdict:
    ``ok`` when every case passed."""
    import polars as pl

    from rcaeval.report._runpage import case_table

    cases = case_table(store, run_id)
    n = cases.height
    verdicts = {v: cases.filter(pl.col("verdict") == v).height for v in VERDICTS}
    status = cases["run_status"] if "run_status" in cases.columns else pl.Series([], dtype=pl.Utf8)
    errored = int((status == "errored").sum())
    timed_out = int((status == "timed_out").sum())
    runs = store.runs().filter(pl.col("run_id") == run_id)
    row = runs.row(0, named=True) if runs.height else {}
    agent = row.get("agent_name") or row.get("agent_spec")
    counts = (f"{verdicts['pass']} pass · {verdicts['fail']} fail · {verdicts['invalid']} "
              f"invalid · {errored} errored · {timed_out} timed out")
    if n == 0:
        return None, f"run {run_id}: no cases", []
    head = f"run {run_id}: {verdicts['pass']} of {n} case{'s' if n != 1 else ''} pass"
    about = (f"agent {agent}; " if agent else "") + f"run {row.get('status') or 'not recorded'}"
    if row.get("sandbox"):
        about += f"; sandbox {row['sandbox']}"
    return verdicts["pass"] == n, head, [counts, about]


def regression_banner(diff: Any | None, note: str) -> Banner:
    """REGRESSION (the baseline gate of ``rcaeval baseline diff`` failed) or no regression,
    with the eligible pass count and the cases per diff class; ``ok`` None without a
    baseline (``note`` says why)."""
    if diff is None:
        return None, "no baseline comparison", [note]
    counts = diff.counts
    gating = diff.gating.height
    classes = ", ".join(f"{c} {display_value(k)}" for c, k in counts.items()
                        if c != "regressed")
    head = ("REGRESSION" if diff.gate_failed else "no regression") + \
        f": eligible pass count {diff.pass_before} → {diff.pass_after}"
    lines = [f"{diff.regressed.height} regressed ({gating} gating); {classes}", note]
    return (not diff.gate_failed, head, lines)


def gate_banner(gate: Any) -> Banner:
    """Release gate PASSED / FAILED with the failing metrics and how many checks pass."""
    n = len(gate.rows)
    ok = n - len(gate.failed)
    head = "release gate PASSED" if gate.passed else \
        f"release gate FAILED: {', '.join(gate.failed)}"
    lines = [f"{ok} of {n} gate checks pass"
             + (" (strict: interval bounds)" if gate.strict else " (point estimates)")]
    return gate.passed, head, lines
