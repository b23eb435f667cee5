"""Helpers for the label tests: the shipped sample labels, the CLI as a subprocess, and sheets
written row by row."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SAMPLE_LABELS = REPO / "data" / "recorded" / "labels.csv"
SHEET_COLUMNS = ["run_id", "case_id", "verdict", "root_cause_correct", "evidence_adequate",
                 "unsafe_advice", "overrides", "labeller", "labelled_at", "notes"]


def cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rcaeval", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=REPO)


def write_sheet(path: Path, rows: list[dict[str, Any]],
                columns: list[str] | None = None) -> Path:
    cols = columns or SHEET_COLUMNS
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=cols, lineterminator="\n", extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({c: r.get(c, "") for c in cols})
    return path


def label(run_id: str, case_id: str, **fields: Any) -> dict[str, Any]:
    return {"run_id": run_id, "case_id": case_id, "labeller": "ann", **fields}
