"""Helpers of the importer tests: the real-format source files, a case dir to import into,
the CLI as a subprocess, and a snapshot of a dir to prove a failed import changed nothing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"
PANIC_CASE = REPO / "data" / "registry" / "cases" / "tikv-panic-restart-001"


def case_copy(tmp: Path) -> Path:
    """A writable copy of a sample case (case.yaml + incident/)."""
    dest = tmp / "case"
    shutil.copytree(PANIC_CASE, dest)
    return dest


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (and beside it: hidden temp dirs would show) by path."""
    return {str(p.relative_to(root.parent)): p.read_bytes()
            for p in sorted(root.parent.rglob("*")) if p.is_file()}


def rcaeval(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rcaeval", *args], capture_output=True,
                          text=True, timeout=120, check=False,
                          env={**os.environ, "COLUMNS": "200"})
