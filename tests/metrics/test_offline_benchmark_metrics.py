"""The openrca_* metrics over a small hand-built openrca_scores relation, and empty."""

from __future__ import annotations

import duckdb
import polars as pl
import pytest

from rcaeval.metrics import compute_metrics
from rcaeval.offline._openrca import SCORE_SCHEMA
from rcaeval.stats import wilson_interval


def _con(rows: list[tuple[float, int, int, int, int, int, int]]) -> duckdb.DuckDBPyConnection:
    """rows: (score, component_hits, component_criteria, reason_hits, reason_criteria,
    time_hits, time_criteria)."""
    cols = {k: [] for k in SCORE_SCHEMA}
    for i, (score, ch, cc, rh, rc, th, tc) in enumerate(rows):
        vals = {"row_id": i, "task_index": "task_7", "score": score, "hits": ch + rh + th,
                "criteria": cc + rc + tc, "component_hits": ch, "component_criteria": cc,
                "reason_hits": rh, "reason_criteria": rc, "time_hits": th,
                "time_criteria": tc, "predicted_root_causes": 1, "expected_root_causes": 1}
        for k, v in vals.items():
            cols[k].append(v)
    con = duckdb.connect()
    con.register("openrca_scores", pl.DataFrame(cols, schema=SCORE_SCHEMA).to_arrow())
    return con


def test_strict_partial_mean_and_criteria() -> None:
    con = _con([(1.0, 1, 1, 1, 1, 1, 1), (0.67, 1, 1, 1, 1, 0, 1), (0.0, 0, 1, 0, 1, 0, 1),
                (0.5, 0, 0, 1, 1, 0, 1)])
    m = {r["metric"]: r for r in compute_metrics(
        con, ["openrca_strict", "openrca_partial", "openrca_mean"]).iter_rows(named=True)}
    assert (m["openrca_strict"]["numerator"], m["openrca_strict"]["denominator"]) == (1, 4)
    assert (m["openrca_partial"]["numerator"], m["openrca_partial"]["denominator"]) == (2, 4)
    assert m["openrca_strict"]["ci_low"] == pytest.approx(wilson_interval(1, 4)[0])
    assert m["openrca_mean"]["value"] == pytest.approx((1 + 0.67 + 0 + 0.5) / 4)
    for criterion, (hits, n) in {"component": (2, 3), "reason": (3, 4), "time": (1, 4)}.items():
        r = compute_metrics(con, ["openrca_criterion_accuracy"],
                            params={"criterion": criterion}).row(0, named=True)
        assert (r["numerator"], r["denominator"]) == (hits, n), criterion


def test_empty_relation_reports_no_value() -> None:
    con = _con([])
    df = compute_metrics(con, ["openrca_strict", "openrca_partial", "openrca_mean"])
    assert df["denominator"].to_list() == [0, 0, 0]
    assert df["value"].to_list() == [None, None, None]
    r = compute_metrics(con, ["openrca_criterion_accuracy"],
                        params={"criterion": "time"}).row(0, named=True)
    assert r["denominator"] == 0 and r["value"] is None


def _ranked(rows: list[tuple[int | None, int]]) -> duckdb.DuckDBPyConnection:
    """rows: (truth_rank or None, candidates)."""
    con = duckdb.connect()
    con.register("ranked_cases", pl.DataFrame(
        {"truth_rank": [r for r, _ in rows], "candidates": [c for _, c in rows]},
        schema={"truth_rank": pl.Int64, "candidates": pl.Int64}).to_arrow())
    return con


RANKED = ["ranked_ac_at_k", "ranked_avg_at_k", "ranked_chance_ac_at_k",
          "ranked_chance_avg_at_k"]


def test_ranked_metrics_by_hand() -> None:
    con = _ranked([(1, 5), (3, 5), (None, 2), (2, 10)])
    m = {r["metric"]: r for r in compute_metrics(con, RANKED, params={"k": 2})
         .iter_rows(named=True)}
    assert (m["ranked_ac_at_k"]["numerator"], m["ranked_ac_at_k"]["denominator"]) == (2, 4)
    assert m["ranked_avg_at_k"]["value"] == pytest.approx((1 + 0 + 0 + 0.5) / 4)
    assert m["ranked_chance_ac_at_k"]["value"] == pytest.approx((2 / 5 + 2 / 5 + 1 + 2 / 10) / 4)
    avg_chance = ((1 / 5 + 2 / 5) / 2 * 2 + (1 / 2 + 1) / 2 + (1 / 10 + 2 / 10) / 2) / 4
    assert m["ranked_chance_avg_at_k"]["value"] == pytest.approx(avg_chance)


def test_ranked_metrics_empty() -> None:
    df = compute_metrics(_ranked([]), RANKED, params={"k": 1})
    assert df["denominator"].to_list() == [0, 0, 0, 0]
    assert df["value"].to_list() == [None, None, None, None]
