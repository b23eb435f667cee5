from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

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
    """A writable copy of the sample registry."""
    dest = tmp_path / "registry"
    shutil.copytree(SAMPLE_REGISTRY, dest)
    return dest
