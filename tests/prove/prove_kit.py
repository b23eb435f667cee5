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


def keep_only(root: Path, case_id: str) -> None:
    """Drop every case but ``case_id`` from a registry copy (and from its suites)."""
    import yaml

    for d in (root / "cases").iterdir():
        if d.name != case_id:
            shutil.rmtree(d)
    for suite in (root / "suites").glob("*.yaml"):
        doc = yaml.safe_load(suite.read_text())
        doc["cases"] = [c for c in doc["cases"] if c["id"] == case_id]
        suite.write_text(yaml.safe_dump(doc, sort_keys=False))
    shutil.rmtree(root / "baselines", ignore_errors=True)
