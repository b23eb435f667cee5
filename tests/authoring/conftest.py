from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
SAMPLE_REGISTRY = REPO / "data" / "registry"
RECORDED = REPO / "data" / "recorded"
PANIC_CASE = "tikv-panic-restart-001"


def rcaeval(*args: str, stdin: str | None = None,
            cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m rcaeval ARGS`` in a real subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "rcaeval", *args], input=stdin, capture_output=True, text=True,
        timeout=180, env={**os.environ, "COLUMNS": "200"}, check=False, cwd=cwd)


@pytest.fixture()
def sample_copy(tmp_path: Path) -> Path:
    """A writable registry holding one sample case (tikv-panic-restart-001) and a suite of
    it: validate judges only that case's detector examples."""
    dest = tmp_path / "registry"
    shutil.copytree(SAMPLE_REGISTRY / "cases" / PANIC_CASE, dest / "cases" / PANIC_CASE)
    suite = yaml.safe_load((SAMPLE_REGISTRY / "suites" / "smoke.yaml").read_text("utf-8"))
    suite["cases"] = [c for c in suite["cases"] if c["id"] == PANIC_CASE]
    (dest / "suites").mkdir()
    (dest / "suites" / "smoke.yaml").write_text(yaml.safe_dump(suite, sort_keys=False),
                                                encoding="utf-8")
    return dest
