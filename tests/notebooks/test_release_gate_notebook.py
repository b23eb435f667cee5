"""notebooks/release_gate.ipynb through `rcaeval notebook release-gate` (papermill) on the
sample gate files: the decision at the top, every metric with threshold, interval and sample
size, the population by case type; a synthetic file is refused without --allow-synthetic."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from page_kit import assert_page_palette, banner, raw_numbers

REPO = Path(__file__).resolve().parents[2]
CAPTURES = REPO / "data" / "captures"

pytest.importorskip("vl_convert")
pytest.importorskip("papermill")


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    # the default store (no --db) is one that does not exist: no trend, whatever the checkout
    env = {**os.environ, "RCAEVAL_DB": str(REPO / "no-such-dir" / "rcaeval.duckdb")}
    return subprocess.run([sys.executable, "-m", "rcaeval", "notebook", "release-gate", *args],
                          capture_output=True, text=True, timeout=300, cwd=REPO, env=env)


def test_synthetic_refused_without_flag(tmp_path: Path) -> None:
    proc = _cli(str(CAPTURES / "release_gate.synthetic.pass.json"), "--out",
                str(tmp_path / "r.html"))
    assert proc.returncode == 3 and "synthetic" in proc.stderr
    assert not (tmp_path / "r.html").exists()


@pytest.mark.slow
def test_release_gate_notebook_fail_file(tmp_path: Path) -> None:
    out = tmp_path / "gate.html"
    proc = _cli(str(CAPTURES / "release_gate.synthetic.fail.json"), "--allow-synthetic",
                "--out", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stderr == "" and "gate: FAILED" in proc.stdout
    assert "trend: no store" in proc.stdout
    text = out.read_text("utf-8")
    head = text.index('class="rcaeval-banner"')
    assert text.index("FAILED", head) < text.index("Metrics against thresholds")
    decision, headline = banner(text)
    assert decision == "bad" and headline.startswith("release gate FAILED: ")
    assert raw_numbers(text) == []  # values by kind: rates 0.968, counts 1, booleans true
    assert "<td>typedb_outage_runtime_activation_success</td><td>false</td>" in text
    assert "<td>activation_p95_seconds</td><td>45</td>" in text  # 45.0 in the artifact
    assert_page_palette(text)
    for metric in ("known_top1", "false_novel_rate", "destructive_tool_executions"):
        assert f"<td>{metric}</td>" in text
    assert "Captures by case type" in text and text.count("<svg") >= 2
    assert "<th>ci_low</th>" in text and "<th>sample_size</th>" in text
    assert not re.search(r"<script[^>]*\bsrc=[\"']https?://", text, re.I)


def _record_windows(db: Path, out: Path) -> Path:
    """Two consecutive windows of the sample data measured and recorded in ``db`` through
    `rcaeval release metrics --record`; returns the second window's artifact."""
    for i, spec in enumerate(("2026-11-01..2026-11-07", "2026-11-08..2026-11-14")):
        proc = subprocess.run(
            [sys.executable, "-m", "rcaeval", "release", "metrics", "--captures",
             str(CAPTURES / "sample-window.parquet"), "--reviews",
             str(CAPTURES / "reviews.jsonl"), "--window", spec, "--out",
             str(out / f"w{i + 1}.json"), "--record", "--db", str(db)],
            capture_output=True, text=True, timeout=300, cwd=out)
        assert proc.returncode == 0 and proc.stderr == "", proc.stderr
        assert "recorded: window" in proc.stdout
    return out / "w2.json"


@pytest.mark.slow
def test_release_report_shows_the_trend_over_stored_windows(tmp_path: Path) -> None:
    db = tmp_path / "store.duckdb"
    current = _record_windows(db, tmp_path)
    out = tmp_path / "report.html"
    proc = subprocess.run([sys.executable, "-m", "rcaeval", "release", "report", str(current),
                           "--db", str(db), "--html", str(out)],
                          capture_output=True, text=True, timeout=300, cwd=REPO)
    assert proc.returncode == 0 and proc.stderr == "", proc.stdout + proc.stderr
    assert f"trend: 2 window(s) from {db}" in proc.stdout
    text = out.read_text("utf-8")
    trend = text.index("Trend across release windows")
    assert text.index("Metrics against thresholds") < trend < text.index("Population")
    assert "2 window(s) of stage <code>all</code>" in text
    for spec in ("2026-11-01..2026-11-07", "2026-11-08..2026-11-14"):
        assert f"<td>{spec}</td>" in text
    assert "<td>this report</td>" in text
    chart = text[trend:text.index("Population")]
    assert "Gate metrics over release windows" in chart and chart.count("<svg") == 1
    for metric in ("known_top1", "activation_p95_seconds"):
        assert metric in chart
    assert text.count("<svg") >= 3
    # the same command under its notebook name writes the same report
    again = tmp_path / "again.html"
    proc = _cli(str(current), "--db", str(db), "--out", str(again))
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert again.read_text("utf-8").count("<svg") == text.count("<svg")


