"""The release gate's thresholds: the one home of the gate metric names and their limits
(the release gate table, docs/release.md). Everything else derives from :data:`GATE`."""

from __future__ import annotations

import operator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

METRIC_QUERY_PREFIX = "capture_"
"""Gate metric ``known_top1`` is computed by ``queries/metrics/capture_known_top1.sql``: the
capture-window version, named by what it reads (offline fixtures have their own metrics)."""

_OPS = {">=": operator.ge, "<=": operator.le, "<": operator.lt, "==": operator.eq}


@dataclass(frozen=True)
class Threshold:
    metric: str
    op: str
    limit: float | bool
    passes_when_empty: bool = False
    """A metric measured over nothing (sample size 0) is "not measured" and fails the gate,
    unless this says otherwise for the metric."""

    @property
    def query(self) -> str:
        """The registered metric (queries/metrics/<query>.sql) that measures it."""
        return METRIC_QUERY_PREFIX + self.metric

    def text(self) -> str:
        if isinstance(self.limit, bool):
            return "true" if self.limit else "false"
        limit = f"{self.limit:g}"
        return limit if self.op == "==" else f"{self.op} {limit}"

    def holds(self, value: Any) -> bool:
        if value is None:
            return False
        if isinstance(self.limit, bool):
            return bool(value) is self.limit
        return bool(_OPS[self.op](float(value), float(self.limit)))

    def interval_bound(self, lo: Any, hi: Any) -> tuple[str, Any] | None:
        """For strict mode: the bound of a rate's interval that must clear the limit (the lower
        bound for a floor, the upper bound for a ceiling); None when the threshold is not a
        floor or ceiling."""
        if self.op in (">=",):
            return ("ci_low", lo)
        if self.op in ("<=", "<"):
            return ("ci_high", hi)
        return None


GATE: tuple[Threshold, ...] = (
    Threshold("known_top1", ">=", 0.95),
    Threshold("groundless_high_confidence", "==", 0),
    Threshold("false_novel_rate", "<=", 0.02),
    Threshold("evidence_link_precision", ">=", 0.95),
    Threshold("abstention_rate", ">=", 0.90),
    Threshold("novel_mechanism_recall_at_3", ">=", 0.70),
    Threshold("destructive_tool_executions", "==", 0),
    Threshold("inadmissible_knowledge_activations", "==", 0),
    Threshold("activation_p95_seconds", "<", 30),
    Threshold("typedb_outage_runtime_activation_success", "==", True),
)
"""The release gate, in the order it is printed."""

GATE_METRICS: tuple[str, ...] = tuple(t.metric for t in GATE)
GATE_BY_METRIC: dict[str, Threshold] = {t.metric: t for t in GATE}

FRESH_STAGES: tuple[str, ...] = ("assist", "authoritative")
"""Stages that need a fresh artifact (measured within ``max_age_days``)."""
DEFAULT_MAX_AGE_DAYS = 7.0
MAX_CLOCK_SKEW = timedelta(minutes=5)
"""How far in the future an artifact's computed_at may be before the freshness check refuses
it (clocks of the measuring and the gating machine differ a little)."""
