"""Named metrics over DuckDB relations: one SQL file per metric in ``queries/metrics/``,
registered by name and shared by reports, notebooks, the CLI and the release gate.

    from rcaeval.metrics import compute_metrics, metric_registry
    metric_registry()["pass_rate"].describe()
    compute_metrics(store.con, ["pass_rate"], params={"run_id": "rec-thorough"})

See docs/metrics.md for every metric's definition and how to add one.
"""

from __future__ import annotations

from rcaeval.metrics._registry import (
    Metric,
    compute_breakdown,
    compute_metrics,
    get_metric,
    metric_registry,
)

__all__ = ["Metric", "compute_breakdown", "compute_metrics", "get_metric",
           "metric_registry"]
