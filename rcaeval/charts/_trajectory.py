"""Trajectory frames and charts (docs/results.md, "Trajectory and efficiency"): per-case
measures from ``eval_trajectory`` and their summary per agent, as the explore notebook shows."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import polars as pl

from rcaeval.charts._altair import series_scale
from rcaeval.charts._data import _frame
from rcaeval.store import Connectable

TRAJECTORY_MEASURES = {"steps": "steps", "evidence_step": "steps to evidence",
                       "failed_calls": "failed calls", "repeated_calls": "repeated calls"}
"""The measures :func:`trajectory_chart` draws (column: label)."""


def case_trajectory(con: Connectable, run_ids: str | Iterable[str]) -> pl.DataFrame:
    """One row per judged (run, case) of ``run_ids``: agent, case type, verdict, steps,
    failed and repeated calls, the step and seconds to the first cited evidence, tokens, cost,
    wall time and efficiency status (queries/charts/trajectory.sql)."""
    return _frame(con, "trajectory", run_ids)


def trajectory_by(frame: pl.DataFrame, group: str = "agent_name") -> pl.DataFrame:
    """Per ``group`` value: cases, median steps, failed and repeated calls, cases that
    reached cited evidence through a tool call, median step and seconds to it, mean tokens and
    cases over budget."""
    return (frame.group_by(group)
            .agg(pl.len().alias("cases"),
                 pl.col("steps").median().alias("median_steps"),
                 pl.col("failed_calls").sum().alias("failed_calls"),
                 pl.col("repeated_calls").sum().alias("repeated_calls"),
                 pl.col("evidence_step").is_not_null().sum().alias("reached_evidence"),
                 pl.col("evidence_step").median().alias("median_evidence_step"),
                 pl.col("evidence_seconds").median().alias("median_evidence_seconds"),
                 pl.col("total_tokens").mean().round(0).cast(pl.Int64).alias("mean_tokens"),
                 (pl.col("efficiency") == "over_budget").sum().alias("over_budget"))
            .sort(group))


def trajectory_chart(frame: pl.DataFrame, group: str = "agent_name", *,
                     title: str = "Trajectory by agent") -> Any:
    """Horizontal bars: the mean per case of each measure of :data:`TRAJECTORY_MEASURES` per
    ``group`` value (one bar per value inside each measure; a mean, so the few failed and
    repeated calls show); a case that never reached cited evidence counts in ``steps`` but not
    in ``steps to evidence``."""
    import altair as alt

    long = (frame.select(group, *TRAJECTORY_MEASURES)
            .unpivot(index=group, variable_name="measure", value_name="value")
            .drop_nulls("value")
            .group_by(group, "measure").agg(pl.col("value").mean().round(2).alias("mean"),
                                            pl.len().alias("cases"))
            .with_columns(pl.col("measure").replace_strict(TRAJECTORY_MEASURES))
            .sort("measure", group))
    names = sorted(set(long[group].cast(pl.Utf8).to_list()))
    return (alt.Chart(long).mark_bar()
            .encode(y=alt.Y("measure:N", title=None, sort=list(TRAJECTORY_MEASURES.values())),
                    x=alt.X("mean:Q", title="mean per case"),
                    yOffset=alt.YOffset(f"{group}:N"),
                    color=alt.Color(f"{group}:N", title=group.replace("_", " "),
                                    scale=alt.Scale(**series_scale(names, group))),
                    tooltip=["measure", group, "cases", alt.Tooltip("mean:Q", format=".1f")])
            .properties(title=title, width=320))
