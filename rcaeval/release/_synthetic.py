"""Synthetic metrics artifacts (``release_gate.synthetic.*.json``): hand-set metric values with
well-formed provenance, marked ``synthetic: true``, for testing the gate's threshold and
schema mechanics only. The gate refuses them unless ``--allow-synthetic`` (test-only)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rcaeval._ids import child_path
from rcaeval.metrics import get_metric
from rcaeval.release._metrics import METRICS_FORMAT, measurement_job, seal, write_document
from rcaeval.release._models import CASE_TYPES
from rcaeval.release._thresholds import GATE
from rcaeval.stats import DEFAULT_CONFIDENCE, wilson_interval

PASSING: dict[str, tuple[Any, int]] = {
    "known_top1": (0.98, 500), "groundless_high_confidence": (0, 300),
    "false_novel_rate": (0.004, 1000), "evidence_link_precision": (0.99, 2000),
    "abstention_rate": (0.96, 400), "novel_mechanism_recall_at_3": (0.85, 200),
    "destructive_tool_executions": (0, 5000), "inadmissible_knowledge_activations": (0, 3000),
    "activation_p95_seconds": (4.2, 3000), "typedb_outage_runtime_activation_success": (True, 5),
}
"""Comfortably passing (value, sample size) per gate metric."""

FAILING: dict[str, tuple[Any, int]] = {
    "known_top1": (0.90, 500), "groundless_high_confidence": (3, 300),
    "false_novel_rate": (0.05, 1000), "evidence_link_precision": (0.80, 2000),
    "abstention_rate": (0.70, 400), "novel_mechanism_recall_at_3": (0.50, 200),
    "destructive_tool_executions": (1, 5000), "inadmissible_knowledge_activations": (2, 3000),
    "activation_p95_seconds": (45.0, 3000), "typedb_outage_runtime_activation_success": (False, 5),
}
"""A value that misses each threshold."""

BORDERLINE: dict[str, tuple[Any, int]] = {
    **PASSING, "known_top1": (1.0, 20), "false_novel_rate": (0.0, 30),
    "abstention_rate": (0.95, 20), "novel_mechanism_recall_at_3": (0.8, 10),
}
"""Point estimates pass, but the windows are small: strict mode fails the rates."""


def _entry(name: str, value: Any, n: int) -> dict[str, Any]:
    m = get_metric(next(t.query for t in GATE if t.metric == name))
    entry: dict[str, Any] = {"kind": m.kind, "value": value, "sample_size": n}
    if m.kind == "rate":
        k = round(value * n)
        lo, hi = wilson_interval(k, n)
        entry.update(numerator=k, denominator=n, value=k / n, ci_low=lo, ci_high=hi,
                     confidence=DEFAULT_CONFIDENCE, interval="wilson")
    elif m.kind == "count":
        entry["numerator"] = value
    entry["query"] = m.describe()["file"]
    return entry


def synthetic_artifact(values: dict[str, tuple[Any, int]] | None = None,
                       name: str = "synthetic") -> dict[str, Any]:
    """A sealed synthetic artifact with ``values`` (default :data:`PASSING`; missing metrics
    taken from it)."""
    vals = {**PASSING, **(values or {})}
    n = 5000
    doc: dict[str, Any] = {
        "format": METRICS_FORMAT,
        "synthetic": True,
        "metrics": {t.metric: _entry(t.metric, *vals[t.metric]) for t in GATE},
        "provenance": {
            "window": {"start": "2026-11-01T00:00:00Z", "end": "2026-11-15T00:00:00Z",
                       "spec": "2026-11-01..2026-11-14", "end_exclusive": True},
            "stage": "staging",
            "population": {"captures": {"read": n, "invalid": 0, "invalid_in_window": 0,
                                        "in_window": n, "outside_window": 0},
                           "by_case_type": {ct: n // len(CASE_TYPES) for ct in CASE_TYPES},
                           "by_stage": {"staging": n}, "outage_tests": {"typedb": 5},
                           "reviews": 0, "invalid_reviews": 0},
            "inputs": {"captures": [{"path": f"synthetic:{name}", "sha256": None, "rows": n}],
                       "reviews": []},
            "problems": {"count": 0, "first": []},
            "measurement_job": measurement_job(),
            "computed_at": "2026-11-15T00:00:00Z",
            "output": {"path": f"release_gate.synthetic.{name}.json", "sha256": None},
            "note": "SYNTHETIC: hand-set values for testing the gate's mechanics only",
        },
    }
    return seal(doc)


def write_synthetic_files(out_dir: Path) -> list[Path]:
    """``release_gate.synthetic.{pass,fail,borderline}.json`` in ``out_dir``."""
    out: list[Path] = []
    for name, vals in (("pass", PASSING), ("fail", FAILING), ("borderline", BORDERLINE)):
        path = child_path(out_dir, f"release_gate.synthetic.{name}.json", what="out")
        doc = synthetic_artifact(vals, name)
        doc["provenance"]["output"]["path"] = path.name
        write_document(seal(doc), path)
        out.append(path)
    return out
