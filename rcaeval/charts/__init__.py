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

from rcaeval._numfmt import display_value
from rcaeval.charts._altair import (
    bucket_chart,
    chart_svg,
    count_axis,
    score_chart,
    show_chart,
    verdict_chart,
)
from rcaeval.charts._banner import banner_html, show_banner
from rcaeval.charts._data import (
    bucket_pass_rates,
    case_scores,
    paired_cases,
    verdict_counts,
    verdict_long,
)
from rcaeval.charts._diagnostics import probe_chart, reliability_chart
from rcaeval.charts._gate import captures_chart, gate_rates_chart
from rcaeval.charts._palette import (
    BASELINE_COLOR,
    CATEGORY_COLORS,
    RUN_COLOR,
    STATUS_PALETTE,
    VERDICT_PALETTE,
    category_scale,
    comparison_scale,
    palette_colors,
    palette_css,
    verdict_scale,
)
from rcaeval.charts._tables import show_table, table_html
from rcaeval.charts._trajectory import case_trajectory, trajectory_by, trajectory_chart
from rcaeval.charts._trend import (
    left_out_note,
    release_trend,
    release_trend_left_out,
    trend_chart,
)

__all__ = [
    "BASELINE_COLOR",
    "CATEGORY_COLORS",
    "RUN_COLOR",
    "STATUS_PALETTE",
    "VERDICT_PALETTE",
    "banner_html",
    "bucket_chart",
    "bucket_pass_rates",
    "captures_chart",
    "probe_chart",
    "reliability_chart",
    "case_scores",
    "case_trajectory",
    "category_scale",
    "chart_svg",
    "comparison_scale",
    "count_axis",
    "display_value",
    "gate_rates_chart",
    "left_out_note",
    "paired_cases",
    "palette_colors",
    "palette_css",
    "release_trend",
    "release_trend_left_out",
    "score_chart",
    "show_banner",
    "show_chart",
    "show_table",
    "table_html",
    "trajectory_by",
    "trajectory_chart",
    "trend_chart",
    "verdict_chart",
    "verdict_counts",
    "verdict_long",
    "verdict_scale",
]
