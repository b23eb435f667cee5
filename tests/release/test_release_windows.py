"""Stored release windows: `rcaeval release metrics --record` / `release record` store a
window's metrics and gate decision (idempotent per window, stage and artifact checksum),
`release windows` lists them, and the trend data (queries/charts/release_trend.sql) reads the
latest measurement per window, up to the reported one, with the reported artifact counted
whether it is stored or not."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import rcaeval.charts as rc
import rcaeval.release as rel
import rcaeval.store as st
from rcaeval.errors import InputError

REPO = Path(__file__).resolve().parents[2]
CAPTURES = REPO / "data" / "captures"
SAMPLE = CAPTURES / "sample-window.parquet"
REVIEWS = CAPTURES / "reviews.jsonl"
WEEKS = ("2026-11-01..2026-11-04", "2026-11-05..2026-11-09", "2026-11-10..2026-11-14")


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rcaeval", "release", *args],
                          capture_output=True, text=True, timeout=300, cwd=cwd)


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Three consecutive windows of the sample data, plus a re-measurement of the first one
    (another confidence level: another artifact checksum)."""
    out = tmp_path_factory.mktemp("windows")
    paths = {}
    for i, spec in enumerate(WEEKS):
        m = rel.measure(SAMPLE, spec, reviews=REVIEWS)
        paths[f"w{i + 1}"] = out / f"w{i + 1}.json"
        rel.write_metrics_json(m, paths[f"w{i + 1}"])
    m = rel.measure(SAMPLE, WEEKS[0], reviews=REVIEWS, confidence=0.9)
    paths["w1b"] = out / "w1b.json"
    rel.write_metrics_json(m, paths["w1b"])
    return paths


def test_record_is_idempotent_and_windows_lists_them(artifacts, tmp_path):
    db = tmp_path / "s.duckdb"
    p1 = _cli("record", str(artifacts["w1"]), "--db", str(db), cwd=tmp_path)
    assert p1.returncode == 0 and p1.stderr == "", p1.stderr
    assert p1.stdout.startswith("recorded: window 2026-11-01T00:00Z .. 2026-11-05T00:00Z")
    again = _cli("record", str(artifacts["w1"]), "--db", str(db), cwd=tmp_path)
    assert again.returncode == 0 and again.stdout.startswith("already recorded:")
    with st.connect(db) as s:  # the same through the Python API
        assert rel.record_window(s, artifacts["w2"]).new
        assert rel.record_window(s, artifacts["w1b"]).new
        assert not rel.record_window(s, artifacts["w1b"]).new
    out = tmp_path / "windows.jsonl"
    ls = _cli("windows", "--db", str(db), "--json-out", str(out), cwd=tmp_path)
    assert ls.returncode == 0 and ls.stderr == "", ls.stderr
    assert "release windows (2)" in ls.stdout and "2026-11-05..2026-11-09" in ls.stdout
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["window_spec"] for r in rows] == list(WEEKS[:2])
    assert [r["measurements"] for r in rows] == [2, 1]
    assert all(r["stage"] == "all" and not r["synthetic"] for r in rows)
    w1b = json.loads(artifacts["w1b"].read_text())
    assert rows[0]["artifact_sha256"] == w1b["provenance"]["output"]["sha256"]  # the latest
    with st.connect(db, read_only=True) as s:
        n = s.sql("SELECT count(*) AS n FROM release_window_metrics")["n"][0]
        assert n == 3 * len(rel.GATE_METRICS)  # three artifacts, each recorded once


