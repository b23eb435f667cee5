"""Integers a registry field cannot hold: one past the signed 64-bit range (``rules_hash``
cannot serialise it, a BIGINT column cannot store it) or past the 32-bit column of
``time_window.tolerance_s`` / ``efficiency.max_steps``. Each is a registry problem naming the
file, line and field: `validate` exits 3, and `judge` judges that case ``invalid`` and every
other case normally (it used to exit 5 with a traceback before judging anything)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rcaeval.registry import load_registry

REPO = Path(__file__).resolve().parents[2]
CASE = "disk-full-tikv-001"


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RCAEVAL_")}
    return subprocess.run([sys.executable, "-m", "rcaeval", *args], capture_output=True,
                          text=True, timeout=300, cwd=cwd, env=env)


def _registry(tmp_path: Path, file: str, extra: str) -> Path:
    root = tmp_path / "registry"
    shutil.copytree(REPO / "data" / "registry", root)
    target = root / "cases" / CASE / file
    target.write_text(target.read_text("utf-8") + extra, "utf-8")
    return root


@pytest.mark.parametrize("file,extra,field", [
    ("judge.yaml", f"efficiency:\n  max_steps: {10**30}\n", "efficiency.max_steps"),
    ("judge.yaml", f"efficiency:\n  max_tokens: {2**63}\n", "efficiency.max_tokens"),
    ("judge.yaml", f"efficiency:\n  max_steps: {2**31}\n", "efficiency.max_steps"),
    ("judge.yaml", "corpus:\n  kind: openrca\n  system: Bank\n"
                   f"  row_id: {-(2**64)}\n", "corpus.row_id"),
])
def test_out_of_range_integers_are_problems_naming_file_line_and_field(tmp_path, file, extra,
                                                                        field):
    root = _registry(tmp_path, file, extra)
    reg = load_registry(root, examples=True)
    hits = [p for p in reg.problems if p.field == field]
    assert hits and hits[0].file == f"cases/{CASE}/{file}" and hits[0].line, reg.problems
    assert CASE not in reg.cases and len(reg.cases) == 12


def test_validate_and_judge_with_a_huge_tolerance(tmp_path):
    root = tmp_path / "registry"
    shutil.copytree(REPO / "data" / "registry", root)
    case_yaml = root / "cases" / CASE / "case.yaml"
    text = case_yaml.read_text("utf-8")
    assert "tolerance_s: 600" in text
    case_yaml.write_text(text.replace("tolerance_s: 600", f"tolerance_s: {2**31}"), "utf-8")
    r = _cli("validate", "--registry", str(root), cwd=tmp_path)
    assert r.returncode == 3 and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert "time_window.tolerance_s" in r.stdout, r.stdout[-2000:]
    out = tmp_path / "out"
    r = _cli("judge", str(REPO / "data" / "recorded" / "rec-thorough"), "--registry", str(root),
             "--db", str(tmp_path / "s.duckdb"), "--out", str(out), cwd=tmp_path)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr[-2000:]
    verdicts = {p.parent.name: json.loads(p.read_text())
                for p in (out / "rec-thorough").glob("*/judgment.json")}
    assert len(verdicts) == 13
    bad = verdicts.pop(CASE)
    assert bad["verdict"] == "invalid"
    assert "case.yaml" in bad["reason"] and "time_window.tolerance_s" in bad["reason"]
    assert all(v["subtype"] != "case_spec_invalid" for v in verdicts.values())
