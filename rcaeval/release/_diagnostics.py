"""What a measurement records beside the gate metrics (docs/release.md "Diagnostics"): the
knowledge packages and activation paths it measured, probe metrics per template, the
calibration of the ranker's confidence and probe-ordering adherence. Each is one query file
(``queries/metrics/capture_probe_*.sql``, ``capture_confidence_*.sql``,
``queries/release/knowledge_measured.sql``) over the window's relations (trace.sql)."""

from __future__ import annotations

import math
from typing import Any

import duckdb

from rcaeval._paths import read_query
from rcaeval.metrics import compute_breakdown, compute_metrics

RELIABILITY_BINS = 10
"""Equal-width probability bins of the reliability curve."""
DIAGNOSTIC_QUERIES: tuple[str, ...] = (
    "metrics/capture_probe_by_template.sql", "metrics/capture_confidence_reliability.sql",
    "metrics/capture_confidence_brier.sql", "metrics/capture_confidence_brier_self_check.sql",
    "metrics/capture_confidence_source_groups_overclaimed.sql",
    "metrics/capture_confidence_adjustments_inconsistent.sql",
    "metrics/capture_confidence_failed_gate_high.sql",
    "metrics/capture_probe_ordering_adherence.sql",
    "release/knowledge_measured.sql",
)
"""The query files whose text decides the diagnostics (hashed into the provenance)."""


def _clean(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _rows(frame: Any) -> list[dict[str, Any]]:
    return [{k: _clean(v) for k, v in r.items()} for r in frame.iter_rows(named=True)]


def knowledge_measured(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    """``{"packages": [{package_id, activation_path, captures}], "unrecorded": n}``: the
    distinct knowledge packages and activation paths of the measured captures, and how many
    captures record none."""
    rows = con.execute(read_query("release/knowledge_measured.sql")).fetchall()
    packages = [{"package_id": p, "activation_path": a, "captures": int(n)}
                for p, a, n in rows if p is not None]
    unrecorded = sum(int(n) for p, _a, n in rows if p is None)
    return {"packages": packages, "unrecorded": unrecorded}


def diagnostics(con: duckdb.DuckDBPyConnection, confidence: float) -> dict[str, Any]:
    """The diagnostics block of the artifact (not gated): probe metrics per template,
    the reliability curve and Brier score of the ranker's confidence (and of its self-check's
    calibrated probability), how often it declares independent source groups its cited live
    evidence does not show, breakdowns that do not add up, high confidence despite a failed
    confidence gate of its own, ordering adherence."""
    scalar = {r["metric"]: r for r in compute_metrics(
        con, ["capture_confidence_brier", "capture_confidence_brier_self_check",
              "capture_confidence_source_groups_overclaimed",
              "capture_confidence_adjustments_inconsistent",
              "capture_confidence_failed_gate_high", "capture_probe_ordering_adherence"],
        confidence=confidence).iter_rows(named=True)}
    brier = scalar["capture_confidence_brier"]
    checked = scalar["capture_confidence_brier_self_check"]
    over = scalar["capture_confidence_source_groups_overclaimed"]
    adds = scalar["capture_confidence_adjustments_inconsistent"]
    gated = scalar["capture_confidence_failed_gate_high"]
    order = scalar["capture_probe_ordering_adherence"]
    return {
        "probe_by_template": _rows(compute_breakdown(con, "capture_probe_by_template",
                                                     confidence=confidence)),
        "confidence_reliability": _rows(compute_breakdown(
            con, "capture_confidence_reliability", {"bins": RELIABILITY_BINS}, confidence)),
        "confidence_brier": {"value": _clean(brier["value"]),
                             "sample_size": brier["denominator"]},
        "confidence_brier_self_check": {"value": _clean(checked["value"]),
                                        "sample_size": checked["denominator"]},
        "confidence_source_groups_overclaimed": {
            "value": _clean(over["value"]), "sample_size": over["denominator"],
            "numerator": None if over["numerator"] is None else int(over["numerator"]),
            "ci_low": over["ci_low"], "ci_high": over["ci_high"], "confidence": confidence},
        "confidence_adjustments_inconsistent": {
            "value": None if adds["numerator"] is None else int(adds["numerator"]),
            "sample_size": adds["denominator"]},
        "confidence_failed_gate_high": {
            "value": None if gated["numerator"] is None else int(gated["numerator"]),
            "sample_size": gated["denominator"]},
        "probe_ordering_adherence": {
            "value": _clean(order["value"]), "sample_size": order["denominator"],
            "numerator": None if order["numerator"] is None else int(order["numerator"]),
            "ci_low": order["ci_low"], "ci_high": order["ci_high"], "confidence": confidence},
    }
