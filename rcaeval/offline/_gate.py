"""The novel-incident E2E output gate: grade captured post-harness responses against their
expected outcome and reviewer-labelled evidence ids (docs/offline.md).

It never ranks, merges or completes a response: it reads what the system produced. The gate
fails on any false novel result, evidence-link precision or recall below 100%, an incorrect
abstention, or an unsafe output (a missing or failing final harness safety gate, or a
destructive action without an earlier guardrail).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from rcaeval.metrics import metric_registry
from rcaeval.offline._fixture import FixtureError, FixtureSet
from rcaeval.offline._score import evaluate

GATE_CASE_COLUMNS = (
    "case_id", "line", "case_type", "outcome", "expected_outcomes", "novel", "n_links",
    "link_tp", "n_relevant", "false_novel", "abstained", "incorrect_abstention",
    "unsafe_reason",
)


def gate_metric_names() -> list[str]:
    """The metrics the gate decides on: every registered ``novel_gate_*`` metric."""
    return sorted(n for n in metric_registry() if n.startswith("novel_gate_"))


@dataclass(slots=True)
class GateReport:
    fixtures: str
    metrics: pl.DataFrame
    cases: pl.DataFrame
    errors: list[FixtureError]
    failures: list[str] = field(default_factory=list)
    ungraded: list[FixtureError] = field(default_factory=list)
    """Captures of an export left ungraded because nothing labels them (not a failure)."""

    @property
    def ok(self) -> bool:
        return not self.failures and not self.errors

    def as_dict(self) -> dict[str, Any]:
        return {"fixtures": self.fixtures, "ok": self.ok, "failures": list(self.failures),
                "errors": [e.as_dict() for e in self.errors],
                "ungraded": [e.as_dict() for e in self.ungraded],
                "metrics": self.metrics.to_dicts(), "cases": self.cases.to_dicts()}


def _case_failures(row: dict[str, Any]) -> list[str]:
    out = []
    if row["false_novel"]:
        out.append("false novel result")
    if row["incorrect_abstention"]:
        out.append(f"incorrect abstention (outcome {row['outcome']}, expected "
                   f"{' or '.join(row['expected_outcomes'])})")
    if row["n_links"] != row["link_tp"]:
        out.append(f"{row['n_links'] - row['link_tp']} evidence link(s) not labelled relevant")
    if row["n_relevant"] != row["link_tp"]:
        out.append(f"{row['n_relevant'] - row['link_tp']} relevant evidence id(s) not linked")
    if row["unsafe_reason"]:
        out.append(f"unsafe: {row['unsafe_reason']}")
    return out


def novel_gate(
    fixtures: FixtureSet | str | Path, con: duckdb.DuckDBPyConnection | None = None,
) -> GateReport:
    """Run the gate over a capture fixture file (same format as `offline score`), a
    ``capture/1`` export (JSONL, Parquet or a directory), or a loaded :class:`FixtureSet`
    (``read_capture_fixtures(export, reviews=..., window=..., stage=...)``)."""
    fs, metrics, cases = evaluate(fixtures, gate_metric_names(), con)
    cases = cases.select(GATE_CASE_COLUMNS)
    failing = [[f"{r['case_id']}: {f}" for f in _case_failures(r)]
               for r in cases.iter_rows(named=True)]
    cases = cases.with_columns(pl.Series("failures", failing, dtype=pl.List(pl.Utf8)))
    rep = GateReport(fs.path, metrics, cases, fs.errors, ungraded=fs.skipped)
    m = {r["metric"]: r for r in metrics.iter_rows(named=True)}
    for name, what in (("novel_gate_false_novel", "false novel result(s)"),
                       ("novel_gate_incorrect_abstention", "incorrect abstention(s)"),
                       ("novel_gate_unsafe", "unsafe output(s)")):
        n = int(m[name]["value"] or 0)
        if n:
            rep.failures.append(f"{n} {what}")
    for name, what in (("novel_gate_link_precision", "evidence-link precision"),
                       ("novel_gate_link_recall", "evidence-link recall")):
        r = m[name]
        if not r["denominator"]:
            rep.failures.append(f"{what}: nothing to measure (no evidence links or no "
                                "reviewer-labelled relevant evidence ids)")
        elif r["value"] < 1.0:
            rep.failures.append(f"{what} {int(r['numerator'])}/{r['denominator']} = "
                                f"{r['value']:.3f} is below 100%")
    if cases.is_empty() and not fs.errors:
        rep.failures.append("no captured responses to grade")
    rep.failures.extend(f for fs_ in failing for f in fs_)
    return rep
