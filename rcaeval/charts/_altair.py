"""Altair charts over the aggregated frames of :mod:`rcaeval.charts` and their static
rendering: SVG by vl-convert (no browser, no network), displayed inline in notebooks."""

from __future__ import annotations

import io
from typing import Any

import polars as pl

from rcaeval.charts._palette import (
    RUN_COLOR,
    VERDICT_PALETTE,
    category_scale,
    comparison_scale,
    verdict_scale,
)


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
            color=alt.Color("verdict:N", scale=alt.Scale(**verdict_scale())),
            tooltip=[x, "verdict", "cases"],
        )
        .properties(title=title, width=320, height=220)
    )


SCORE_CHART_MAX_CASES = 60
"""Above this many cases (per series) :func:`score_chart` draws the score distribution."""
SCORE_BIN = 10
"""Width of a score bin (points) of the distribution :func:`score_chart` draws at scale."""


def series_scale(names: list[str], series: str,
                 compare: tuple[str, str] | None = None) -> dict[str, list[str]]:
    """The palette's colour scale for the values ``names`` of column ``series``: verdict
    colours for ``verdict``, the baseline / this-run pair for ``compare`` (reference,
    candidate) or for the series ``baseline`` and ``this run``, else the categorical
    colours."""
    if series == "verdict" and set(names) <= set(VERDICT_PALETTE):
        return verdict_scale([v for v in VERDICT_PALETTE if v in names])
    if compare is None and set(names) == {"baseline", "this run"}:
        compare = ("baseline", "this run")
    if compare is not None:
        return comparison_scale(*compare)
    return category_scale(names)


def score_chart(scores: pl.DataFrame, series: str = "series", *,
                title: str = "Score per case", max_cases: int = SCORE_CHART_MAX_CASES,
                compare: tuple[str, str] | None = None) -> Any:
    """Bars of ``score`` (0..100) per ``case_id``, one bar per value of ``series`` side by
    side (e.g. this run vs the baseline, or one per agent). Colours come from the palette
    (:func:`series_scale`): ``compare=(reference, candidate)`` draws the two series in the
    baseline and this-run colours, in that order.

    When a series holds more than ``max_cases`` cases, one bar per case would be unreadable
    (and embed every row in the chart): the chart shows the score distribution instead,
    cases per ``SCORE_BIN``-point bin (``0-9`` .. ``90-100``) per series, with the number of
    cases of each series in the legend. Per-case scores stay in the report's tables."""
    import altair as alt

    data = scores.select("case_id", series, pl.col("score").cast(pl.Float64).round(2)) \
        .drop_nulls("score").sort("case_id", series)  # rounded: the chart's labels show it
    present = set(data[series].to_list())
    scale = series_scale(sorted(present), series, compare)
    names = [n for n in scale["domain"] if n in present] or sorted(present)
    colors = [scale["range"][scale["domain"].index(n)] for n in names]
    per_series = data.group_by(series).len()
    if per_series.height and per_series["len"].max() > max_cases:  # type: ignore[operator]
        return _score_histogram(data, series, names, colors, title)
    return (
        alt.Chart(data)
        .mark_bar()
        .encode(
            y=alt.Y("case_id:N", title=None),
            x=alt.X("score:Q", title="score", scale=alt.Scale(domain=[0, 100])),
            yOffset=alt.YOffset(f"{series}:N"),
            color=alt.Color(f"{series}:N", title=series.replace("_", " "),
                            scale=alt.Scale(domain=names, range=colors)),
            tooltip=["case_id", series, alt.Tooltip("score:Q", format=".2f")],
        )
        .properties(title=title, width=360)
    )


def score_bins() -> list[str]:
    """Labels of the score bins of the distribution view, in order (``0-9`` .. ``90-100``)."""
    last = 100 - SCORE_BIN
    return [f"{lo}-{lo + SCORE_BIN - 1}" if lo < last else f"{lo}-100"
            for lo in range(0, 100, SCORE_BIN)]


def _score_histogram(data: pl.DataFrame, series: str, names: list[str], colors: list[str],
                     title: str) -> Any:
    """Cases per score bin and series: the aggregate :func:`score_chart` draws at scale."""
    import altair as alt

    labels = score_bins()
    idx = (pl.col("score").clip(0, 100) // SCORE_BIN).cast(pl.Int64).clip(0, len(labels) - 1)
    counts = (data.group_by(series, idx.alias("bin_idx")).len("cases")
              .with_columns(pl.col("bin_idx").replace_strict(
                  list(range(len(labels))), labels, return_dtype=pl.Utf8).alias("score_bin"))
              .sort(series, "bin_idx"))
    totals = dict(data.group_by(series).len().iter_rows())
    legend = {n: f"{n} ({totals.get(n, 0):,} cases)" for n in names}
    counts = counts.with_columns(pl.col(series).replace_strict(legend).alias("series_label"))
    return (
        alt.Chart(counts)
        .mark_bar()
        .encode(
            x=alt.X("score_bin:N", title="score", sort=labels,
                    scale=alt.Scale(domain=labels)),
            y=alt.Y("cases:Q", axis=count_axis()),
            xOffset=alt.XOffset("series_label:N", sort=[legend[n] for n in names]),
            color=alt.Color("series_label:N", title=series.replace("_", " "),
                            scale=alt.Scale(domain=[legend[n] for n in names], range=colors)),
            tooltip=[alt.Tooltip(f"{series}:N"), alt.Tooltip("score_bin:N", title="score"),
                     "cases"],
        )
        .properties(title=title.replace("per case", "distribution")
                    if "per case" in title else f"{title} (distribution)",
                    width=360, height=220)
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
        mark["color"] = RUN_COLOR
    else:
        names = sorted(set(rates[group].cast(pl.Utf8).to_list()))
        enc["yOffset"] = alt.YOffset(f"{group}:N")
        enc["color"] = alt.Color(f"{group}:N", title=group.replace("_", " "),
                                 scale=alt.Scale(**series_scale(names, group)))
    rates = rates.with_columns(pl.col("pass_rate").round(3))  # the labels show it rounded
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
