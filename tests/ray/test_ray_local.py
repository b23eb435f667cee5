"""`rcaeval run --executor ray:local` starts its own Ray instance (even with $RAY_ADDRESS
naming another cluster) - once for all the runs of a --repeat group - runs the cases on it,
judges them and shuts it down (exit 0)."""

from __future__ import annotations

import os
import subprocess
import sys

import duckdb
import pytest

pytestmark = pytest.mark.ray


def _why(done: subprocess.CompletedProcess, db) -> str:
    """What a failed run left: its output and every case run's status and error."""
    rows: object = "no store"
    try:
        con = duckdb.connect(str(db), read_only=True)
        try:
            rows = con.execute("SELECT run_id, case_id, status, attempts, error "
                               "FROM eval_case_runs ORDER BY ALL").fetchall()
        finally:
            con.close()
    except duckdb.Error as exc:
        rows = f"store unreadable: {exc}"
    return (f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}\n"
            f"case runs: {rows}")


def test_ray_local_runs_and_judges_every_repeat(tmp_path):
    pytest.importorskip(
        "ray", reason="Ray is not installed: pip install 'rcaeval-judge[ray]' (make test-ray)")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RCAEVAL_")}
    env["RAY_ADDRESS"] = "127.0.0.1:1"  # nothing listens there: ray:local must not use it
    cases = ["cpu-hotspot-region-001", "disk-full-tikv-001"]
    done = subprocess.run(
        [sys.executable, "-m", "rcaeval", "run", "--suite", "smoke", "--agent",
         "replay:thorough", "--executor", "ray:local", "--db", str(tmp_path / "s.duckdb"),
         "--audit-root", str(tmp_path / "audits"), "--run-id", "rl", "--no-progress",
         "--repeat", "2",
         *[a for c in cases for a in ("--case", c)]],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, _why(done, tmp_path / "s.duckdb")
    con = duckdb.connect(str(tmp_path / "s.duckdb"), read_only=True)
    try:
        rows = con.execute("SELECT run_id, c.case_id, c.status, j.verdict FROM eval_case_runs c "
                           "JOIN eval_judgment j USING (run_id, case_id) ORDER BY 1, 2").fetchall()
        members = [r[0] for r in con.execute(
            "SELECT run_id FROM eval_repeat_runs ORDER BY repeat_index").fetchall()]
    finally:
        con.close()
    assert len(members) == 2
    assert rows == [(m, c, "judged", "pass") for m in members for c in cases]
    for m in members:
        for c in cases:
            manifest = (tmp_path / "audits" / m / c / "manifest.json").read_text()
            assert '"kind": "ray"' in manifest
    assert done.stderr.count("Started a local Ray instance") == 1, done.stderr
