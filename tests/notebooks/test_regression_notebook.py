"""The regression report notebook, rendered for real through the CLI (papermill + nbconvert):
a shallow run regresses against the promoted thorough run, the HTML carries inline SVG charts
and no remote scripts, and --fail-on-regression exits 4."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

import rcaeval.store as st
from rcaeval.judge import judge_audit
from rcaeval.report import diff_against_baseline, promote_baseline
from rcaeval.report._notebook import RESULT_MIME, default_notebook_path, read_result

pytest.importorskip("vl_convert")
pytest.importorskip("papermill")

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "data"


@pytest.fixture(scope="module")
def store_with_baseline(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("nbstore")
    registry = tmp / "registry"
    shutil.copytree(DATA / "registry", registry)
    suite = yaml.safe_load((DATA / "registry" / "suites" / "smoke.yaml").read_text("utf-8"))
    db = tmp / "rcaeval.duckdb"
    with st.connect(db) as s:
        judge_audit(s, DATA / "recorded", DATA / "registry", out_dir=tmp / "audits", workers=1)
        # Judged from an audit dir, the runs record no suite (and no time); make two of them
        # smoke-suite runs so one can be the baseline of the other.
        s.con.execute(
            "UPDATE eval_runs SET suite_id = 'smoke', suite_version = ?, "
            "finished_at = coalesce(finished_at, TIMESTAMPTZ '2026-11-01 00:00:00+00') "
            "WHERE run_id IN ('rec-thorough', 'rec-shallow')",
            [str(suite["version"])],
        )
        promote_baseline(s, "rec-thorough", registry, audit_root=DATA / "recorded", force=True)
        assert diff_against_baseline(s, "rec-shallow", registry).gate_failed
    return db, registry


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rcaeval", "notebook", "regression", *args],
                          capture_output=True, text=True, timeout=180, cwd=REPO)


def test_notebook_has_parameters_cell() -> None:
    nb = nbformat.read(default_notebook_path(), as_version=4)
    tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1
    for name in ("db", "run_id", "registry", "baseline_run"):
        assert re.search(rf"^{name} = ", tagged[0].source, re.M)
    assert "regressed = " in nb.cells[-1].source


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

    ipynb = html.with_suffix(".ipynb")
    nb = nbformat.read(ipynb, as_version=4)
    result = read_result(nb)
    assert result is not None and result["regressed"] == 13 and result["gate_failed"]
    # The kernel ran on this interpreter's environment (the venv), not some other python.
    assert Path(result["kernel_python"]).resolve().parent == Path(sys.executable).resolve().parent
    assert RESULT_MIME not in text  # the machine-readable payload is not rendered


@pytest.mark.slow
def test_render_baseline_itself_passes_and_no_baseline_is_said(
        store_with_baseline: tuple[Path, Path], tmp_path: Path) -> None:
    db, registry = store_with_baseline
    ok = _cli("rec-thorough", "--db", str(db), "--registry", str(registry),
              "--out", str(tmp_path / "t.html"), "--fail-on-regression", "--no-input")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "regressed: 0" in ok.stdout
    none = _cli("rec-crashed", "--db", str(db), "--registry", str(registry),
                "--out", str(tmp_path / "c.html"), "--fail-on-regression")
    assert none.returncode == 0, none.stdout + none.stderr
    assert "no baseline comparison" in (tmp_path / "c.html").read_text("utf-8")
    missing = _cli("no-such-run", "--db", str(db), "--out", str(tmp_path / "m.html"))
    assert missing.returncode == 6
