"""A repeat group (K > 1 runs) compared with its suite's baseline by rates, not by single
verdicts (docs/baselines.md#repeats).

Per eligible case: the baseline verdict against the case's pass rate over the K runs
(``regressed``: passed in the baseline and in none of the K runs; ``flaky``: passed in some;
``improved``: did not pass in the baseline and passed every time). The gate fails when an
eligible case is ``regressed`` — it passed in the baseline and never passes now, a regression
whatever the p-value (with few cases the test below cannot reach significance, so repeats
would otherwise gate more weakly than one run) — or when a one-sided Fisher exact test of the
suite pass rate — the baseline's passing eligible cases out of its eligible cases against the
group's passing case runs out of its case runs over the same cases — finds the group's rate
lower with p < ``alpha``. Repeats are treated as independent trials.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rcaeval.report._data import load_run
from rcaeval.report._suite import load_baseline, suite_info
from rcaeval.stats import fisher_exact_lower

if TYPE_CHECKING:
    from rcaeval.store import Store

DEFAULT_ALPHA = 0.05
"""Significance level of the repeat gate."""


@dataclass(frozen=True)
class RepeatDiff:
    group_id: str
    suite_id: str
    baseline_run_id: str
    repeat: int
    rows: list[dict[str, Any]]
    """Per case: ``case_id``, ``verdict_before``, ``passes``, ``runs``, ``pass_rate``,
    ``class`` (regressed | flaky | improved | unchanged | new | missing), ``eligible``."""
    passes_before: int
    cases_before: int
    passes_after: int
    runs_after: int
    p_value: float
    alpha: float

    @property
    def rate_before(self) -> float | None:
        return self.passes_before / self.cases_before if self.cases_before else None

    @property
    def rate_after(self) -> float | None:
        return self.passes_after / self.runs_after if self.runs_after else None

    @property
    def gating(self) -> list[dict[str, Any]]:
        """Eligible cases that passed in the baseline and passed in none of the K runs."""
        return [r for r in self.rows if r["eligible"] and r["class"] == "regressed"]

    @property
    def gate_reasons(self) -> list[str]:
        """Why the gate fails (empty: it passes)."""
        reasons = []
        if self.gating:
            reasons.append(f"{len(self.gating)} eligible case(s) passed in the baseline and in "
                           f"none of the {self.repeat} runs: " + ", ".join(
                               f"{r['case_id']} (pass -> 0/{r['runs']})" for r in self.gating))
        if self.p_value < self.alpha:
            reasons.append("the pass rate is significantly lower than the baseline's "
                           f"(p = {self.p_value:.4f} < {self.alpha:g})")
        return reasons

    @property
    def gate_failed(self) -> bool:
        return bool(self.gate_reasons)

    def render(self) -> str:
        def pct(v: float | None) -> str:
            return "n/a" if v is None else f"{v:.1%}"

        lines = [f"baseline comparison of repeat group {self.group_id} ({self.repeat} runs) "
                 f"with baseline {self.baseline_run_id} of suite {self.suite_id}:",
                 f"  pass rate {pct(self.rate_after)} ({self.passes_after}/{self.runs_after} "
                 f"case runs) vs baseline {pct(self.rate_before)} ({self.passes_before}/"
                 f"{self.cases_before} cases); one-sided Fisher exact p = {self.p_value:.4f} "
                 f"(alpha {self.alpha:g})"]
        for klass in ("regressed", "flaky", "improved", "missing", "new"):
            cases = [r for r in self.rows if r["class"] == klass]
            if cases:
                lines.append(f"  {klass}: " + ", ".join(
                    f"{r['case_id']} ({r['verdict_before'] or '-'} -> {r['passes']}/{r['runs']})"
                    for r in cases))
        lines += [f"  REGRESSION: {r}" for r in self.gate_reasons] or [
            "  no regression: no case stopped passing and the pass rate is not significantly "
            "lower"]
        return "\n".join(lines) + "\n"


def diff_repeats_against_baseline(store: Store, run_ids: Sequence[str], group_id: str,
                                  registry_root: str | Path | None = None, *,
                                  alpha: float = DEFAULT_ALPHA) -> RepeatDiff:
    """Compare the runs ``run_ids`` of repeat group ``group_id`` with their suite's
    baseline. :class:`NotFoundError` when the suite has no baseline."""
    datas = [load_run(store, rid) for rid in run_ids]
    run = datas[0].run
    suite_id = str(run.get("suite_id"))
    baseline = load_baseline(registry_root, suite_id)
    suite = suite_info(run, registry_root)
    suite_cases = {c.id: c for c in (suite.spec.cases if suite.spec is not None else [])}
    before = {c.case_id: c for c in baseline.cases}
    after: dict[str, list[str | None]] = {}
    for data in datas:
        for row in data.case_rows():
            after.setdefault(row["case_id"], []).append(row["verdict"])
    rows: list[dict[str, Any]] = []
    pb = nb = pa = na = 0
    for cid in sorted(set(before) | set(after)):
        b, verdicts = before.get(cid), after.get(cid, [])
        sc = suite_cases.get(cid)
        eligible = (b is None or b.baseline_eligible) and (
            sc is None or (sc.baseline_eligible and sc.status != "quarantined"))
        passes, runs = verdicts.count("pass"), len(verdicts)
        if b is None:
            klass = "new"
        elif not runs:
            klass = "missing"
        elif b.verdict == "pass" and passes == 0:
            klass = "regressed"
        elif b.verdict == "pass" and passes < runs:
            klass = "flaky"
        elif b.verdict != "pass" and passes == runs:
            klass = "improved"
        else:
            klass = "unchanged"
        rows.append({"case_id": cid, "verdict_before": b.verdict if b else None,
                     "passes": passes, "runs": runs,
                     "pass_rate": passes / runs if runs else None, "class": klass,
                     "eligible": eligible})
        if eligible and b is not None and runs:
            nb += 1
            pb += b.verdict == "pass"
            na += runs
            pa += passes
    return RepeatDiff(group_id=group_id, suite_id=suite_id, baseline_run_id=baseline.run_id,
                      repeat=len(run_ids), rows=rows, passes_before=pb, cases_before=nb,
                      passes_after=pa, runs_after=na,
                      p_value=fisher_exact_lower(pb, nb, pa, na), alpha=alpha)
