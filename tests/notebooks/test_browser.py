"""Every rendered report (run page, regression report, explore, release gate) opened in headless Chromium (Debian's `chromium`, installed by
.ci/run) through the DevTools protocol: the charts draw (SVG with a non-zero size), every
drill-down link resolves to an element id, no console error, and nothing is requested from
the network. Screenshots of the first screen of each report go to a temporary dir, or to
docs/img/ (the README's pictures) with RCAEVAL_UPDATE_SCREENSHOTS=1."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from cdp_kit import chromium_path, inspect_page
from rcaeval.report import (
    render_explore_notebook,
    render_regression_notebook,
    render_release_gate_notebook,
    render_run_page,
)

REPO = Path(__file__).resolve().parents[2]

pytest.importorskip("vl_convert")
pytest.importorskip("papermill")
pytest.importorskip("websockets", reason="the browser test drives Chromium with websockets")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(chromium_path() is None,
                       reason="chromium is not installed (CI installs it: apt-get install -y "
                              "chromium in .ci/run)"),
]


def _two_recorded_windows(out: Path) -> Path:
    """Two windows of the sample captures measured and recorded in ``out/s.duckdb``; returns
    the second window's metrics file (the report's trend then has both)."""
    import rcaeval.release as rel
    import rcaeval.store as st

    captures = REPO / "data" / "captures"
    out.mkdir()
    with st.connect(out / "s.duckdb") as s:
        for name, spec in (("w1", "2026-11-01..2026-11-07"), ("w2", "2026-11-08..2026-11-14")):
            m = rel.measure(captures / "sample-window.parquet", spec,
                            reviews=captures / "reviews.jsonl")
            rel.write_metrics_json(m, out / f"{name}.json")
            rel.record_window(s, out / f"{name}.json")
    # the shadow package's measurement of the second window (the page compares the two)
    rel.write_metrics_json(rel.measure(captures / "shadow", "2026-11-08..2026-11-14"),
                           out / "shadow.json")
    return out / "w2.json"


@pytest.mark.timeout(900)
def test_reports_draw_in_chromium(store_with_baseline: tuple[Path, Path],
                                  tmp_path: Path) -> None:
    db, registry = store_with_baseline
    pages = {
        "run_page": render_run_page("rec-shallow", db=db, out=tmp_path / "run.html").html,
        "regression_report": render_regression_notebook(
            "rec-shallow", db=db, registry=registry, out=tmp_path / "regression.html").html,
        "explore": render_explore_notebook(db=db, run_a="rec-thorough", run_b="rec-shallow",
                                           out=tmp_path / "explore.html")[0],
        "release_gate": render_release_gate_notebook(
            _two_recorded_windows(tmp_path / "windows"), db=tmp_path / "windows" / "s.duckdb",
            shadow=tmp_path / "windows" / "shadow.json",
            out=tmp_path / "release_gate.html").html,
    }
    # release gate: rates with intervals, the trend over the two stored windows, population,
    # probe templates and the reliability curve
    min_charts = {"run_page": 3, "regression_report": 3, "explore": 3, "release_gate": 5}
    shots = REPO / "docs" / "img" if os.environ.get("RCAEVAL_UPDATE_SCREENSHOTS") \
        else tmp_path / "img"
    shots.mkdir(parents=True, exist_ok=True)
    for name, html in pages.items():
        profile = tmp_path / f"profile-{name}"
        profile.mkdir()
        report = inspect_page(html, profile)
        assert report.svgs >= min_charts[name] and report.drawn == report.svgs, (name, report)
        assert report.console_errors == [], (name, report.console_errors)
        remote = [u for u in report.requests if not u.startswith(("file:", "data:"))]
        assert remote == [], (name, remote)
        assert report.unresolved == [], (name, report.unresolved)
        if name == "run_page":
            assert report.links == 13
        assert report.screenshot.startswith(b"\x89PNG")
        (shots / f"{name}.png").write_bytes(report.screenshot)
        shutil.rmtree(profile, ignore_errors=True)
