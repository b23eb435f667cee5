"""The no-information baseline: the accuracy a system reaches without looking at the incident,
by always answering the most frequent label (family, component, reason, ...)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class NoInfoBaseline:
    """Always answering ``label`` is right on ``hits`` of ``n`` cases (``rate``)."""

    label: str | None
    hits: int
    n: int

    @property
    def rate(self) -> float | None:
        return self.hits / self.n if self.n else None


def no_information_baseline(labels: Iterable[str | None]) -> NoInfoBaseline:
    """Accuracy of always predicting the most frequent of ``labels`` (the ground truth of every
    case, one label per case). ``None`` labels are cases without that label and are skipped.
    Ties go to the label that sorts first, so the answer does not depend on input order. An
    empty input has no baseline: ``NoInfoBaseline(None, 0, 0)`` with ``rate`` None."""
    counts = Counter(x for x in labels if x is not None)
    n = sum(counts.values())
    if not n:
        return NoInfoBaseline(label=None, hits=0, n=0)
    label, hits = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return NoInfoBaseline(label=label, hits=hits, n=n)