def test_metrics_record_flag_and_gate_decision_match_the_gate(artifacts, tmp_path):
    db = tmp_path / "s.duckdb"
    out = tmp_path / "m.json"
    proc = _cli("metrics", "--captures", str(SAMPLE), "--reviews", str(REVIEWS), "--window",
                WEEKS[2], "--out", str(out), "--record", "--db", str(db), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "recorded: window 2026-11-10T00:00Z .. 2026-11-15T00:00Z stage all" in proc.stdout
    doc = rel.load_artifact(out)
    point, strict = rel.check_gate(doc), rel.check_gate(doc, strict=True)
    with st.connect(db, read_only=True) as s:
        w = rel.stored_windows(s).row(0, named=True)
        assert w["gate_passed"] is point.passed and w["gate_passed_strict"] is strict.passed
        assert list(w["failed"]) == point.failed and list(w["failed_strict"]) == strict.failed
        assert w["captures_in_window"] == doc["provenance"]["population"]["captures"][
            "in_window"]
        metrics = s.sql("SELECT metric, value, threshold, passed FROM release_window_metrics "
                        "ORDER BY metric")
    by_gate = {r.metric: r for r in point.rows}
    for m in metrics.iter_rows(named=True):
        assert m["passed"] is by_gate[m["metric"]].passed
        assert m["threshold"] == by_gate[m["metric"]].threshold
        value = doc["metrics"][m["metric"]]["value"]
        assert m["value"] == (None if value is None else float(value))


def test_synthetic_is_refused_unless_allowed(tmp_path):
    db = tmp_path / "s.duckdb"
    syn = CAPTURES / "release_gate.synthetic.fail.json"
    proc = _cli("record", str(syn), "--db", str(db), cwd=tmp_path)
    assert proc.returncode == 3 and "synthetic" in proc.stderr
    with st.connect(db) as s:
        with pytest.raises(InputError, match="synthetic"):
            rel.record_window(s, syn)
        rel.record_window(s, syn, allow_synthetic=True)
        assert rel.stored_windows(s)["synthetic"].to_list() == [True]
        assert rel.stored_windows(s, include_synthetic=False).height == 0


def test_trend_reads_earlier_windows_of_the_stage_and_the_reported_one(artifacts):
    with st.connect(":memory:") as s:
        for name in ("w1", "w1b", "w3"):
            rel.record_window(s, artifacts[name])
        # w2 is reported but not stored: it counts, w3 (later) does not; w1's latest counts
        doc = rel.load_artifact(artifacts["w2"])
        trend = rc.release_trend(s, doc)
        assert trend["window"].unique(maintain_order=True).to_list() == list(WEEKS[:2])
        assert trend["metric"].unique(maintain_order=True).to_list() == list(rel.GATE_METRICS)
        assert trend.filter(trend["current"])["window"].unique().to_list() == [WEEKS[1]]
        w1b = rel.load_artifact(artifacts["w1b"])
        first = trend.filter((trend["window"] == WEEKS[0])
                             & (trend["metric"] == "known_top1")).row(0, named=True)
        assert first["artifact_sha256"] == w1b["provenance"]["output"]["sha256"]
        assert first["ci_low"] == pytest.approx(w1b["metrics"]["known_top1"]["ci_low"])
        assert first["threshold_value"] == 0.95
        # another stage's windows are not part of this stage's trend
        assert rc.release_trend(s, doc, stage="shadow")["window"].unique().to_list() == [
            WEEKS[1]]
        only = rc.release_trend(s, None, stage="shadow")
        assert only.height == 0
        # reporting the last stored window: the stored ones up to it
        last = rc.release_trend(s, rel.load_artifact(artifacts["w3"]))
        assert last["window"].n_unique() == 2  # w1 and w3 stored; w2 never recorded
        chart = rc.trend_chart(last)
        assert "<svg" in rc.chart_svg(chart)


def test_report_with_a_missing_store_is_not_found(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "rcaeval", "release", "report",
                           str(CAPTURES / "release_gate.synthetic.pass.json"),
                           "--allow-synthetic", "--db", str(tmp_path / "nope.duckdb"),
                           "--html", str(tmp_path / "r.html")],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 6 and "nope.duckdb" in proc.stderr
    assert not (tmp_path / "r.html").exists()


def test_report_on_a_store_older_than_the_windows_tables_says_migrate(tmp_path):
    from rcaeval.store import discover_migrations

    old = tmp_path / "migrations"
    old.mkdir()
    for m in discover_migrations():
        if m.version < 12:
            (old / m.filename).write_text(m.sql(), encoding="utf-8")
    db = tmp_path / "old.duckdb"
    st.connect(db, migrations_dir=old).close()
    proc = subprocess.run([sys.executable, "-m", "rcaeval", "release", "report",
                           str(CAPTURES / "release_gate.synthetic.pass.json"),
                           "--allow-synthetic", "--db", str(db),
                           "--html", str(tmp_path / "r.html")],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 3, proc.stderr
    assert "0012_release_windows.sql" in proc.stderr and "rcaeval db migrate" in proc.stderr
    assert not (tmp_path / "r.html").exists()


def test_trend_orders_overlapping_windows_and_names_what_it_leaves_out(tmp_path):
    """Defect: windows were sorted by start only (a reported 11-01..11-14 drawn left of a
    stored 11-01..11-07) and a contained 11-08..11-14 was dropped without a note. Windows
    that start before the reported one ends are drawn, ordered by start then end; later ones
    are named in a note."""
    specs = {"a": "2026-11-01..2026-11-07", "b": "2026-11-08..2026-11-14",
             "c": "2026-11-15..2026-11-21", "report": "2026-11-01..2026-11-14"}
    paths = {}
    for name, spec in specs.items():
        paths[name] = tmp_path / f"{name}.json"
        rel.write_metrics_json(rel.measure(SAMPLE, spec, reviews=REVIEWS), paths[name])
    with st.connect(":memory:") as s:
        for name in ("b", "c", "a"):      # recorded out of order
            rel.record_window(s, paths[name])
        doc = rel.load_artifact(paths["report"])
        trend = rc.release_trend(s, doc)
        order = trend["window"].unique(maintain_order=True).to_list()
        assert order == [specs["a"], specs["report"], specs["b"]]
        left = rc.release_trend_left_out(s, doc)
        assert left["window"].to_list() == [specs["c"]]
        assert rc.left_out_note(left) == (
            "1 stored window(s) not drawn: 2026-11-15..2026-11-21 (later than the reported "
            "window)")
        chart = rc.trend_chart(trend)
        import re

        axis_order = re.search(r'"sort": (\["2026[^]]*\])', json.dumps(chart.to_dict()))
        assert axis_order and json.loads(axis_order[1]) == order   # the x axis, in order
        assert "<svg" in rc.chart_svg(chart)


def test_windows_of_an_unknown_stage_is_exit_3_not_an_empty_list(artifacts, tmp_path):
    db = tmp_path / "s.duckdb"
    assert _cli("record", str(artifacts["w1"]), "--db", str(db), cwd=tmp_path).returncode == 0
    bad = _cli("windows", "--db", str(db), "--stage", "stagign", cwd=tmp_path)
    assert bad.returncode == 3, bad.stdout + bad.stderr
    assert "[stage]" in bad.stderr and "'stagign'" in bad.stderr
    good = _cli("windows", "--db", str(db), "--stage", "all", cwd=tmp_path)
    assert good.returncode == 0 and "(1)" in good.stdout, good.stdout
    with st.connect(db) as s, pytest.raises(InputError, match="stage must be one of"):
        rel.stored_windows(s, stage="stagign")
