"""A run compared with its suite's baseline: one row per case, a class per row, and the
regression gate (docs/baselines.md)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import polars as pl

from rcaeval._vocab import UNFINISHED_BY_STATUS
from rcaeval.errors import GateFailed, InputError
from rcaeval.registry import BaselineSpec
from rcaeval.report._data import RunData, load_run
from rcaeval.report._suite import SuiteInfo, load_baseline, suite_info
from rcaeval.report._trajectory import compare_runs
from rcaeval.store import Store

VERDICT_RANK: dict[str, int] = {"pass": 2, "fail": 1, "invalid": 0}
"""Verdicts from best to worst. A case in the run without a verdict (errored, timed out,
never judged) ranks as ``invalid``: it is not comparable."""
CLASSES: tuple[str, ...] = ("regressed", "score_drop", "missing", "unfinished", "new", "improved",
                            "unchanged")
"""Diff classes, most severe first (the order changed cases are listed in). ``unfinished``: a
baseline case the run did not finish (interrupted or pending): not compared, never gates,
outside the eligible pass counts; resuming the run compares it. Count lines name it only
when there is one."""

DIFF_SCHEMA: dict[str, Any] = {
    "case_id": pl.String, "case_type": pl.String, "suite_status": pl.String,
    "eligible": pl.Boolean, "in_baseline": pl.Boolean, "in_run": pl.Boolean,
    "run_status": pl.String,
    "verdict_before": pl.String, "verdict_after": pl.String,
    "score_before": pl.Float64, "score_after": pl.Float64, "score_delta": pl.Float64,
    "subtype_before": pl.String, "subtype_after": pl.String,
    "rules_changed": pl.Boolean, "class": pl.String, "gating": pl.Boolean,
}


@dataclass(frozen=True)
class BaselineDiff:
    """A run against its suite's baseline. ``frame`` has one row per case of the baseline or
    the run (columns: :data:`DIFF_SCHEMA`), ordered by ``case_id``."""

    run_id: str
    suite_id: str
    suite_version: str | None
    baseline: BaselineSpec
    frame: pl.DataFrame
    score_tolerance: float = 0.0
    allow_missing: bool = False
    warnings: tuple[str, ...] = field(default_factory=tuple)
    trajectory: dict[str, Any] | None = None
    """The run against the baseline's run on their shared cases' trajectories
    (rcaeval.report._trajectory.compare_runs), when the baseline's run is in the store."""

    @property
    def regressed(self) -> pl.DataFrame:
        """Eligible cases whose verdict got worse (pass→fail, pass→invalid, fail→invalid)."""
        return self.frame.filter(pl.col("eligible") & (pl.col("class") == "regressed"))

    @property
    def gating(self) -> pl.DataFrame:
        """Eligible cases that passed in the baseline and do not pass now."""
        return self.frame.filter(pl.col("gating"))

    @property
    def changed(self) -> pl.DataFrame:
        """Every case whose class is not ``unchanged``, most severe class first."""
        rank = {c: i for i, c in enumerate(CLASSES)}
        return (
            self.frame.filter(pl.col("class") != "unchanged")
            .with_columns(pl.col("class").replace_strict(rank, return_dtype=pl.Int32)
                          .alias("_rank"))
            .sort(["_rank", "case_id"]).drop("_rank")
        )

    @property
    def counts(self) -> dict[str, int]:
        """Cases per class (every class present, in :data:`CLASSES` order)."""
        found = dict(self.frame.group_by("class").len().iter_rows())
        return {c: int(found.get(c, 0)) for c in CLASSES}

    def _pass_scope(self) -> pl.Expr:
        scope = pl.col("eligible") & pl.col("in_baseline") & (pl.col("class") != "unfinished")
        return scope & pl.col("in_run") if self.allow_missing else scope

    @property
    def pass_before(self) -> int:
        """Eligible baseline cases that passed in the baseline (missing ones excluded with
        ``allow_missing``)."""
        return self.frame.filter(self._pass_scope() & (pl.col("verdict_before") == "pass")).height

    @property
    def pass_after(self) -> int:
        """The same eligible baseline cases that pass in this run."""
        return self.frame.filter(self._pass_scope() & (pl.col("verdict_after") == "pass")).height

    @property
    def gate_reasons(self) -> list[str]:
        """Why the gate fails (empty: it passes): gating cases first, then a pass-count drop
        that the gating cases do not account for (baseline passes that were not run)."""
        reasons: list[str] = []
        gating = self.gating
        if gating.height:
            reasons.append(f"{gating.height} eligible case(s) passed in the baseline and do not "
                           "pass now: " + _some(f"{r['case_id']} (pass→{display_after(r)})"
                                                for r in gating.iter_rows(named=True)))
        drop = self.pass_before - self.pass_after
        if drop > gating.height:
            unrun = self.frame.filter(self._pass_scope() & ~pl.col("in_run")
                                      & (pl.col("verdict_before") == "pass"))["case_id"]
            extra = f" (not run: {_some(unrun)})" if unrun.len() else ""
            reasons.append(f"eligible pass count dropped from {self.pass_before} to "
                           f"{self.pass_after}{extra}")
        return reasons

    @property
    def gate_failed(self) -> bool:
        return bool(self.gate_reasons)

    def check_gate(self) -> None:
        """Raise :class:`GateFailed` (exit code 4) when the run regressed."""
        if self.gate_failed:
            raise GateFailed(f"regression against baseline {self.baseline.run_id} of suite "
                             f"{self.suite_id}: " + "; ".join(self.gate_reasons))


