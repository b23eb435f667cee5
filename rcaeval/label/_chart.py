"""The explore notebook's agreement chart (docs/notebooks.md, "Agreement with human
labels"): raw agreement with its Wilson interval per level, and per item where the judge and
people disagreed."""

from __future__ import annotations

from typing import Any

import polars as pl

from rcaeval.charts import BASELINE_COLOR, RUN_COLOR


def agreement_rows(table: pl.DataFrame) -> pl.DataFrame:
    """The rows the chart draws: each level's total (``<level>: all``) and every item with a
    disagreement (``<level>: <item>``), in table order."""
    rows = table.filter(pl.col("n") > 0).filter(
        pl.col("item").is_null() | (pl.col("disagree") > 0))
    return rows.with_columns(
        (pl.col("level") + ": " + pl.col("item").fill_null("all")).alias("row"))


def agreement_chart(table: pl.DataFrame, *,
                    title: str = "Raw agreement with people (95% Wilson interval)") -> Any:
    """Altair: one row per :func:`agreement_rows` row, the interval as a rule and the raw
    agreement as a point; ``None`` when nothing was labelled."""
    import altair as alt

    rows = agreement_rows(table)
    if not rows.height:
        return None
    order = rows["row"].to_list()
    base = alt.Chart(rows).encode(y=alt.Y("row:N", title=None, sort=order))
    return (
        base.mark_rule(strokeWidth=2, color=BASELINE_COLOR).encode(
            x=alt.X("agreement_low:Q", title="raw agreement",
                    scale=alt.Scale(domain=[0, 1])),
            x2="agreement_high:Q")
        + base.mark_point(filled=True, size=60, color=RUN_COLOR).encode(
            x="agreement:Q",
            tooltip=["row", "n", "agree", alt.Tooltip("agreement:Q", format=".3f"),
                     alt.Tooltip("kappa:Q", format=".3f")])
    ).properties(title=title, width=420)
