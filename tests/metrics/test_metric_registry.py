"""The metric registry: every queries/metrics file has a valid header, and rates carry their
sample size and Wilson interval (an empty denominator is reported, never divided by zero)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from rcaeval.errors import InputError, NotFoundError
from rcaeval.metrics import compute_metrics, get_metric, metric_registry
from rcaeval.metrics._registry import parse_metric_file
from rcaeval.stats import wilson_interval


def test_every_metric_file_parses_and_is_documented(repo_root: Path) -> None:
    reg = metric_registry()
    assert "pass_rate" in reg
    docs = (repo_root / "docs" / "metrics.md").read_text(encoding="utf-8")
    for name, m in reg.items():
        assert m.name == name
        assert f"`{name}`" in docs, f"docs/metrics.md does not document {name}"


def _judgments(rows: list[tuple[str, str, str]]) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("CREATE TABLE eval_judgment (run_id VARCHAR, case_id VARCHAR, verdict VARCHAR)")
    if rows:
        con.executemany("INSERT INTO eval_judgment VALUES (?, ?, ?)", rows)
    return con


def test_rate_value_interval_and_sample_size() -> None:
    con = _judgments([("r", "a", "pass"), ("r", "b", "fail"), ("r", "c", "pass"),
                      ("other", "a", "fail")])
    df = compute_metrics(con, ["pass_rate"], params={"run_id": "r"})
    row = df.row(0, named=True)
    assert row["numerator"] == 2 and row["denominator"] == 3
    assert row["value"] == pytest.approx(2 / 3)
    lo, hi = wilson_interval(2, 3)
    assert row["ci_low"] == pytest.approx(lo) and row["ci_high"] == pytest.approx(hi)


def test_verdict_count_counts_one_verdict_of_one_run() -> None:
    con = _judgments([("r", "a", "pass"), ("r", "b", "fail"), ("r", "c", "pass"),
                      ("other", "a", "pass")])
    got = {v: compute_metrics(con, ["verdict_count"], {"run_id": "r", "verdict": v})
           .item(0, "numerator") for v in ("pass", "fail", "invalid")}
    assert got == {"pass": 2, "fail": 1, "invalid": 0}


def test_empty_denominator_is_reported_not_divided() -> None:
    df = compute_metrics(_judgments([]), ["pass_rate"], params={"run_id": "r"})
    row = df.row(0, named=True)
    assert row["denominator"] == 0 and row["value"] is None and row["ci_low"] is None


def test_missing_parameter_and_unknown_metric_are_clear_errors() -> None:
    with pytest.raises(InputError, match="run_id"):
        compute_metrics(_judgments([]), ["pass_rate"])
    with pytest.raises(NotFoundError, match="no metric named"):
        get_metric("nope")


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("-- metric: x\n-- kind: ratio\nSELECT 1", "kind"),
        ("-- metric: x\n-- kind: rate\n-- reads: t\n-- rows: all\nSELECT 1", "numerator"),
        ("-- metric: y\n-- kind: value\n-- reads: t\n-- rows: all\nSELECT 1 AS value", "metric"),
        ("-- metric: x\n-- kind: value\n-- reads: t\n-- rows: all\nSELECT $p AS value",
         "params"),
    ],
)
def test_bad_headers_name_file_and_field(tmp_path: Path, text: str, field: str) -> None:
    p = tmp_path / "x.sql"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as exc:
        parse_metric_file(p)
    assert exc.value.field == field and str(p) in str(exc.value)


def test_wilson_known_values() -> None:
    lo, hi = wilson_interval(22, 23)
    assert lo == pytest.approx(0.7904, abs=1e-3) and hi == pytest.approx(0.9923, abs=1e-3)
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0
    assert wilson_interval(0, 0) == (None, None)
    with pytest.raises(ValueError):
        wilson_interval(3, 2)


def test_breakdown_metrics_run_only_as_breakdowns(tmp_path: Path) -> None:
    from rcaeval.metrics import compute_breakdown

    con = duckdb.connect()
    con.execute("CREATE TABLE release_trace_observation AS SELECT * FROM (VALUES "
                "('c1', 'approved', 'p1', ['g'], []::VARCHAR[], 'oom', 'oom', 'E01', ['E01'],"
                " 'during'),"
                "('c2', 'approved', 'p1', []::VARCHAR[], ['g'], 'oom', 'oom', 'E02', ['E01'],"
                " 'after')) t(capture_id, snapshot_status, probe_template_id, supporting,"
                " contradicting, hypothesis, rc_family, evidence_id, rc_evidence_ids,"
                " incident_time_relation)")
    with pytest.raises(InputError, match="breakdown"):
        compute_metrics(con, ["capture_probe_by_template"])
    with pytest.raises(InputError, match="not a breakdown"):
        compute_breakdown(con, "pass_rate")
    row = compute_breakdown(con, "capture_probe_by_template").row(0, named=True)
    assert (row["executions"], row["supported"], row["refuted"], row["contributed"]) == (2, 1, 1, 1)
    assert row["support_rate"] == 0.5
    assert (row["support_rate_ci_low"], row["support_rate_ci_high"]) == wilson_interval(1, 2)
    bad = tmp_path / "bad_rates.sql"
    bad.write_text("-- metric: bad_rates\n-- kind: breakdown\n-- reads: t\n-- rows: all\n"
                   "-- key: k\n-- rates: r = a\nSELECT 1\n")
    with pytest.raises(InputError) as exc:
        parse_metric_file(bad)
    assert exc.value.field == "rates"
