"""Interrupting and resuming runs: SIGKILL midway then --resume gives the same judgments as
an uninterrupted run with no case run twice; SIGTERM marks the run interrupted (exit 130)
and kills the agents; a resume with another agent configuration is refused."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import duckdb
import pytest
from runner_kit import PY, RECORDED, cli_env

from rcaeval.runner._proc import pid_running

CASES = ["cpu-hotspot-region-001", "disk-full-tikv-001", "fake-alarm-scrape-gap-001",
         "hot-write-autoinc-001", "kill-query-chain-001"]
FINAL = ("judged", "errored", "timed_out")


def _wait_for(pred, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def _agents_in(root: Path) -> list[int]:
    """Pids of processes whose working directory is under ``root`` (orphaned agents)."""
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                cwd = os.readlink(f"/proc/{name}/cwd")
            except OSError:
                continue
            if cwd.startswith(str(root)) and pid_running(int(name)):
                out.append(int(name))
    return out


def _committed(db_query, db: Path, run_id: str) -> int:
    """Cases of ``run_id`` with a final status in the store; 0 while the runner holds it."""
    try:
        return db_query(db, "SELECT count(*) FROM eval_case_runs WHERE run_id = ? AND status "
                        "IN ('judged', 'errored', 'timed_out')", [run_id])[0][0]
    except duckdb.Error:  # locked by the runner's commit, or not created yet
        return 0


def _judgments(db_query, db: Path, run_id: str) -> dict[str, tuple]:
    return {r[0]: r[1:] for r in db_query(
        db, "SELECT case_id, verdict, score, subtype FROM eval_judgment WHERE run_id = ?",
        [run_id])}


@pytest.mark.slow
def test_sigkill_midway_then_resume_matches_an_uninterrupted_run(
        rcaeval, paths, db_query, multi_agent, tmp_path):
    case_args = [a for c in CASES for a in ("--case", c)]
    # --sandbox none: the test agent reads recordings outside its workspace
    common = ["--suite", "smoke", "--agent", multi_agent, "--sandbox", "none",
              "--db", str(paths["db"]),
              "--audit-root", str(paths["audits"]), "--workspace-root", str(paths["ws"]),
              "--agent-env", f"REC_DIR={RECORDED / 'rec-thorough'}",
              "--expose-case-ids"]  # the test agent replays recordings by case id
    ref = rcaeval("run", *common, "--run-id", "ref", *case_args, "--agent-env", "SLEEP_S=0")
    assert ref.returncode == 0, ref.stderr
    expected = _judgments(db_query, paths["db"], "ref")
    assert len(expected) == len(CASES)

    # a barrier instead of timing: with --jobs 1 the 4th case's agent waits for a release file
    # that does not exist yet, so the kill lands after 3 agents finished and before the 4th
    # answers, whatever the machine's load. The runner judges every case finished since its
    # last pass together and commits their statuses after writing their judgment.json files,
    # so the files alone do not say how many are committed: wait for the store to show two
    # (it releases its lock between passes; a reader that finds it locked just looks again).
    log, gates = tmp_path / "agent.log", tmp_path / "gates"
    gates.mkdir()
    slow = [*common, "--agent-env", f"LOG={log}", "--agent-env", f"GATE_DIR={gates}",
            "--agent-env", "GATE_AFTER=3"]
    with open(tmp_path / "killed.out", "w") as out:
        proc = subprocess.Popen([PY, "-m", "rcaeval", "run", *slow, "--run-id", "res",
                                 "--jobs", "1", *case_args], stdout=out, stderr=subprocess.STDOUT,
                                env=cli_env(), cwd=tmp_path, start_new_session=True)
    run_dir = paths["audits"] / "res"
    try:
        _wait_for(lambda: list(gates.glob("*.waiting"))
                  and len(list(run_dir.glob("*/judgment.json"))) >= 3
                  and _committed(db_query, paths["db"], "res") >= 2, 120,
                  "three judged cases, two committed, and the 4th agent at the barrier")
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    # SIGKILL does not reach the agents (own sessions): end the orphan at the barrier
    (waiting,) = gates.glob("*.waiting")
    os.kill(int(waiting.read_text()), signal.SIGKILL)
    (gates / "release").touch()
    _wait_for(lambda: not _agents_in(paths["ws"]), 30, "orphaned agents to exit")
    # the store is consistent: every final case has its judgment, the run is still running
    state = db_query(paths["db"], "SELECT c.case_id, c.status, j.verdict IS NOT NULL "
                     "FROM eval_case_runs c LEFT JOIN eval_judgment j USING (run_id, case_id) "
                     "WHERE run_id = 'res'")
    finished = {cid for cid, status, judged in state if status in FINAL}
    assert 2 <= len(finished) <= 3  # the 3rd may have been killed mid-commit
    assert waiting.name.removesuffix(".waiting") not in finished
    assert all(judged for _cid, status, judged in state if status in FINAL)
    assert db_query(paths["db"], "SELECT status FROM eval_runs WHERE run_id = 'res'") == \
        [("running",)]
    logged_before = log.read_text().split()

    resumed = rcaeval("run", *slow, "--resume", "res", "--jobs", "2", timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    logged_after = log.read_text().split()[len(logged_before):]
    assert not finished & set(logged_after), "a finished case ran again"
    assert set(logged_after) | finished == set(CASES), "a case was lost"
    assert len(logged_after) == len(set(logged_after))
    for cid in finished:
        assert (logged_before + logged_after).count(cid) == 1
    assert _judgments(db_query, paths["db"], "res") == expected
    rows = db_query(paths["db"], "SELECT status, attempts FROM eval_case_runs "
                    "WHERE run_id = 'res'")
    assert rows and all(r == ("judged", 1) for r in rows)
    assert db_query(paths["db"], "SELECT status FROM eval_runs WHERE run_id = 'res'") == \
        [("completed",)]
    assert "kept from before resume" in resumed.stdout
    assert (run_dir / "report.txt").is_file()
    assert not list(run_dir.glob(".*partial*"))


def test_sigterm_marks_the_run_interrupted_and_kills_the_agents(
        paths, db_query, multi_agent, tmp_path):
    pid_dir = tmp_path / "pids"
    pid_dir.mkdir()
    args = [PY, "-m", "rcaeval", "run", "--suite", "smoke", "--agent", multi_agent,
            "--sandbox", "none",
            "--db", str(paths["db"]), "--audit-root", str(paths["audits"]), "--run-id", "t1",
            "--jobs", "2", "--case", CASES[0], "--case", CASES[1], "--case", CASES[2],
            "--agent-env", "AGENT_DEFAULT=hang", "--agent-env", f"PID_DIR={pid_dir}",
            "--expose-case-ids"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=cli_env(), cwd=tmp_path)
    _wait_for(lambda: len(list(pid_dir.glob("*.pid"))) == 2, 60, "two hanging agents")
    proc.send_signal(signal.SIGTERM)
    # the agents hang for ever: returning at all means the runner killed them
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "resume with --resume t1" in out
    for f in pid_dir.glob("*.pid"):
        assert not pid_running(int(f.read_text()))
    assert db_query(paths["db"], "SELECT status FROM eval_runs") == [("interrupted",)]
    statuses = sorted(r[0] for r in db_query(paths["db"], "SELECT status FROM eval_case_runs"))
    assert not set(statuses) & set(FINAL), statuses


def test_resume_needs_the_same_suite_and_agent_configuration(paths):
    import pytest

    from rcaeval.errors import InputError, NotFoundError
    from rcaeval.runner import run_suite
    from rcaeval.store import connect

    kw = {"audit_root": paths["audits"], "progress": False}
    with connect(paths["db"]) as s:
        first = run_suite(s, "smoke", "replay:thorough", run_id="r1",
                          case_ids=["tikv-panic-restart-001"], **kw)
        assert first.status == "completed" and first.counts()["pass"] == 1
        with pytest.raises(InputError, match="'replay:thorough' -> 'replay:shallow'"):
            run_suite(s, "smoke", "replay:shallow", run_id="r1", resume=True, **kw)
        with pytest.raises(InputError, match="--agent-env X added"):
            run_suite(s, "smoke", "replay:thorough", run_id="r1", resume=True,
                      agent_env={"X": "1"}, **kw)
        with pytest.raises(InputError, match="case_timeout_s None -> 5.0"):
            run_suite(s, "smoke", "replay:thorough", run_id="r1", resume=True,
                      case_timeout_s=5, **kw)
        with pytest.raises(NotFoundError):
            run_suite(s, "smoke", "replay:thorough", run_id="nope", resume=True, **kw)
        with pytest.raises(InputError, match="already exists"):
            run_suite(s, "smoke", "replay:thorough", run_id="r1", **kw)
        # resuming a finished run re-runs nothing
        again = run_suite(s, "smoke", "replay:thorough", run_id="r1", resume=True, **kw)
        assert again.reused == ("tikv-panic-restart-001",)
        assert again.frame()["verdict"].to_list() == ["pass"]
        assert s.sql("SELECT status, attempts FROM eval_case_runs").rows() == [("judged", 1)]


@pytest.mark.slow
def test_cli_refuses_a_resume_with_another_agent(rcaeval, paths):
    common = ["--suite", "smoke", "--db", str(paths["db"]), "--audit-root",
              str(paths["audits"])]
    r = rcaeval("run", *common, "--agent", "replay:thorough", "--run-id", "r1",
                "--case", "tikv-panic-restart-001", "--no-progress")
    assert r.returncode == 0, r.stderr
    r = rcaeval("run", *common, "--agent", "replay:shallow", "--resume", "r1")
    assert r.returncode == 3
    assert "'replay:thorough' -> 'replay:shallow'" in r.stderr