def _some(items: Iterable[str], limit: int = 5) -> str:
    """The first ``limit`` items comma-separated, then ``and N more``."""
    seq = list(items)
    head = ", ".join(seq[:limit])
    return head if len(seq) <= limit else f"{head} and {len(seq) - limit} more"


def display_after(row: dict[str, Any]) -> str:
    """The verdict after, or the case run status when there is none (``interrupted`` /
    ``pending`` for a case the run did not finish), or ``not run``."""
    if row.get("verdict_after"):
        return str(row["verdict_after"])
    if not row.get("in_run"):
        return "not run"
    status = row.get("run_status")
    return UNFINISHED_BY_STATUS.get(status or "", status or "no verdict")


def _baseline_frame(baseline: BaselineSpec) -> pl.DataFrame:
    rows = [
        {"case_id": c.case_id, "verdict_before": c.verdict, "score_before": float(c.score),
         "subtype_before": c.subtype, "baseline_eligible": c.baseline_eligible,
         "rules_hash_before": (c.model_extra or {}).get("rules_hash"), "in_baseline": True}
        for c in baseline.cases
    ]
    schema = {"case_id": pl.String, "verdict_before": pl.String, "score_before": pl.Float64,
              "subtype_before": pl.String, "baseline_eligible": pl.Boolean,
              "rules_hash_before": pl.String, "in_baseline": pl.Boolean}
    return pl.DataFrame(rows, schema=schema)


def _run_frame(data: RunData) -> pl.DataFrame:
    return data.cases.select(
        pl.col("case_id").cast(pl.String),
        pl.col("case_type").cast(pl.String),
        pl.col("run_status").cast(pl.String),
        pl.col("verdict").cast(pl.String).alias("verdict_after"),
        pl.col("score").cast(pl.Float64).alias("score_after"),
        pl.col("subtype").cast(pl.String).alias("subtype_after"),
        pl.col("rules_hash").cast(pl.String).alias("rules_hash_after"),
        pl.lit(True).alias("in_run"),
    )


def _suite_frame(suite: SuiteInfo) -> pl.DataFrame:
    rows = [{"case_id": c.id, "suite_status": c.status, "suite_eligible": c.baseline_eligible}
            for c in (suite.spec.cases if suite.spec is not None else [])]
    schema = {"case_id": pl.String, "suite_status": pl.String, "suite_eligible": pl.Boolean}
    return pl.DataFrame(rows, schema=schema)


