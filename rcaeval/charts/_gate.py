"""The release gate page's own charts: the gate's rates with their Wilson intervals against
the thresholds, and the measured captures per case type (docs/notebooks.md)."""

from __future__ import annotations

from typing import Any

import polars as pl

from rcaeval.charts._altair import count_axis
from rcaeval.charts._palette import BASELINE_COLOR, RUN_COLOR, verdict_scale


def gate_rates_chart(rows: pl.DataFrame, *,
                     title: str = "Rates with intervals; tick = threshold") -> Any | None:
    """The rate metrics of a gate (rows of :meth:`rcaeval.release.GateResult.as_dict`: those
    with an interval): the Wilson interval as a rule, the value as a point coloured by the
    gate's pass/fail, the threshold as a tick. ``None`` when no row is a rate."""
    import altair as alt

    rates = rows.filter(pl.col("ci_low").is_not_null()).with_columns(
        pl.col("value").cast(pl.Float64),
        pl.col("threshold").str.extract(r"([0-9.]+)").cast(pl.Float64).alias("limit"),
        pl.when(pl.col("passed")).then(pl.lit("pass")).otherwise(pl.lit("fail")).alias("result"))
    if not rates.height:
        return None
    base = alt.Chart(rates).encode(y=alt.Y("metric:N", title=None))
    return (
        base.mark_rule(strokeWidth=2, color=BASELINE_COLOR).encode(
            x=alt.X("ci_low:Q", title="rate (Wilson interval)", scale=alt.Scale(domain=[0, 1])),
            x2="ci_high:Q")
        + base.mark_point(filled=True, size=60).encode(
            x="value:Q", color=alt.Color("result:N", title="gate",
                                         scale=alt.Scale(**verdict_scale(["pass", "fail"]))),
            tooltip=["metric", alt.Tooltip("value:Q", format=".3f"),
                     alt.Tooltip("ci_low:Q", format=".3f"), alt.Tooltip("ci_high:Q", format=".3f"),
                     "sample_size", "threshold"])
        + base.mark_tick(color="#000000", thickness=2, size=16).encode(x="limit:Q")
    ).properties(title=title, width=420)


def captures_chart(by_type: pl.DataFrame, *, title: str = "Captures by case type") -> Any:
    """Bars: ``captures`` per ``case_type`` (the gate's measured population)."""
    import altair as alt

    return alt.Chart(by_type).mark_bar(color=RUN_COLOR).encode(
        x=alt.X("case_type:N", title="case type"),
        y=alt.Y("captures:Q", axis=count_axis("captures")),
        tooltip=["case_type", "captures"]).properties(title=title, width=320, height=200)
