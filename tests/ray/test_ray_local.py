"""`rcaeval run --executor ray:local` starts its own Ray instance (even with $RAY_ADDRESS
naming another cluster), runs the cases on it, judges them and shuts it down (exit 0)."""

from __future__ import annotations

import os
import subprocess
import sys

import duckdb
import pytest

pytestmark = pytest.mark.ray


def test_ray_local_runs_and_judges_the_cases(tmp_path):
    pytest.importorskip(
        "ray", reason="Ray is not installed: pip install 'rcaeval-judge[ray]' (make test-ray)")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RCAEVAL_")}
    env["RAY_ADDRESS"] = "127.0.0.1:1"  # nothing listens there: ray:local must not use it
    cases = ["cpu-hotspot-region-001", "disk-full-tikv-001"]
    done = subprocess.run(
        [sys.executable, "-m", "rcaeval", "run", "--suite", "smoke", "--agent",
         "replay:thorough", "--executor", "ray:local", "--db", str(tmp_path / "s.duckdb"),
         "--audit-root", str(tmp_path / "audits"), "--run-id", "rl", "--no-progress",
         *[a for c in cases for a in ("--case", c)]],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    con = duckdb.connect(str(tmp_path / "s.duckdb"), read_only=True)
    try:
        rows = con.execute("SELECT c.case_id, c.status, j.verdict FROM eval_case_runs c "
                           "JOIN eval_judgment j USING (run_id, case_id) ORDER BY 1").fetchall()
    finally:
        con.close()
    assert rows == [(c, "judged", "pass") for c in cases]
    for c in cases:
        manifest = (tmp_path / "audits" / "rl" / c / "manifest.json").read_text()
        assert '"kind": "ray"' in manifest
