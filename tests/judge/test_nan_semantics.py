"""NaN and ±Infinity metric points through the judge: DuckDB orders NaN above every number
(``NaN > 2.0`` is true), so without care a NaN point is a spike. A non-finite point is never
above a threshold, never a witness of metric evidence, and is counted as the facts
``metrics.nan_points`` / ``metrics.infinite_points``. Many runs are judged in one set-based
pass; hypothesis draws the point values."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from judge_kit import CASE, check, fact, healthy_rows, judge_rows, judge_spec, make_db

NAN, INF = float("nan"), float("inf")
ALT = "evidences/alt_metrics.json"
THRESHOLD = 2.0


def _spec():
    def mutate(raw):
        checks = raw["judge"]["critical_evidence"]["checks"]
        checks[2]["all_of"][0]["threshold"] = THRESHOLD
        checks.append({"id": "alt_metric", "all_of": [
            {"method": "numeric_series_any_gt", "file": "alt_metrics.json",
             "series": "tikv_restart_total", "threshold": THRESHOLD}]})
    return judge_spec(mutate)


def _runs(values: list[list[float]]) -> dict[str, list[dict]]:
    """One run per value list: its points in metrics.json (raw_metric_point) and the same
    points in another file of metrics.json's shape (raw_json)."""
    rows: dict[str, list[dict]] = {}
    for i, vals in enumerate(values):
        run = f"run-{i}"
        r = healthy_rows(run_id=run)
        k = {"run_id": run, "case_id": CASE}
        proto = r["raw_metric_point"][0]
        r["raw_metric_point"] = [{**proto, "value": v} for v in vals] or [
            {**proto, "value": None}]
        r["raw_file"].append({**k, "file": ALT, "kind": None, "size": 10, "sha256": None,
                              "status": "ok", "detail": None})
        r["raw_json"].append({**k, "file": ALT, "path": "$.series[0].name", "type": "string",
                              "value_text": "tikv_restart_total", "value_num": None})
        r["raw_json"] += [{**k, "file": ALT, "path": f"$.series[0].points[{j}][1]",
                           "type": "number", "value_text": repr(v), "value_num": v}
                          for j, v in enumerate(vals)]
        for table, items in r.items():
            rows.setdefault(table, []).extend(items)
    return rows


def _judge(values: list[list[float]]):
    db = make_db()
    try:
        return judge_rows(db, _runs(values), _spec())
    finally:
        db.close()


def test_nan_and_infinity_never_exceed_a_threshold():
    cases = [[NAN], [INF], [-INF], [NAN, INF, -INF], [NAN, 3.0], [INF, 2.5], [2.0, NAN], []]
    frames = _judge(cases)
    for i, vals in enumerate(cases):
        want = any(math.isfinite(v) and v > THRESHOLD for v in vals)
        for cid in ("restart_metric", "alt_metric"):
            c = check(frames, "critical_evidence", cid, f"run-{i}")
            assert c["passed"] is want, (cid, vals, c["reason"])
            if want:
                assert "nan" not in c["reason"].lower() and "inf" not in c["reason"].lower()


def test_non_finite_points_are_counted_as_facts_and_are_not_metric_evidence():
    frames = _judge([[NAN, NAN, 1.0, INF], [NAN], [1.0, 3.0]])
    nan0 = fact(frames, "metrics.nan_points", "run-0")
    assert nan0["value"] is True
    # two NaN points in metrics.json and two in alt_metrics.json, one series each
    assert nan0["detail"].startswith("4 NaN metric point(s) in 2 series (evidences/alt_metrics"
                                     ".json, evidences/metrics.json)"), nan0["detail"]
    assert nan0["evidence_file"] == ALT
    inf0 = fact(frames, "metrics.infinite_points", "run-0")
    assert inf0["value"] is True and inf0["detail"].startswith("2 infinite metric point(s)")
    assert fact(frames, "evidence.metric_evidence_present", "run-0")["value"] is True
    # a series of NaN points only is no metric evidence
    assert fact(frames, "evidence.metric_evidence_present", "run-1")["value"] is False
    assert fact(frames, "metrics.infinite_points", "run-1")["value"] is False
    for name in ("metrics.nan_points", "metrics.infinite_points"):
        assert fact(frames, name, "run-2")["value"] is False


_value = st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                   st.sampled_from([NAN, INF, -INF, THRESHOLD, math.nextafter(THRESHOLD, 9)]))


@pytest.mark.slow
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(_value, max_size=6), min_size=1, max_size=6))
def test_any_gt_holds_exactly_when_a_finite_point_exceeds(values):
    frames = _judge(values)
    for i, vals in enumerate(values):
        want = any(math.isfinite(v) and v > THRESHOLD for v in vals)
        for cid in ("restart_metric", "alt_metric"):
            assert check(frames, "critical_evidence", cid, f"run-{i}")["passed"] is want
        n_nan = sum(1 for v in vals if math.isnan(v))
        f = fact(frames, "metrics.nan_points", f"run-{i}")
        assert f["value"] is (n_nan > 0)
        if n_nan:
            assert f["detail"].startswith(f"{2 * n_nan} NaN metric point(s)")
