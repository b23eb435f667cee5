"""Everything a report is rendered from: the run data, its suite and its baseline diff."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rcaeval.errors import InputError
from rcaeval.registry import BaselineSpec
from rcaeval.report._data import RunData, load_run
from rcaeval.report._diff import BaselineDiff, diff_run
from rcaeval.report._suite import SuiteInfo, find_baseline, suite_info
from rcaeval.store import Store


class _Auto:
    def __repr__(self) -> str:
        return "AUTO"


AUTO: Any = _Auto()
"""Sentinel: look the baseline up in the registry."""


@dataclass(frozen=True)
class ReportContext:
    data: RunData
    suite: SuiteInfo
    baseline: BaselineSpec | None
    baseline_note: str
    """One line on the comparison when there is no diff (no suite, no baseline, ...)."""
    diff: BaselineDiff | None

    def diff_row(self, case_id: str) -> dict[str, Any] | None:
        if self.diff is None:
            return None
        rows = self.diff.frame.filter(self.diff.frame["case_id"] == case_id).to_dicts()
        return rows[0] if rows else None


def build_context(
    store: Store,
    run_id: str,
    registry_root: str | Path | None = None,
    *,
    baseline: BaselineSpec | None | Any = AUTO,
    score_tolerance: float = 0.0,
) -> ReportContext:
    """Load run ``run_id`` and compare it with ``baseline`` (default: its suite's baseline in
    the registry; ``None``: no comparison)."""
    data = load_run(store, run_id)
    suite = suite_info(data.run, registry_root)
    note = ""
    if suite.suite_id is None:
        baseline, note = None, "not compared: the run records no suite"
    elif baseline is AUTO:
        try:
            baseline = find_baseline(registry_root, suite.suite_id)
        except InputError as exc:
            baseline, note = None, f"not compared: baseline file unreadable ({exc})"
        if baseline is None and not note:
            note = f"not compared: suite {suite.suite_id} has no baseline"
    elif baseline is None:
        note = "not compared (no baseline given)"
    if baseline is not None and baseline.suite_id != suite.suite_id:
        baseline, note = None, f"not compared: baseline is for suite {baseline.suite_id}"
    diff = None
    if baseline is not None:
        diff = diff_run(data, suite, baseline, score_tolerance=score_tolerance)
    return ReportContext(data, suite, baseline, note, diff)
