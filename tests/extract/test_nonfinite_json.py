"""Bare NaN / Infinity in evidence JSON (Python's json.dumps default) is read as Python's json
reads it: the run keeps its core evidence, the non-finite points are non-numeric, and the
judge records a warning fact; any other invalid JSON stays a parse error."""

from __future__ import annotations

import json
import shutil

import pytest

from rcaeval._paths import data_dir
from rcaeval.extract._safe import FileRecord, parse_json

CASE = "tikv-panic-restart-001"
SAMPLE = data_dir() / "recorded" / "rec-thorough" / CASE


@pytest.mark.parametrize("text", ['{"v": NaN}', '{"v": Infinity}', '[1, -Infinity]'])
def test_python_json_tokens_parse_with_a_note(text):
    rec = FileRecord("m.json", "metrics")
    ok, obj = parse_json(text.encode(), rec)
    assert ok and json.dumps(obj) == json.dumps(json.loads(text))
    assert rec.status == "ok" and "NaN/Infinity" in (rec.detail or "")


@pytest.mark.parametrize("text", ['{"v": nan}', '{"v": NaN', "{'v': 1}", '{"v": 1,}',
                                  '{"v": Infinity, }'])
def test_other_invalid_json_keeps_parse_error(text):
    rec = FileRecord("m.json", "metrics")
    ok, obj = parse_json(text.encode(), rec)
    assert not ok and obj is None and rec.status == "parse_error"


@pytest.mark.skipif(not SAMPLE.is_dir(), reason="sample data not generated yet")
def test_judged_run_with_nan_metrics_is_not_invalid(tmp_path):
    import rcaeval.store as st
    from rcaeval.judge import judge_audit

    run = tmp_path / "rec" / "nan-run" / CASE
    shutil.copytree(SAMPLE, run)
    metrics = run / "evidences" / "metrics.json"
    doc = json.loads(metrics.read_text("utf-8"))
    doc["series"][0]["points"].append([doc["series"][0]["points"][0][0], float("nan")])
    doc["series"][0]["points"].append([doc["series"][0]["points"][0][0], float("inf")])
    metrics.write_text(json.dumps(doc), "utf-8")  # bare NaN / Infinity, as Python writes
    assert "NaN" in metrics.read_text("utf-8")

    s = st.connect(":memory:")
    try:
        frame = judge_audit(s, tmp_path / "rec", data_dir() / "registry",
                            out_dir=tmp_path / "out", workers=1)
        facts = dict(s.sql("SELECT fact, value FROM eval_fact").rows())
        detail = s.sql("SELECT detail FROM raw_file WHERE file LIKE '%metrics.json'").rows()
    finally:
        s.close()
    row = frame.row(0, named=True)
    assert row["verdict"] == "pass", row
    assert facts["evidence.core_bundle_present"] is True
    assert facts["evidence.nonfinite_numbers_present"] is True
    assert facts["metrics.nan_points"] is True and facts["metrics.infinite_points"] is True
    assert "kept 1 NaN and 1 infinite metric points" in detail[0][0]
    assert "NaN/Infinity" in detail[0][0]


@pytest.mark.skipif(not SAMPLE.is_dir(), reason="sample data not generated yet")
@pytest.mark.parametrize("spike", ["NaN", "+Inf", "Infinity", "nan"])
def test_a_non_finite_spike_in_metrics_json_is_no_spike(tmp_path, spike):
    """A series whose only values above the case's threshold are NaN / infinite, as a bare
    JSON token or as the strings a Prometheus API writes ("NaN", "+Inf"): the critical-
    evidence check on it fails, and the points are counted as facts."""
    import rcaeval.store as st
    from rcaeval.judge import judge_audit

    run = tmp_path / "rec" / "spike-run" / CASE
    shutil.copytree(SAMPLE, run)
    metrics = run / "evidences" / "metrics.json"
    doc = json.loads(metrics.read_text("utf-8"))
    series = next(s for s in doc["series"] if s["name"] == "tikv_restart_total"
                  and s.get("labels", {}).get("instance") == "tikv-2")
    series["points"] = [[p[0], "@SPIKE@"] for p in series["points"]]
    token = spike if spike[0].isalpha() and spike != "nan" else None
    text = json.dumps(doc).replace('"@SPIKE@"', token or json.dumps(spike))
    metrics.write_text(text, "utf-8")

    s = st.connect(":memory:")
    try:
        judge_audit(s, tmp_path / "rec", data_dir() / "registry", out_dir=tmp_path / "out",
                    workers=1)
        facts = dict(s.sql("SELECT fact, value FROM eval_fact").rows())
        checks = dict(s.sql("SELECT check_id, passed FROM eval_check "
                            "WHERE bucket = 'critical_evidence'").rows())
    finally:
        s.close()
    assert checks["restarts_counted"] is False, checks
    nan = spike.lower() == "nan"
    assert facts["metrics.nan_points"] is nan
    assert facts["metrics.infinite_points"] is not nan
