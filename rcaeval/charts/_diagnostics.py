"""The release gate page's diagnostics charts (docs/release.md "Diagnostics"): the reliability
curve of the ranker's confidence and the probe metrics per template."""

from __future__ import annotations

from typing import Any

import polars as pl

from rcaeval.charts._palette import BASELINE_COLOR, RUN_COLOR


def reliability_chart(bins: pl.DataFrame, *,
                      title: str = "Reliability: accuracy per confidence bin") -> Any | None:
    """Rows of ``capture_confidence_reliability`` (bin, lower, upper, n, mean_probability,
    accuracy, accuracy_ci_low/high): accuracy with its Wilson interval against the bin's mean
    probability, and the diagonal a calibrated ranker lies on. ``None`` without rows."""
    import altair as alt

    if bins is None or not bins.height:
        return None
    diag = pl.DataFrame({"p": [0.0, 1.0]})
    scale = alt.Scale(domain=[0, 1])
    base = alt.Chart(bins).encode(x=alt.X("mean_probability:Q", title="ranker probability",
                                          scale=scale))
    return (
        alt.Chart(diag).mark_line(color=BASELINE_COLOR, strokeDash=[4, 4]).encode(
            x=alt.X("p:Q", scale=scale), y=alt.Y("p:Q", scale=scale))
        + base.mark_rule(color=BASELINE_COLOR).encode(
            y=alt.Y("accuracy_ci_low:Q", title="accuracy (Wilson interval)", scale=scale),
            y2="accuracy_ci_high:Q")
        + base.mark_point(filled=True, color=RUN_COLOR).encode(
            y="accuracy:Q", size=alt.Size("n:Q", title="captures"),
            tooltip=["bin", "n", "correct", alt.Tooltip("mean_probability:Q", format=".3f"),
                     alt.Tooltip("accuracy:Q", format=".3f")])
    ).properties(title=title, width=320, height=260)


def probe_chart(rows: pl.DataFrame, *,
                title: str = "Probe templates: support and contribution") -> Any | None:
    """Rows of ``capture_probe_by_template``: per template the support rate and the
    contribution rate (final diagnosis) with their Wilson intervals. ``None`` without rows."""
    import altair as alt

    if rows is None or not rows.height:
        return None
    long = pl.concat([
        rows.select("probe_template_id", "executions",
                    pl.lit(name).alias("rate"), pl.col(col).alias("value"),
                    pl.col(f"{col}_ci_low").alias("ci_low"),
                    pl.col(f"{col}_ci_high").alias("ci_high"))
        for name, col in (("support", "support_rate"), ("final diagnosis", "contribution_rate"))])
    base = alt.Chart(long).encode(y=alt.Y("probe_template_id:N", title=None),
                                  yOffset="rate:N")
    color = alt.Color("rate:N", scale=alt.Scale(domain=["support", "final diagnosis"],
                                                range=[BASELINE_COLOR, RUN_COLOR]))
    return (
        base.mark_rule().encode(x=alt.X("ci_low:Q", title="rate (Wilson interval)",
                                        scale=alt.Scale(domain=[0, 1])), x2="ci_high:Q",
                                color=color)
        + base.mark_point(filled=True).encode(
            x="value:Q", color=color,
            tooltip=["probe_template_id", "rate", "executions",
                     alt.Tooltip("value:Q", format=".3f")])
    ).properties(title=title, width=380)
