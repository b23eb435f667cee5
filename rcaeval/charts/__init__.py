"""Charts and tables shared by the report notebooks and analysts (docs/notebooks.md).

Data is aggregated in DuckDB (queries/charts/*.sql) before it is charted; charts are Altair,
rendered to static SVG by vl-convert; tables are plain HTML (no dtype row, no quoted strings).

Typical use (in a notebook)::

    import rcaeval.store as st
    import rcaeval.charts as rc

    s = st.connect("data/rcaeval.duckdb", read_only=True)
    rc.show_table(rc.verdict_counts(s, "nightly-42"))
    rc.show_chart(rc.verdict_chart(rc.verdict_long(s, "nightly-42")))
    rc.show_chart(rc.bucket_chart(rc.bucket_pass_rates(s, ["run-a", "run-b"],
                                                       by=("run_id", "bucket")), "run_id"))
"""

from __future__ import annotations

from rcaeval.charts._altair import (
    SERIES_COLORS,
    VERDICT_COLORS,
    bucket_chart,
    chart_svg,
    count_axis,
    score_chart,
    show_chart,
    verdict_chart,
)
from rcaeval.charts._data import (
    bucket_pass_rates,
    case_scores,
    paired_cases,
    verdict_counts,
    verdict_long,
)
from rcaeval.charts._tables import show_table, table_html
from rcaeval.charts._trend import release_trend, trend_chart

__all__ = [
    "SERIES_COLORS",
    "VERDICT_COLORS",
    "bucket_chart",
    "bucket_pass_rates",
    "case_scores",
    "chart_svg",
    "count_axis",
    "paired_cases",
    "release_trend",
    "score_chart",
    "show_chart",
    "show_table",
    "table_html",
    "trend_chart",
    "verdict_chart",
    "verdict_counts",
    "verdict_long",
]