W1, W2 = "2026-11-01..2026-11-07", "2026-11-08..2026-11-14"


def test_release_report_arguments_are_checked_before_anything_runs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from rcaeval.cli import main

    parquet = str(CAPTURES / "sample-window.parquet")
    out = str(tmp_path / "gate.html")
    for args, code, said in (
        ((str(CAPTURES / "release_gate.synthetic.pass.json"), "--captures", parquet,
          "--window", W1), 3, "not both"),
        (("--captures", parquet), 3, "window"),
        ((), 3, "metrics file"),
        (("--captures", parquet, "--window", W1, "--db", str(tmp_path / "none.duckdb")), 6,
         "does not exist"),
    ):
        assert main(["release", "report", *args, "--html", out]) == code, args
        assert said in capsys.readouterr().err, args
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_release_report_measures_captures_and_window(tmp_path: Path) -> None:
    import rcaeval.release as rel

    db = tmp_path / "store.duckdb"
    proc = subprocess.run(
        [sys.executable, "-m", "rcaeval", "release", "metrics", "--captures",
         str(CAPTURES / "sample-window.parquet"), "--reviews", str(CAPTURES / "reviews.jsonl"),
         "--window", W1, "--out", str(tmp_path / "w1.json"), "--record", "--db", str(db)],
        capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    reviews = tmp_path / "reviews.jsonl"
    good = (CAPTURES / "reviews.jsonl").read_bytes()
    reviews.write_bytes(good + b"{nope\n")
    out = tmp_path / "gate.html"
    proc = subprocess.run(
        [sys.executable, "-m", "rcaeval", "release", "report", "--captures",
         str(CAPTURES / "sample-window.parquet"), "--window", W2, "--reviews", str(reviews),
         "--db", str(db), "--html", str(out)],
        capture_output=True, text=True, timeout=300, cwd=REPO)
    # the invalid line is named and left out; the report is still written (exit 3)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert proc.stderr.count("invalid:") == 1
    bad_line = len(good.splitlines()) + 1
    assert f"reviews.jsonl:{bad_line}" in proc.stderr
    artifact = tmp_path / "gate.metrics.json"
    assert f"measured: {artifact}" in proc.stdout
    assert f"trend: 2 window(s) from {db}" in proc.stdout
    doc = rel.load_artifact(artifact)
    expect = rel.measure(CAPTURES / "sample-window.parquet", W2,
                         reviews=CAPTURES / "reviews.jsonl").document()
    assert doc["metrics"] == expect["metrics"]
    assert doc["provenance"]["problems"]["count"] == 1
    gate = rel.check_gate(doc)
    text = out.read_text("utf-8")
    head = text.index('class="rcaeval-banner"')
    assert text.index("PASSED" if gate.passed else "FAILED", head) < text.index(
        "Metrics against thresholds")
    assert "gate.metrics.json" in text[head:text.index("Metrics against thresholds")]
    for spec in (W1, W2):
        assert f"<td>{spec}</td>" in text
    assert text.count("<svg") >= 3
    # the rest of the confidence breakdown: the self-check's Brier, declared source groups
    assert "declared independent source groups the cited live evidence does not show" in text


@pytest.mark.slow
def test_release_gate_notebook_parameters_captures_and_window(tmp_path: Path) -> None:
    """The analyst's path in JupyterLab: the notebook's own captures + window parameters."""
    import rcaeval.release as rel
    from rcaeval._paths import notebooks_dir
    from rcaeval.report._notebook import RELEASE_NOTEBOOK_NAME, execute_to_html

    params = {"metrics": None, "captures": str(CAPTURES / "sample-window.parquet"),
              "window": W2, "reviews": str(CAPTURES / "reviews.jsonl"),
              "allow_synthetic": False}
    _, html, _ = execute_to_html(notebooks_dir() / RELEASE_NOTEBOOK_NAME, tmp_path / "nb.html",
                                 params)
    gate = rel.check_gate(rel.measure(CAPTURES / "sample-window.parquet", W2,
                                      reviews=CAPTURES / "reviews.jsonl").document())
    text = html.read_text("utf-8")
    head = text[text.index('class="rcaeval-banner"'):text.index("Metrics against thresholds")]
    assert ("PASSED" if gate.passed else "FAILED") in head
    assert "measured here (0 invalid capture/review line(s) left out)" in head
    assert "sample-window.parquet" in head
    for row in gate.rows:
        assert f"<td>{row.metric}</td>" in text
    assert "Captures by case type" in text
    # measured values are unrounded floats (0.9682...) and a boolean metric is 1.0: shown
    # rounded, and as true
    assert raw_numbers(text) == []
    assert "<td>typedb_outage_runtime_activation_success</td><td>true</td>" in text


@pytest.mark.slow
def test_release_report_orders_overlapping_windows_and_names_the_left_out(
        tmp_path: Path) -> None:
    """The report of 11-01..11-14 over stored 11-01..11-07 and 11-08..11-14 draws all three,
    by start then end; a window stored before it (recorded first) but later is named."""
    db = tmp_path / "store.duckdb"
    _record_windows(db, tmp_path)
    later = subprocess.run(
        [sys.executable, "-m", "rcaeval", "release", "metrics", "--captures",
         str(CAPTURES / "sample-window.parquet"), "--window", "2026-11-15..2026-11-21",
         "--out", str(tmp_path / "later.json"), "--record", "--db", str(db)],
        capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert later.returncode == 0, later.stderr
    whole = tmp_path / "whole.json"
    proc = subprocess.run(
        [sys.executable, "-m", "rcaeval", "release", "metrics", "--captures",
         str(CAPTURES / "sample-window.parquet"), "--reviews", str(CAPTURES / "reviews.jsonl"),
         "--window", "2026-11-01..2026-11-14", "--out", str(whole)],
        capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "report.html"
    proc = subprocess.run([sys.executable, "-m", "rcaeval", "release", "report", str(whole),
                           "--db", str(db), "--html", str(out)],
                          capture_output=True, text=True, timeout=300, cwd=REPO)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    note = "1 stored window(s) not drawn: 2026-11-15..2026-11-21 (later than the reported window)"
    assert f"trend: 3 window(s) from {db}; {note}" in proc.stdout
    text = out.read_text("utf-8")
    table = text[text.index("Trend across release windows"):text.index("Population")]
    cells = re.findall(r"<td>(2026-11-[0-9]{2}\.\.2026-11-[0-9]{2})</td>", table)
    assert cells == ["2026-11-01..2026-11-07", "2026-11-01..2026-11-14",
                     "2026-11-08..2026-11-14"]
    assert note in table


@pytest.mark.slow
def test_release_gate_page_shows_knowledge_diagnostics_and_the_shadow_comparison(
        tmp_path: Path) -> None:
    """The sample's capture/2 fields on the page: the package that served the window, probe
    metrics per template, the reliability curve, and the shadow window compared with it."""
    import rcaeval.release as rel
    from rcaeval.report import render_release_gate_notebook

    win = "2026-11-01..2026-11-07"
    a, s = tmp_path / "A.json", tmp_path / "S.json"
    rel.write_metrics_json(rel.measure(CAPTURES / "sample-window.parquet", win,
                                       reviews=CAPTURES / "reviews.jsonl"), a)
    rel.write_metrics_json(rel.measure(CAPTURES / "shadow", win), s)
    html = render_release_gate_notebook(a, shadow=s, db=None,
                                        out=tmp_path / "gate.html").html
    text = html.read_text("utf-8")
    assert "<td>kp-2026.11.1</td>" in text and "<td>runtime_snapshot</td>" in text
    assert "<td>probe-oom_kill</td>" in text
    assert "Reliability: accuracy per confidence bin" in text
    assert "Brier score of the ranker" in text
    cmp = rel.compare(rel.load_artifact(a), rel.load_artifact(s))
    assert f"decision: {cmp.decision.upper()}" in text
    assert "kp-2026.11.2" in text
    assert raw_numbers(text) == []
    assert_page_palette(text)
