"""The release-gate trend: each gate metric over the stored release windows, with its
threshold (data from ``queries/charts/release_trend.sql``; the store's ``release_windows``)."""

from __future__ import annotations

from typing import Any

import polars as pl

from rcaeval._paths import read_query
from rcaeval.charts._altair import count_axis
from rcaeval.charts._palette import BASELINE_COLOR, RUN_COLOR, verdict_scale
from rcaeval.store import Connectable

_KIND_AXES = (("rate", "rate"), ("count", "count"), ("value", "value"), ("bool", "true = 1"))
"""Metric kinds in drawing order, with their axis titles (any other kind is drawn after them,
titled by its name)."""


def release_trend(con: Connectable, current: dict[str, Any] | None = None, *,
                  stage: str | None = None, include_synthetic: bool = False,
                  allow_synthetic: bool = False) -> pl.DataFrame:
    """One row per (stored window, gate metric) of one stage, up to and including the window
    of ``current`` (a loaded ``release_metrics/1`` document: it always counts for its own
    window, stored or not): ``window``, ``current``, ``metric``, ``value``, ``ci_low``,
    ``ci_high``, ``sample_size``, ``threshold``, ``threshold_value``, ``passed``,
    ``passed_strict``, ``gate_passed``. ``stage`` defaults to the current artifact's
    (``all`` for every stage). Synthetic windows count only with ``include_synthetic``;
    ``allow_synthetic`` lets a synthetic ``current`` through (the gate's test-only rule).

    ``con`` is a :class:`rcaeval.store.Store` (or its DuckDB connection) whose schema has the
    release windows (migration 0012)."""
    from rcaeval.release import ALL_STAGES, GATE_METRICS, window_frames

    window, metrics = window_frames(current, allow_synthetic=allow_synthetic)
    if current is not None:
        stage = stage or window["stage"][0]
    db = getattr(con, "con", con)
    db.register("current_window", window)
    db.register("current_window_metrics", metrics)
    try:
        return db.sql(read_query("charts/release_trend.sql"), params={
            "stage": stage or ALL_STAGES, "include_synthetic": include_synthetic,
            "metrics": list(GATE_METRICS)}).pl()
    finally:
        db.unregister("current_window")
        db.unregister("current_window_metrics")


def release_trend_left_out(con: Connectable, current: dict[str, Any], *, stage: str | None = None,
                           include_synthetic: bool = False,
                           allow_synthetic: bool = False) -> pl.DataFrame:
    """The stored windows of the stage that :func:`release_trend` does not draw, one row each
    (``window_start``, ``window_end``, ``window``, ``reason``: later than the reported window,
    or synthetic), so a report can say what it left out."""
    from rcaeval.release import ALL_STAGES, window_frames

    window, _ = window_frames(current, allow_synthetic=allow_synthetic)
    db = getattr(con, "con", con)
    db.register("current_window", window)
    try:
        return db.sql(read_query("charts/release_trend_left_out.sql"), params={
            "stage": stage or window["stage"][0] or ALL_STAGES,
            "include_synthetic": include_synthetic}).pl()
    finally:
        db.unregister("current_window")


def left_out_note(left_out: pl.DataFrame) -> str:
    """One sentence naming the windows not drawn ('' when none)."""
    if not left_out.height:
        return ""
    parts = [f"{r['window']} ({r['reason']})" for r in left_out.iter_rows(named=True)]
    return f"{left_out.height} stored window(s) not drawn: " + "; ".join(parts)


def trend_chart(trend: pl.DataFrame, *, title: str = "Gate metrics over release windows",
                columns: int = 3) -> Any:
    """Small multiples, one per metric (gate order), grouped by kind (rates, counts, values,
    true/false; counts and booleans on whole-number axes): the value in each window (a line,
    points coloured pass/fail on the point-estimate threshold, the reported window ringed),
    the rate's Wilson interval as a vertical rule, and the threshold as a dashed line.
    ``trend`` is :func:`release_trend`'s frame."""
    import altair as alt

    windows = (trend.select("window", "window_start", "window_end").unique()
               .sort("window_start", "window_end")["window"].to_list())
    data = trend.select(
        "window", "metric", pl.col("kind").fill_null("value"),
        *(pl.col(c).cast(pl.Float64).round(4) for c in ("value", "ci_low", "ci_high")),
        "sample_size", "threshold", "threshold_value", "current",
        pl.when(pl.col("passed")).then(pl.lit("pass")).otherwise(pl.lit("fail"))
        .alias("result"))
    x = alt.X("window:O", sort=windows, title="release window",
              axis=alt.Axis(labelAngle=-30, labelLimit=160))
    panels = []
    titles = dict(_KIND_AXES)
    kinds = [*titles, *sorted(set(data["kind"].to_list()) - set(titles))]
    for kind in kinds:
        y_title = titles.get(kind, kind)
        part = data.filter(pl.col("kind") == kind)
        if not part.height:
            continue
        order = list(dict.fromkeys(part["metric"].to_list()))
        axis = alt.Axis(title=y_title)
        if kind in ("count", "bool"):  # whole numbers only, also on a 0..1 scale
            top = max(part["value"].max() or 0, part["threshold_value"].max() or 0)
            axis = (count_axis(y_title) if top > 20 else
                    alt.Axis(title=y_title, values=list(range(int(top) + 2)), format="d"))
        y = alt.Y("value:Q", axis=axis, scale=alt.Scale(zero=kind != "rate"))
        base = alt.Chart().encode(x=x)
        layers = [
            base.mark_rule(color=BASELINE_COLOR, strokeWidth=2).encode(
                y=alt.Y("ci_low:Q", axis=axis), y2="ci_high:Q"),
            base.mark_line(color=RUN_COLOR).encode(y=y),
            base.mark_point(filled=True, size=70).encode(
                y=y,
                color=alt.Color("result:N", title="threshold",
                                scale=alt.Scale(**verdict_scale(["pass", "fail"]))),
                stroke=alt.condition("datum.current", alt.value("#000000"), alt.value(None)),
                strokeWidth=alt.condition("datum.current", alt.value(2), alt.value(0)),
                tooltip=["window", "metric", *(alt.Tooltip(f"{c}:Q", format=".4~g")
                                               for c in ("value", "ci_low", "ci_high")),
                         "sample_size", "threshold", "result"]),
            alt.Chart().mark_rule(color="#000000", strokeDash=[5, 4]).encode(
                y=alt.Y("mean(threshold_value):Q", axis=axis)),
        ]
        panels.append(
            alt.layer(*layers, data=part).properties(width=220, height=130)
            .facet(facet=alt.Facet("metric:N", sort=order, title=None), columns=columns)
            .resolve_scale(y="independent"))
    return alt.vconcat(*panels).properties(title=title)