def build_diff_frame(data: RunData, suite: SuiteInfo, baseline: BaselineSpec,
                     score_tolerance: float = 0.0) -> pl.DataFrame:
    """The per-case diff rows (see :data:`DIFF_SCHEMA`)."""
    joined = (
        _baseline_frame(baseline)
        .join(_run_frame(data), on="case_id", how="full", coalesce=True)
        .join(_suite_frame(suite), on="case_id", how="left")
        .with_columns(pl.col("in_baseline").fill_null(False), pl.col("in_run").fill_null(False))
    )
    rank_before = pl.col("verdict_before").replace_strict(VERDICT_RANK, default=None,
                                                          return_dtype=pl.Int8)
    rank_after = pl.col("verdict_after").replace_strict(
        VERDICT_RANK, default=0, return_dtype=pl.Int8).fill_null(0)
    delta = pl.col("score_after") - pl.col("score_before")
    klass = (
        pl.when(~pl.col("in_baseline")).then(pl.lit("new"))
        .when(~pl.col("in_run")).then(pl.lit("missing"))
        .when(pl.col("verdict_after").is_null()
              & pl.col("run_status").is_in(list(UNFINISHED_BY_STATUS))).then(pl.lit("unfinished"))
        .when(rank_after < rank_before).then(pl.lit("regressed"))
        .when(rank_after > rank_before).then(pl.lit("improved"))
        .when(delta < -score_tolerance).then(pl.lit("score_drop"))
        .otherwise(pl.lit("unchanged"))
    )
    eligible = (
        pl.col("suite_eligible").fill_null(True)
        & pl.col("baseline_eligible").fill_null(True)
        & (pl.col("suite_status").fill_null("active") != "quarantined")
    )
    rules_changed = (pl.col("rules_hash_before").is_not_null()
                     & pl.col("rules_hash_after").is_not_null()
                     & (pl.col("rules_hash_before") != pl.col("rules_hash_after")))
    out = joined.with_columns(
        eligible.alias("eligible"),
        delta.alias("score_delta"),
        klass.alias("class"),
        rules_changed.alias("rules_changed"),
    ).with_columns(
        (pl.col("eligible") & (pl.col("class") == "regressed")
         & (pl.col("verdict_before") == "pass")).alias("gating"),
    )
    return out.select([pl.col(n).cast(t) for n, t in DIFF_SCHEMA.items()]).sort("case_id")


def _warnings(data: RunData, suite: SuiteInfo, baseline: BaselineSpec,
              frame: pl.DataFrame) -> tuple[str, ...]:
    out: list[str] = []
    run_version = data.run.get("suite_version")
    if run_version and run_version != baseline.suite_version:
        out.append(f"suite version differs: the run used {run_version}, the baseline "
                   f"{baseline.suite_version}; the comparison may not be like for like")
    if suite.spec is not None and suite.spec.version != baseline.suite_version:
        out.append(f"the registry's suite is at version {suite.spec.version} but the baseline "
                   f"is for {baseline.suite_version}; consider promoting a new baseline")
    judge_version = data.run.get("judge_version")
    if judge_version and judge_version != baseline.judge_version:
        out.append(f"judge version differs: the run was judged by {judge_version}, the "
                   f"baseline by {baseline.judge_version}")
    changed = frame.filter(pl.col("rules_changed"))["case_id"].to_list()
    if changed:
        out.append(f"judge rules changed since the baseline for {len(changed)} case(s): "
                   + ", ".join(changed))
    return tuple(out)


def diff_run(data: RunData, suite: SuiteInfo, baseline: BaselineSpec, *,
             score_tolerance: float = 0.0, allow_missing: bool = False) -> BaselineDiff:
    """Compare already-loaded run data with ``baseline``."""
    if not math.isfinite(score_tolerance) or score_tolerance < 0:
        # a NaN tolerance would hide every score drop (delta < -NaN is false)
        raise InputError(f"score tolerance must be a finite number >= 0, not {score_tolerance}")
    frame = build_diff_frame(data, suite, baseline, score_tolerance)
    return BaselineDiff(
        run_id=data.run_id,
        suite_id=baseline.suite_id,
        suite_version=data.run.get("suite_version"),
        baseline=baseline,
        frame=frame,
        score_tolerance=score_tolerance,
        allow_missing=allow_missing,
        warnings=_warnings(data, suite, baseline, frame),
    )


def diff_against_baseline(
    store: Store,
    run_id: str,
    registry_root: str | Path | None = None,
    *,
    score_tolerance: float = 0.0,
    allow_missing: bool = False,
    baseline: BaselineSpec | None = None,
) -> BaselineDiff:
    """Compare run ``run_id`` with the baseline of its suite (``<registry>/baselines/
    <suite_id>.yaml``, or ``baseline`` when given). :class:`InputError` when the run has no
    suite or the baseline is for another suite; :class:`NotFoundError` when there is no run
    or no baseline."""
    data = load_run(store, run_id)
    suite_id = data.run.get("suite_id")
    if not suite_id:
        raise InputError(f"run {run_id!r} records no suite_id (judged from an audit dir?), so "
                         "there is no baseline to compare it with")
    if baseline is None:
        baseline = load_baseline(registry_root, suite_id)
    elif baseline.suite_id != suite_id:
        raise InputError(f"baseline is for suite {baseline.suite_id!r}, run {run_id!r} for "
                         f"suite {suite_id!r}")
    result = diff_run(data, suite_info(data.run, registry_root), baseline,
                      score_tolerance=score_tolerance, allow_missing=allow_missing)
    return replace(result, trajectory=compare_runs(store, baseline.run_id, run_id))
