"""The release-gate trend: each gate metric over the stored release windows, with its
threshold (data from ``queries/charts/release_trend.sql``; the store's ``release_windows``)."""

from __future__ import annotations

from typing import Any

import polars as pl

from rcaeval._paths import read_query
from rcaeval.charts._altair import SERIES_COLORS, VERDICT_COLORS


def release_trend(con: Any, current: dict[str, Any] | None = None, *,
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
    from rcaeval.release import GATE_METRICS
    from rcaeval.release._history import ALL_STAGES, window_frames

    if current is not None:
        window, metrics = window_frames(current, allow_synthetic=allow_synthetic)
        stage = stage or window["stage"][0]
    else:
        from rcaeval.release._history import _METRIC_SCHEMA, _WINDOW_SCHEMA

        window, metrics = pl.DataFrame(schema=_WINDOW_SCHEMA), pl.DataFrame(schema=_METRIC_SCHEMA)
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


def trend_chart(trend: pl.DataFrame, *, title: str = "Gate metrics over release windows",
                columns: int = 2) -> Any:
    """Small multiples, one per metric (gate order): the value in each window (a line, points
    coloured pass/fail on the point-estimate threshold, the reported window ringed), the rate's
    Wilson interval as a vertical rule, and the threshold as a dashed line. ``trend`` is
    :func:`release_trend`'s frame."""
    import altair as alt

    order = list(dict.fromkeys(trend["metric"].to_list()))
    windows = (trend.select("window", "window_start").unique()
               .sort("window_start")["window"].to_list())
    data = trend.select(
        "window", "metric", "value", "ci_low", "ci_high", "sample_size", "threshold",
        "threshold_value", "current",
        pl.when(pl.col("passed")).then(pl.lit("pass")).otherwise(pl.lit("fail"))
        .alias("result"))
    x = alt.X("window:O", sort=windows, title="release window",
              axis=alt.Axis(labelAngle=-30, labelLimit=160))
    y_title = "value"
    base = alt.Chart().encode(x=x)
    line = base.mark_line(color=SERIES_COLORS[1]).encode(
        y=alt.Y("value:Q", title=y_title, scale=alt.Scale(zero=False)))
    interval = base.mark_rule(color=SERIES_COLORS[0], strokeWidth=2).encode(
        y="ci_low:Q", y2="ci_high:Q")
    points = base.mark_point(filled=True, size=70).encode(
        y="value:Q",
        color=alt.Color("result:N", title="threshold",
                        scale=alt.Scale(domain=["pass", "fail"],
                                        range=[VERDICT_COLORS[0], VERDICT_COLORS[2]])),
        stroke=alt.condition("datum.current", alt.value("black"), alt.value(None)),
        strokeWidth=alt.condition("datum.current", alt.value(2), alt.value(0)),
        tooltip=["window", "metric", "value", "ci_low", "ci_high", "sample_size", "threshold",
                 "result"])
    limit = alt.Chart().mark_rule(color="black", strokeDash=[5, 4]).encode(
        y="mean(threshold_value):Q")
    return (
        alt.layer(interval, line, points, limit, data=data)
        .properties(width=300, height=150)
        .facet(facet=alt.Facet("metric:N", sort=order, title=None), columns=columns)
        .resolve_scale(y="independent")
        .properties(title=title)
    )
