"""One palette across every report page: every chart rcaeval.charts builds (and so every chart
of the run page, the regression report, explore and the release gate) colours verdicts with
VERDICT_PALETTE and the "baseline vs this run" pair with BASELINE_COLOR / RUN_COLOR, never
with Altair's default scheme; the notebooks build no chart or colour of their own; the run
page's CSS is the palette's. The rendered pages' SVG colours are checked by
``page_kit.assert_page_palette`` in the page tests."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import rcaeval.charts as rc
from rcaeval.charts._palette import normalize_color

pytest.importorskip("altair")

REPO = Path(__file__).resolve().parents[2]
HEX = re.compile(r"#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b")


def _walk(node: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(node, dict):
        for k, v in node.items():
            yield k, v
            yield from _walk(v)
    elif isinstance(node, list):
        for v in node:
            yield from _walk(v)


def spec_colors(spec: dict[str, Any]) -> tuple[set[str], list[dict[str, Any]]]:
    """Every literal colour of a chart spec, and every colour encoding (field-driven)."""
    colors: set[str] = set()
    encodings: list[dict[str, Any]] = []
    for key, value in _walk(spec):
        if key in ("color", "stroke", "fill") and isinstance(value, str) and value.startswith("#"):
            colors.add(normalize_color(value))
        if key in ("color", "stroke", "fill") and isinstance(value, dict):
            if "field" in value:
                encodings.append(value)
            if isinstance(value.get("value"), str):
                colors.add(normalize_color(value["value"]))
        if key == "range" and isinstance(value, list):
            colors.update(normalize_color(v) for v in value if isinstance(v, str))
        if key == "condition" and isinstance(value, dict) and isinstance(value.get("value"), str):
            colors.add(normalize_color(value["value"]))
    return colors, encodings


def _assert_palette(chart: Any, name: str) -> dict[str, Any]:
    spec = chart.to_dict()
    colors, encodings = spec_colors(spec)
    assert colors, name
    assert colors <= rc.palette_colors(), (name, colors - rc.palette_colors())
    for enc in encodings:  # no field-driven colour falls back to Altair's default scheme
        scale = enc.get("scale") or {}
        assert scale.get("range") and scale.get("domain"), (name, enc)
        for dom, col in zip(scale["domain"], scale["range"], strict=True):
            if dom in rc.VERDICT_PALETTE:
                assert col == rc.VERDICT_PALETTE[dom], (name, dom, col)
    return spec


def _scale_of(spec: dict[str, Any]) -> dict[str, str]:
    _, encodings = spec_colors(spec)
    assert encodings
    scale = encodings[0]["scale"]
    return dict(zip(scale["domain"], scale["range"], strict=True))


def _trend() -> pl.DataFrame:
    import rcaeval.release as rel
    import rcaeval.store as st

    doc = rel.load_artifact(REPO / "data" / "captures" / "release_gate.synthetic.fail.json")
    with st.connect(":memory:") as s:
        return rc.release_trend(s, doc, allow_synthetic=True)


def every_chart() -> dict[str, Any]:
    """One instance of every chart rcaeval.charts builds, on small frames."""
    verdicts = pl.DataFrame({"case_type": ["known", "known", "novel"],
                             "agent_name": ["a", "b", "a"],
                             "verdict": ["pass", "fail", "invalid"], "cases": [2, 1, 1]})
    scores = pl.DataFrame({"case_id": ["c1", "c2", "c1", "c2"], "score": [90.0, 40.0, 80.0, 20.0],
                           "verdict": ["pass", "fail", "pass", "invalid"],
                           "run_id": ["run-b", "run-b", "run-a", "run-a"],
                           "series": ["this run", "this run", "baseline", "baseline"]})
    many = pl.DataFrame({"case_id": [f"c{i}" for i in range(70)] * 2,
                         "score": [float(i) for i in range(140)],
                         "series": ["this run"] * 70 + ["baseline"] * 70})
    rates = pl.DataFrame({"bucket": ["contract", "diagnosis"] * 2, "agent_name": ["a", "a", "b", "b"],
                          "cases": [2, 2, 2, 2], "passed": [2, 1, 0, 1],
                          "pass_rate": [1.0, 0.5, 0.0, 0.5]})
    gate_rows = pl.DataFrame({"metric": ["known_top1", "false_novel_rate"], "value": [0.96, 0.03],
                              "threshold": [">= 0.95", "<= 0.02"], "passed": [True, False],
                              "sample_size": [100, 100], "ci_low": [0.9, 0.01],
                              "ci_high": [0.99, 0.08]})
    return {
        "verdict_chart": rc.verdict_chart(verdicts),
        "verdict_chart_by_agent": rc.verdict_chart(verdicts, "agent_name"),
        "score_chart_by_verdict": rc.score_chart(scores, "verdict"),
        "score_chart_baseline": rc.score_chart(scores, compare=("baseline", "this run")),
        "score_chart_runs": rc.score_chart(scores, "run_id", compare=("run-a", "run-b")),
        "score_chart_distribution": rc.score_chart(many),
        "bucket_chart": rc.bucket_chart(rates),
        "bucket_chart_by_agent": rc.bucket_chart(rates, "agent_name"),
        "gate_rates_chart": rc.gate_rates_chart(gate_rows),
        "captures_chart": rc.captures_chart(pl.DataFrame({"case_type": ["known"],
                                                          "captures": [3]})),
        "trend_chart": rc.trend_chart(_trend()),
        "reliability_chart": rc.reliability_chart(pl.DataFrame(
            {"bin": [8, 9], "n": [3, 5], "correct": [2, 5], "mean_probability": [0.85, 0.95],
             "accuracy": [0.67, 1.0], "accuracy_ci_low": [0.2, 0.57],
             "accuracy_ci_high": [0.94, 1.0]})),
        "probe_chart": rc.probe_chart(pl.DataFrame(
            {"probe_template_id": ["p1"], "executions": [4], "support_rate": [0.5],
             "support_rate_ci_low": [0.15], "support_rate_ci_high": [0.85],
             "contribution_rate": [0.25], "contribution_rate_ci_low": [0.05],
             "contribution_rate_ci_high": [0.7]})),
    }


def test_every_chart_spec_draws_from_the_palette() -> None:
    charts = every_chart()
    specs = {name: _assert_palette(chart, name) for name, chart in charts.items()}
    # verdict colours: the same in the stacked bars and the score bars (fail was grey there)
    assert _scale_of(specs["verdict_chart"]) == dict(rc.VERDICT_PALETTE)
    assert _scale_of(specs["score_chart_by_verdict"]) == dict(rc.VERDICT_PALETTE)
    # baseline vs this run: the regression report's pair and explore's run a / run b
    assert _scale_of(specs["score_chart_baseline"]) == {"baseline": rc.BASELINE_COLOR,
                                                        "this run": rc.RUN_COLOR}
    assert _scale_of(specs["score_chart_runs"]) == {"run-a": rc.BASELINE_COLOR,
                                                    "run-b": rc.RUN_COLOR}
    gate = _scale_of(specs["gate_rates_chart"])
    assert gate == {"pass": rc.VERDICT_PALETTE["pass"], "fail": rc.VERDICT_PALETTE["fail"]}


def test_notebooks_build_no_chart_or_colour_of_their_own() -> None:
    for path in sorted((REPO / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text("utf-8"))["cells"]
        code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
        assert "import altair" not in code and "alt." not in code, path.name
        assert HEX.findall(code) == [], path.name


def test_run_page_css_is_the_palette() -> None:
    from rcaeval.report._runpage import DRILLDOWN_CSS

    for verdict, color in rc.VERDICT_PALETTE.items():
        assert f".v-{verdict} {{ color: {color}; }}" in DRILLDOWN_CSS
    state_colors = {normalize_color(c) for c in re.findall(r"\.v-\w+ \{ color: (#\w+); \}",
                                                           DRILLDOWN_CSS)}
    assert len(state_colors) >= len(rc.VERDICT_PALETTE)
    assert state_colors <= rc.palette_colors()


def test_banner_uses_the_decision_colours() -> None:
    ok = rc.banner_html(True, "no regression", ["13 cases"])
    bad = rc.banner_html(False, "REGRESSION", "eligible pass count 13 → 0")
    none = rc.banner_html(None, "no baseline", [])
    assert rc.VERDICT_PALETTE["pass"] in ok and 'data-decision="ok"' in ok
    assert rc.VERDICT_PALETTE["fail"] in bad and 'data-decision="bad"' in bad
    assert rc.BASELINE_COLOR in none and 'data-decision="none"' in none
    assert "13 → 0" in bad and "<script" not in bad
    assert "&lt;b&gt;" in rc.banner_html(True, "<b>", [])
