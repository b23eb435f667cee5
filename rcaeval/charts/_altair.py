"""Altair charts over the aggregated frames of :mod:`rcaeval.charts` and their static
rendering: SVG by vl-convert (no browser, no network), displayed inline in notebooks."""

from __future__ import annotations

import io
from typing import Any

import polars as pl

from rcaeval.report._data import VERDICTS

VERDICT_COLORS: tuple[str, ...] = ("#4c9a2a", "#d9822b", "#b0413e")
"""Bar colours of :data:`rcaeval.report.VERDICTS` (pass, fail, invalid), in that order."""
SERIES_COLORS: tuple[str, ...] = ("#9aa5b1", "#2f6db5", "#d9822b", "#6b4c9a", "#4c9a2a")


def count_axis(title: str = "cases") -> Any:
    """A quantitative axis for counts: whole-number ticks only (never 0.5 cases)."""
    import altair as alt

    return alt.Axis(title=title, tickMinStep=1, format="d")


def verdict_chart(counts: pl.DataFrame, x: str = "case_type", *,
                  title: str = "Verdicts by case type") -> Any:
    """Stacked bars: cases per ``x`` (a column of ``counts``), coloured by verdict.

    ``counts`` is long form with ``x``, ``verdict`` and ``cases`` columns
    (:func:`rcaeval.charts.verdict_long`, or any frame of that shape)."""
    import altair as alt

    data = counts.group_by(x, "verdict").agg(pl.col("cases").sum()).sort(x, "verdict")
    return (
        alt.Chart(data)
        .mark_bar()
        .encode(
            x=alt.X(f"{x}:N", title=x.replace("_", " ")),
            y=alt.Y("cases:Q", stack="zero", axis=count_axis()),
            color=alt.Color("verdict:N", scale=alt.Scale(domain=list(VERDICTS),
                                                          range=list(VERDICT_COLORS))),
            tooltip=[x, "verdict", "cases"],
        )
        .properties(title=title, width=320, height=220)
    )


def score_chart(scores: pl.DataFrame, series: str = "series", *,
                title: str = "Score per case") -> Any:
    """Bars of ``score`` (0..100) per ``case_id``, one bar per value of ``series`` side by
    side (e.g. this run vs the baseline, or one per agent)."""
    import altair as alt

    data = scores.select("case_id", series, pl.col("score").cast(pl.Float64)) \
        .drop_nulls("score").sort("case_id", series)
    names = sorted(set(data[series].to_list()))
    return (
        alt.Chart(data)
        .mark_bar()
        .encode(
            y=alt.Y("case_id:N", title=None),
            x=alt.X("score:Q", title="score", scale=alt.Scale(domain=[0, 100])),
            yOffset=alt.YOffset(f"{series}:N"),
            color=alt.Color(f"{series}:N", title=series.replace("_", " "),
                            scale=alt.Scale(domain=names,
                                            range=list(SERIES_COLORS[:max(len(names), 1)]))),
            tooltip=["case_id", series, "score"],
        )
        .properties(title=title, width=360)
    )


def bucket_chart(rates: pl.DataFrame, group: str | None = None, *,
                 title: str = "Bucket pass rates") -> Any:
    """Horizontal bars: the pass rate of each bucket (``bucket``, ``pass_rate``, ``passed``,
    ``cases`` columns, as :func:`rcaeval.charts.bucket_pass_rates` gives); with ``group``
    (e.g. ``"agent_name"``), one bar per group value inside each bucket."""
    import altair as alt

    enc: dict[str, Any] = {
        "y": alt.Y("bucket:N", title=None, sort="-x" if group is None else "ascending"),
        "x": alt.X("pass_rate:Q", title="pass rate", axis=alt.Axis(format="%"),
                   scale=alt.Scale(domain=[0, 1])),
        "tooltip": ["bucket", *([group] if group else []), "passed", "cases",
                    alt.Tooltip("pass_rate:Q", format=".0%")],
    }
    mark: dict[str, Any] = {}
    if group is None:
        mark["color"] = SERIES_COLORS[1]
    else:
        enc["yOffset"] = alt.YOffset(f"{group}:N")
        enc["color"] = alt.Color(f"{group}:N", title=group.replace("_", " "))
    return alt.Chart(rates).mark_bar(**mark).encode(**enc).properties(title=title, width=320)


def chart_svg(chart: Any) -> str:
    """The chart rendered to an SVG string by vl-convert (no browser, no network)."""
    buf = io.StringIO()
    chart.save(buf, format="svg")
    return buf.getvalue()


def show_chart(chart: Any) -> None:
    """Display ``chart`` as static inline SVG, never as vega-embed: the output carries the
    ``<svg>`` element as ``text/html`` (which nbconvert's HTML export inlines verbatim; it
    would base64 an ``image/svg+xml`` output into an ``<img>``) and as ``image/svg+xml``."""
    from IPython.display import display

    svg = chart_svg(chart)
    start = svg.find("<svg")
    inline = svg[start:] if start >= 0 else svg
    display({"text/html": f'<div class="rcaeval-chart">{inline}</div>',
             "image/svg+xml": inline}, raw=True)
