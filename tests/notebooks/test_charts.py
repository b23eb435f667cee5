"""rcaeval.charts on a real store judged from data/recorded: DuckDB aggregates, charts with
integer count axes rendered to SVG, readable HTML tables."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

import rcaeval.charts as rc
import rcaeval.store as st

pytest.importorskip("vl_convert")


def test_verdict_counts_match_judgments(store_with_baseline: tuple[Path, Path]) -> None:
    db, _ = store_with_baseline
    with st.connect(db, read_only=True) as s:
        j = s.judgments(run_id="rec-shallow")
        by_type = rc.verdict_counts(s, "rec-shallow")
        total = rc.verdict_counts(s, "rec-shallow", by=())
        both = rc.verdict_counts(s, ["rec-shallow", "rec-thorough"], by=("run_id",))
    assert total.columns == ["pass", "fail", "invalid", "total"]
    assert total["total"].item() == j.height
    for v in ("pass", "fail", "invalid"):
        assert total[v].item() == j.filter(pl.col("verdict") == v).height
        assert by_type[v].sum() == total[v].item()
    assert by_type["case_type"].to_list() == sorted(set(j["case_type"].fill_null("-")))
    assert both["run_id"].to_list() == ["rec-shallow", "rec-thorough"]


def test_bucket_rates_aggregate_in_duckdb(store_with_baseline: tuple[Path, Path]) -> None:
    db, _ = store_with_baseline
    with st.connect(db, read_only=True) as s:
        b = s.buckets(run_id="rec-thorough")
        rates = rc.bucket_pass_rates(s, "rec-thorough")
        by_type = rc.bucket_pass_rates(s, "rec-thorough", by=("case_type", "bucket"))
    expect = b.group_by("bucket").agg(pl.len().alias("n"),
                                      (pl.col("status") == "pass").sum().alias("p")).sort("bucket")
    assert rates["bucket"].to_list() == expect["bucket"].to_list()
    assert rates["cases"].to_list() == expect["n"].to_list()
    assert rates["passed"].to_list() == expect["p"].to_list()
    assert by_type["cases"].sum() == b.height
    assert all(0 <= r <= 1 for r in rates["pass_rate"].to_list())


def test_count_axis_is_integer_and_charts_render(store_with_baseline: tuple[Path, Path]) -> None:
    db, _ = store_with_baseline
    with st.connect(db, read_only=True) as s:
        chart = rc.verdict_chart(rc.verdict_long(s, "rec-shallow"))
        bars = rc.bucket_chart(rc.bucket_pass_rates(s, ["rec-shallow", "rec-thorough"],
                                                    by=("run_id", "bucket")), "run_id")
        scores = rc.case_scores(s, ["rec-shallow", "rec-thorough"])
    axis = chart.to_dict()["encoding"]["y"]["axis"]
    assert axis["tickMinStep"] == 1 and axis["format"] == "d"
    svg = rc.chart_svg(chart)
    assert svg.lstrip().startswith("<svg") and "0.5" not in _tick_labels(svg)
    assert "<svg" in rc.chart_svg(bars)
    assert "<svg" in rc.chart_svg(rc.score_chart(scores, "run_id"))
    assert json.dumps(bars.to_dict()).count("run_id") >= 2


def _tick_labels(svg: str) -> list[str]:
    import re

    return re.findall(r">([0-9.]+)</text>", svg)


def test_table_html_is_readable() -> None:
    df = pl.DataFrame({"case": ["a<b", None], "rate": [0.12345, 1.0], "n": [3, 4],
                       "ok": [True, False]})
    html = rc.table_html(df, links={"case": "#case-{value}"})
    assert "<th>case</th><th>rate</th><th>n</th><th>ok</th>" in html
    assert "str" not in html and "f64" not in html and '"a' not in html
    assert '<a href="#case-a&lt;b">a&lt;b</a>' in html
    assert ">0.123<" in html and ">1.000<" in html and ">3<" in html and ">true<" in html
    assert "shape" not in html
    long = rc.table_html(pl.DataFrame({"x": list(range(10))}), max_rows=3)
    assert "7 more rows" in long


def test_paired_cases_feed_mcnemar(store_with_baseline: tuple[Path, Path]) -> None:
    from rcaeval.stats import mcnemar_paired

    db, _ = store_with_baseline
    with st.connect(db, read_only=True) as s:
        paired = rc.paired_cases(s, "rec-thorough", "rec-shallow")
        a = s.judgments(run_id="rec-thorough")
    assert paired.height == a.height
    assert (paired["score_delta"] == paired["score_b"] - paired["score_a"]).all()
    test = mcnemar_paired(paired["pass_a"].to_list(), paired["pass_b"].to_list())
    assert test.b + test.c + test.both + test.neither == paired.height
    assert test.b > test.c and test.p_value < 0.05


def test_score_chart_draws_the_distribution_at_scale() -> None:
    from rcaeval.charts._altair import SCORE_CHART_MAX_CASES, score_bins

    n = SCORE_CHART_MAX_CASES + 1
    scores = pl.DataFrame({
        "case_id": [f"c{i:03d}" for i in range(n)] * 2,
        "series": ["this run"] * n + ["baseline"] * n,
        "score": [float(i % 101) for i in range(n)] + [100.0] * (n - 1) + [None],
    })
    spec = rc.score_chart(scores).to_dict()
    rows = next(iter(spec["datasets"].values()))
    assert len(rows) < 2 * len(score_bins())  # bins are embedded, not the cases
    got = {(r["series"], r["score_bin"]): r["cases"] for r in rows}
    assert got[("baseline", "90-100")] == n - 1  # the null score is dropped
    assert got[("this run", "0-9")] == 10 and got[("this run", "50-59")] == 10
    assert sum(v for (s, _), v in got.items() if s == "this run") == n
    assert "baseline (60 cases)" in json.dumps(spec) and "this run (61 cases)" in json.dumps(spec)
    assert spec["title"] == "Score distribution"
    assert "<svg" in rc.chart_svg(rc.score_chart(scores))
    small = rc.score_chart(scores.head(5)).to_dict()  # per-case bars below the threshold
    assert len(next(iter(small["datasets"].values()))) == 5
