"""Item: readers are never locked out by a run (docs/store.md "Concurrency"). A real
`rcaeval run` writes while `db sql`, read-only Python sessions and the regression notebook
read the same file; neither side fails."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
from reliability_kit import CASES, PY, cli_env, hostile_args, make_registry, rcaeval

import rcaeval.store as st


def _start_run(tmp: Path, reg: Path, *more: str) -> subprocess.Popen[str]:
    args = [PY, "-m", "rcaeval", "run", "--suite", "mini", "--registry", str(reg), "--db",
            str(tmp / "s.duckdb"), "--audit-root", str(tmp / "a"), "--run-id", "c1",
            "--no-progress", *more]
    return subprocess.Popen(args, cwd=tmp, env=cli_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _wait_judged(s: st.Store, n: int, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and proc.poll() is None:
        if s.sql("SELECT count(*) AS n FROM eval_judgment").item() >= n:
            return
        time.sleep(0.05)  # polling a condition, not synchronising on time
    raise AssertionError(f"fewer than {n} judged cases (run exit {proc.poll()})")


def _held_run(tmp_path: Path) -> tuple[subprocess.Popen[str], Path, st.Store]:
    """A run whose last case hangs until ``gate`` exists, once two cases are committed."""
    reg = make_registry(tmp_path / "reg", CASES, jobs=1)
    st.connect(tmp_path / "s.duckdb").close()  # migrated, so read-only opens work at once
    gate = tmp_path / "gate"
    proc = _start_run(tmp_path, reg, *hostile_args("hang_after", [CASES[2]],
                                                   HOSTILE_GATE=str(gate)))
    reader = st.connect(tmp_path / "s.duckdb", read_only=True)
    _wait_judged(reader, 2, proc)
    return proc, gate, reader


def test_readers_work_while_a_run_writes(tmp_path):
    proc, gate, reader = _held_run(tmp_path)
    try:
        assert reader.runs()["status"].to_list() == ["running"]  # a session kept open ...
        r = rcaeval("db", "sql", "SELECT count(*) FROM eval_judgment", "--db",
                    str(tmp_path / "s.duckdb"), "--format", "csv", cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip().splitlines()[-1] == "2"
        r = rcaeval("explain", "c1", CASES[0], "--db", str(tmp_path / "s.duckdb"), cwd=tmp_path)
        assert r.returncode == 0, r.stderr
    finally:
        gate.write_text("go")
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    # ... does not keep the run from committing, and sees its end
    assert reader.runs()["status"].to_list() == ["completed"]
    assert reader.case_runs()["status"].to_list() == ["judged"] * 3
    reader.close()


@pytest.mark.slow
def test_readers_hammering_a_run_never_fail_it(tmp_path):
    reg = make_registry(tmp_path / "reg", CASES, jobs=2)
    st.connect(tmp_path / "s.duckdb").close()
    proc = _start_run(tmp_path, reg, "--agent", "replay:thorough")
    reads = 0
    with st.connect(tmp_path / "s.duckdb", read_only=True) as s:
        while proc.poll() is None:
            s.sql("SELECT count(*) FROM eval_case_runs")
            reads += 1
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert reads > 0
    with st.connect(tmp_path / "s.duckdb", read_only=True) as s:
        assert s.case_runs()["status"].to_list() == ["judged"] * 3


def test_a_read_write_session_that_keeps_the_lock_is_waited_for_then_named(tmp_path):
    st.connect(tmp_path / "s.duckdb").close()
    holder = subprocess.Popen(
        [PY, "-c", "import sys, duckdb; c = duckdb.connect(sys.argv[1]); print('held', "
         "flush=True); sys.stdin.read()", str(tmp_path / "s.duckdb")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        r = rcaeval("db", "sql", "SELECT 1", "--db", str(tmp_path / "s.duckdb"), cwd=tmp_path,
                    env=cli_env(RCAEVAL_DB_LOCK_TIMEOUT="0.5"))
        assert r.returncode == 3
        assert "locked by another process" in r.stderr and "RCAEVAL_DB_LOCK_TIMEOUT" in r.stderr
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    r = rcaeval("db", "sql", "SELECT 1", "--db", str(tmp_path / "s.duckdb"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr


@pytest.mark.slow
def test_the_regression_notebook_renders_while_a_run_writes(tmp_path):
    pytest.importorskip("papermill")
    proc, gate, reader = _held_run(tmp_path)
    try:
        r = rcaeval("notebook", "regression", "c1", "--db", str(tmp_path / "s.duckdb"),
                    "--registry", str(tmp_path / "reg"), "--out", str(tmp_path / "nb.html"),
                    cwd=tmp_path, timeout=600)
        assert r.returncode == 0, r.stderr
        assert (tmp_path / "nb.html").is_file()
    finally:
        gate.write_text("go")
        reader.close()
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
