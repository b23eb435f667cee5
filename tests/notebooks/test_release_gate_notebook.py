"""notebooks/release_gate.ipynb through `rcaeval notebook release-gate` (papermill) on the
sample gate files: the decision at the top, every metric with threshold, interval and sample
size, the population by case type; a synthetic file is refused without --allow-synthetic."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CAPTURES = REPO / "data" / "captures"

pytest.importorskip("vl_convert")
pytest.importorskip("papermill")


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rcaeval", "notebook", "release-gate", *args],
                          capture_output=True, text=True, timeout=300, cwd=REPO)


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
    text = out.read_text("utf-8")
    head = text.index("Gate:")
    assert text.index("FAILED", head) < text.index("Metrics against thresholds")
    for metric in ("known_top1", "false_novel_rate", "destructive_tool_executions"):
        assert f"<td>{metric}</td>" in text
    assert "Captures by case type" in text and text.count("<svg") >= 2
    assert "<th>ci_low</th>" in text and "<th>sample_size</th>" in text
    assert not re.search(r"<script[^>]*\bsrc=[\"']https?://", text, re.I)
