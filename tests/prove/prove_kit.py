"""Helpers of the case-proof tests: a writable copy of the shipped registry and edits."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
REGISTRY = REPO / "data" / "registry"


def registry_copy(dest: Path) -> Path:
    """A writable copy of the shipped sample registry."""
    shutil.copytree(REGISTRY, dest)
    return dest


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not found in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def make_unreachable(root: Path, case_id: str = "disk-full-tikv-001") -> str:
    """Point one critical-evidence check of ``case_id`` at a file no tool writes; returns the
    check id."""
    edit(root / "cases" / case_id / "judge.yaml", "file: component_health.json",
         "file: operator_notes.json")
    return "store_degraded"


def rcaeval(*args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    """The CLI as a real subprocess (a wide terminal, so table cells do not wrap)."""
    return subprocess.run([sys.executable, "-m", "rcaeval", *args], capture_output=True,
                          text=True, timeout=timeout, check=False,
                          env={**os.environ, "COLUMNS": "220"})
