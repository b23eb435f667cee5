"""Choosing the executor (fast, no Ray cluster): an unknown --executor and --executor ray
without a cluster address (or without Ray installed) are bad input (exit 3) that names the
option, and leave no run behind."""

from __future__ import annotations

import os
import subprocess
import sys

import duckdb
import pytest


def _run(tmp_path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("RCAEVAL_") and k != "RAY_ADDRESS"}
    return subprocess.run([sys.executable, "-m", "rcaeval", "run", "--suite", "smoke",
                           "--agent", "replay:thorough", "--db", str(tmp_path / "s.duckdb"),
                           "--audit-root", str(tmp_path / "audits"), "--no-progress", *args],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)


def _runs(tmp_path) -> list:
    db = tmp_path / "s.duckdb"
    if not db.exists():
        return []
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute("SELECT run_id FROM eval_runs").fetchall()
    finally:
        con.close()


@pytest.mark.parametrize(("spec", "says"), [
    ("threads", "unknown executor 'threads'"),
    ("ray:", "unknown executor 'ray:'"),
    # Ray installed: the address is missing; not installed: how to install it
    ("ray", ("RAY_ADDRESS", "pip install 'rcaeval-judge[ray]'")),
])
def test_bad_executor_is_bad_input_and_records_no_run(tmp_path, spec, says):
    done = _run(tmp_path, "--executor", spec)
    assert done.returncode == 3, done.stderr
    out = " ".join(done.stderr.split())
    assert "--executor" in out
    assert any(s in out for s in ((says,) if isinstance(says, str) else says)), out
    assert _runs(tmp_path) == []
    assert not (tmp_path / "audits").exists() or not any((tmp_path / "audits").iterdir())
