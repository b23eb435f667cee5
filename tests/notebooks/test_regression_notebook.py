"""The regression report notebook, rendered for real through the CLI (papermill + nbconvert):
a shallow run regresses against the promoted thorough run, the HTML carries inline SVG charts
and no remote scripts, and --fail-on-regression exits 4."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from page_kit import assert_page_palette, banner, raw_numbers
from rcaeval.report._notebook import RESULT_MIME, default_notebook_path, read_result

pytest.importorskip("vl_convert")
pytest.importorskip("papermill")

REPO = Path(__file__).resolve().parents[2]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rcaeval", "notebook", "regression", *args],
                          capture_output=True, text=True, timeout=180, cwd=REPO)


def test_notebook_has_parameters_cell() -> None:
    nb = nbformat.read(default_notebook_path(), as_version=4)
    tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1
    for name in ("db", "run_id", "registry", "baseline_run"):
        assert re.search(rf"^{name} = ", tagged[0].source, re.M)
    assert "regressed = " in nb.cells[-1].source and "publish_result" in nb.cells[-1].source


@pytest.mark.slow
def test_render_regression_fails_gate(store_with_baseline: tuple[Path, Path],
                                      tmp_path: Path) -> None:
    db, registry = store_with_baseline
    html = tmp_path / "out" / "shallow.html"
    proc = _cli("rec-shallow", "--db", str(db), "--registry", str(registry), "--out", str(html),
                "--fail-on-regression")
    assert proc.returncode == 4, proc.stdout + proc.stderr
    assert "regressed: 13" in proc.stdout
    assert html.is_file()
    text = html.read_text("utf-8")
    assert text.count("<svg") >= 3  # every chart inline
    assert "cdn.jsdelivr" not in text
    assert not re.search(r"<script[^>]*\bsrc=[\"']https?://", text, re.I)
    assert "vega-embed" not in text
    assert "tikv-panic-restart-001" in text  # a regressed case
    assert "REGRESSION" in text
    # Outputs only: no code cells by default, readable tables, nothing on stderr (no kernel
    # transport warning).
    assert 'jp-InputArea-editor"' not in text
    assert "shape:" not in text and "<th>str</th>" not in text
    assert '<table class="rcaeval-table">' in text
    assert "WARNING" not in proc.stderr and "Kernel is running" not in proc.stderr

    ipynb = html.with_suffix(".ipynb")
    nb = nbformat.read(ipynb, as_version=4)
    result = read_result(nb)
    assert result is not None and result["regressed"] == 13 and result["gate_failed"]
    # The kernel ran on this interpreter's environment (the venv), not some other python.
    assert Path(result["kernel_python"]).resolve().parent == Path(sys.executable).resolve().parent
    assert RESULT_MIME not in text  # the machine-readable payload is not rendered
    # the decision first, no raw cell output at the end, rounded numbers, the palette
    assert banner(text) == ("bad", "REGRESSION: eligible pass count 13 → 0")
    assert "regressed = " not in text and "13 regressed (13 gating)" in text
    assert raw_numbers(text) == []
    assert "<td class=\"num\">100.00</td>" in text and "<td>true</td>" in text  # gating
    assert_page_palette(text)


@pytest.mark.slow
def test_render_baseline_itself_passes_and_no_baseline_is_said(
        store_with_baseline: tuple[Path, Path], tmp_path: Path) -> None:
    db, registry = store_with_baseline
    ok = _cli("rec-thorough", "--db", str(db), "--registry", str(registry),
              "--out", str(tmp_path / "t.html"), "--fail-on-regression", "--show-code")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "regressed: 0" in ok.stdout
    assert 'jp-InputArea-editor"' in (tmp_path / "t.html").read_text("utf-8")  # --show-code
    none = _cli("rec-crashed", "--db", str(db), "--registry", str(registry),
                "--out", str(tmp_path / "c.html"), "--fail-on-regression")
    assert none.returncode == 0, none.stdout + none.stderr
    assert "no baseline comparison" in (tmp_path / "c.html").read_text("utf-8")
    assert banner((tmp_path / "t.html").read_text("utf-8"))[0] == "ok"
    assert banner((tmp_path / "c.html").read_text("utf-8")) == ("none", "no baseline comparison")
    missing = _cli("no-such-run", "--db", str(db), "--out", str(tmp_path / "m.html"))
    assert missing.returncode == 6
