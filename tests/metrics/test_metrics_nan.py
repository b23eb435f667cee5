"""Metrics over floating values with NaN and ±Infinity in their input. DuckDB sorts NaN above
every number, so a NaN would be the maximum and the p95 and poison a mean. Property: a
metric over an input with non-finite values equals the metric over the same input with them
removed."""

from __future__ import annotations

import math

import duckdb
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from rcaeval.metrics import compute_metrics, metric_registry
from rcaeval.offline._openrca import SCORE_SCHEMA

NAN, INF = float("nan"), float("inf")

FLOAT_INPUT_METRICS = {"capture_activation_p95_seconds", "openrca_mean",
                       "capture_confidence_brier", "capture_confidence_brier_self_check"}
"""The value metrics that aggregate a floating column (the others count booleans or
integers: ranked_* read integer ranks and candidate counts)."""

INTEGER_INPUT_METRICS = {"ranked_avg_at_k", "ranked_chance_ac_at_k", "ranked_chance_avg_at_k",
                         "capture_typedb_outage_runtime_activation_success"}


def test_every_value_metric_is_classified():
    """A new value metric must be added to one of the two sets (and, when it aggregates a
    floating column, tested here with NaN input)."""
    values = {n for n, m in metric_registry().items() if m.kind in ("value", "bool")}
    assert values == FLOAT_INPUT_METRICS | INTEGER_INPUT_METRICS


def _p95(latencies: list[float]) -> tuple[float | None, int | None]:
    con = duckdb.connect()
    con.register("release_activation", pl.DataFrame(
        {"capture_id": [f"c{i}" for i in range(len(latencies))],
         "latency_seconds": latencies, "outage_test": [None] * len(latencies)},
        schema={"capture_id": pl.Utf8, "latency_seconds": pl.Float64,
                "outage_test": pl.Utf8}).to_arrow())
    r = compute_metrics(con, ["capture_activation_p95_seconds"]).row(0, named=True)
    con.close()
    return r["value"], r["denominator"]


def _mean(scores: list[float]) -> tuple[float | None, int | None]:
    n = len(scores)
    cols = {k: [0] * n for k in SCORE_SCHEMA}
    cols.update(row_id=list(range(n)), task_index=["t"] * n, score=scores)
    con = duckdb.connect()
    con.register("openrca_scores", pl.DataFrame(cols, schema=SCORE_SCHEMA).to_arrow())
    r = compute_metrics(con, ["openrca_mean"]).row(0, named=True)
    con.close()
    return r["value"], r["denominator"]


def _brier(probs: list[float], correct: list[bool]) -> tuple[float | None, int | None]:
    con = duckdb.connect()
    con.register("release_confidence", pl.DataFrame(
        {"probability": probs, "correct": correct},
        schema={"probability": pl.Float64, "correct": pl.Boolean}).to_arrow())
    r = compute_metrics(con, ["capture_confidence_brier"]).row(0, named=True)
    con.close()
    return r["value"], r["denominator"]


def _self_check_brier(probs: list[float], calibrated: list[float],
                      correct: list[bool]) -> tuple[float | None, int | None]:
    con = duckdb.connect()
    con.register("release_confidence", pl.DataFrame(
        {"probability": probs, "calibrated_probability": calibrated, "correct": correct},
        schema={"probability": pl.Float64, "calibrated_probability": pl.Float64,
                "correct": pl.Boolean}).to_arrow())
    r = compute_metrics(con, ["capture_confidence_brier_self_check"]).row(0, named=True)
    con.close()
    return r["value"], r["denominator"]


def test_a_nan_probability_is_never_in_the_brier_score():
    assert _brier([1.0, NAN, 0.0], [True, True, True]) == (0.5, 2)
    assert _brier([NAN, INF], [True, False]) == (None, 0)
    assert _self_check_brier([0.5, 0.5, NAN, 0.5], [1.0, NAN, 0.0, 0.0],
                             [True, True, True, True]) == (0.5, 2)
    assert _self_check_brier([0.5], [INF], [False]) == (None, 0)


def test_a_nan_latency_is_never_the_p95():
    assert _p95([1.0, 2.0, NAN]) == (2.0, 2)
    assert _p95([NAN, INF, -INF]) == (None, 0)
    assert _p95([5.0, INF]) == (5.0, 1)
    assert _mean([1.0, NAN, 0.0]) == (0.5, 2)
    assert _mean([NAN]) == (None, 0)


_finite = st.floats(min_value=0, max_value=1e6, allow_nan=False)
_bad = st.sampled_from([NAN, INF, -INF])


@settings(max_examples=25, deadline=None)
@given(st.lists(st.one_of(_finite, _bad), max_size=30))
def test_non_finite_values_change_nothing(values):
    finite = [v for v in values if math.isfinite(v)]
    assert _p95(values) == _p95(finite)
    got, want = _mean(values), _mean(finite)
    assert got[1] == want[1] == len(finite)
    assert (got[0] is None) == (want[0] is None)
    if want[0] is not None:
        assert math.isclose(got[0], want[0], rel_tol=1e-12, abs_tol=1e-9)
