"""The Ray executor on a real local Ray cluster: the same judgments as the local executor on
the sample suite (replay, example command and example ACP agents), audits with the local
mirror's manifest and checksums; a Ray worker killed mid-case is retried as an infrastructure
error (or the case is ``errored``, never judged, when retries are spent); Ctrl-C cancels the
Ray tasks and kills their agents; a run interrupted on one executor is finished on the
other."""

from __future__ import annotations

import hashlib
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import orjson
import pytest

from rcaeval.runner import run_suite
from rcaeval.runner._proc import pid_running, processes_under
from rcaeval.store import connect

pytestmark = pytest.mark.ray

PY = sys.executable
HOLD_AGENT = Path(__file__).resolve().parent / "agents" / "hold_agent.py"
AGENT = f"command:{shlex.quote(PY)} {shlex.quote(str(HOLD_AGENT))}"
EXAMPLE = f"command:{shlex.quote(PY)} -m rcaeval.examples.example_command_agent"
ACP_EXAMPLE = f"acp:{shlex.quote(PY)} -m rcaeval.examples.example_agent"
CASES = ["cpu-hotspot-region-001", "disk-full-tikv-001", "fake-alarm-scrape-gap-001"]


def _wait_for(pred, what: str, timeout: float = 240, proc=None):
    """Poll ``pred`` until it holds; with ``proc``, fail at once (with its output) if the
    run ends first. The bound only turns a hang into a failure (a loaded machine starts
    Ray workers slowly), it is not a synchronisation."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = pred()
        if got:
            return got
        if proc is not None and proc.poll() is not None:
            out, err = proc.communicate()
            raise AssertionError(f"the run ended (exit {proc.returncode}) before {what}:\n"
                                 f"{out}\n{err}")
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _judgments(store, run_id: str) -> dict[str, tuple]:
    return {r[0]: r[1:] for r in store.con.execute(
        "SELECT case_id, verdict, score, subtype FROM eval_judgment WHERE run_id = ?",
        [run_id]).fetchall()}


def _case_runs(store, run_id: str) -> dict[str, tuple]:
    return {r[0]: r[1:] for r in store.con.execute(
        "SELECT case_id, status, attempts, error FROM eval_case_runs WHERE run_id = ?",
        [run_id]).fetchall()}


def _check_audit(audit_dir: Path, run_id: str, case_id: str) -> dict:
    """The audit has the local mirror's manifest: every listed file present, checksums
    right, nothing half-written next to it."""
    manifest = orjson.loads((audit_dir / "manifest.json").read_bytes())
    assert (manifest["run_id"], manifest["case_id"]) == (run_id, case_id)
    assert manifest["files"]
    for f in manifest["files"]:
        data = (audit_dir / f["path"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == f["sha256"] and len(data) == f["size"]
    assert not list(audit_dir.parent.glob(".*partial*"))
    return manifest


@pytest.mark.parametrize("agent", ["replay:thorough", EXAMPLE, ACP_EXAMPLE],
                         ids=["replay", "example", "acp-example"])
def test_ray_judges_like_the_local_executor(ray_address, tmp_path, agent):
    store = connect(tmp_path / "store.duckdb")
    try:
        common = dict(case_ids=CASES, audit_root=tmp_path / "audits", progress=False,
                      reports=False)
        local = run_suite(store, "smoke", agent, run_id="local", executor="local", **common)
        on_ray = run_suite(store, "smoke", agent, run_id="onray", executor="ray", **common)
        assert local.status == on_ray.status == "completed"
        expected = _judgments(store, "local")
        assert set(expected) == set(CASES)
        assert _judgments(store, "onray") == expected, _case_runs(store, "onray")
        assert {c: r[:2] for c, r in _case_runs(store, "onray").items()} == \
            dict.fromkeys(CASES, ("judged", 1))
        for cid in CASES:
            ray_files = {f["path"] for f in _check_audit(
                tmp_path / "audits" / "onray" / cid, "onray", cid)["files"]}
            local_files = {f["path"] for f in _check_audit(
                tmp_path / "audits" / "local" / cid, "local", cid)["files"]}
            assert ray_files == local_files
    finally:
        store.close()


def _ray_worker_of(pid: int) -> int | None:
    """The Ray worker process (``ray::...``) among the ancestors of ``pid``."""
    while pid > 1:
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            stat = Path(f"/proc/{pid}/stat").read_bytes()
        except OSError:
            return None
        if cmdline.startswith(b"ray::"):
            return pid
        pid = int(stat[stat.rfind(b")") + 2:].split()[1])
    return None


def _kill_held_agents_worker(hold: Path, killed: list[int], partial: Path) -> None:
    """Once the held agent runs, SIGKILL the Ray worker running its case, leaving a
    half-assembled audit (``partial``) as a worker lost while mirroring would."""
    ws = _wait_for(lambda: (hold / "held").is_file() and (hold / "held").read_text(),
                   "the held agent")
    worker = _wait_for(lambda: next(filter(None, map(_ray_worker_of, processes_under(ws))),
                                    None), "the held agent's Ray worker")
    partial.mkdir(parents=True)
    (partial / "output.txt").write_text("half")
    os.kill(worker, signal.SIGKILL)
    killed.append(worker)


@pytest.mark.parametrize("retries", [1, 0])
def test_a_lost_ray_worker_is_an_infrastructure_error(ray_address, tmp_path, retries):
    hold = tmp_path / "hold"
    hold.mkdir()
    killed: list[int] = []
    partial = tmp_path / "audits" / "lost" / f".{CASES[0]}.partial-dead"
    killer = threading.Thread(target=_kill_held_agents_worker, args=(hold, killed, partial))
    killer.start()
    store = connect(tmp_path / "store.duckdb")
    try:
        summary = run_suite(store, "smoke", AGENT, case_ids=CASES[:2], run_id="lost", jobs=1,
                            executor="ray", sandbox="none", agent_env={"HOLD_DIR": str(hold)},
                            max_infra_retries=retries, audit_root=tmp_path / "audits",
                            progress=False, reports=False)
        killer.join()
        assert killed and not pid_running(killed[0])
        assert not partial.exists() if retries else partial.exists()
        held_case = CASES[0]  # jobs=1: the first case's agent is the first to start
        runs = _case_runs(store, "lost")
        assert runs[CASES[1]][:2] == ("judged", 1)
        if retries:
            assert summary.status == "completed"
            assert runs[held_case][:2] == ("judged", 2)
            manifest = _check_audit(tmp_path / "audits" / "lost" / held_case, "lost",
                                    held_case)
            lost = manifest["attempts"][0]
            assert lost["infra_error"] and "Ray worker lost" in lost["error"]
            assert set(_judgments(store, "lost")) == set(CASES[:2])
        else:
            status, attempts, error = runs[held_case]
            assert (status, attempts) == ("errored", 1)
            assert "infrastructure error" in error and "Ray worker lost" in error
            assert set(_judgments(store, "lost")) == {CASES[1]}, "a lost case was judged"
    finally:
        (hold / "release").touch()
        killer.join()
        store.close()


def _cli_env(ray_address: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RCAEVAL_")}
    return {**env, "RAY_ADDRESS": ray_address, "PYTHONUNBUFFERED": "1"}


@pytest.mark.parametrize(("first", "then"), [("ray", "local"), ("local", "ray")])
def test_interrupt_then_resume_on_the_other_executor(ray_address, tmp_path, first, then):
    db, audits, hold = tmp_path / "store.duckdb", tmp_path / "audits", tmp_path / "hold"
    hold.mkdir()
    ref_store = connect(tmp_path / "ref.duckdb")
    try:
        run_suite(ref_store, "smoke", EXAMPLE, case_ids=CASES, run_id="ref", progress=False,
                  reports=False, audit_root=tmp_path / "ref-audits")
        expected = _judgments(ref_store, "ref")
    finally:
        ref_store.close()
    args = [PY, "-m", "rcaeval", "run", "--suite", "smoke", "--agent", AGENT,
            "--sandbox", "none", "--db", str(db), "--audit-root", str(audits),
            "--run-id", "x", "--jobs", "1", "--no-progress",
            "--agent-env", f"HOLD_DIR={hold}", "--agent-env", "HOLD_AFTER=1",
            *[a for c in CASES for a in ("--case", c)]]
    env = _cli_env(ray_address)
    proc = subprocess.Popen([*args, "--executor", first], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    try:
        ws = _wait_for(lambda: (hold / "held").is_file() and (hold / "held").read_text(),
                       "the second agent at the barrier", proc=proc)
        assert processes_under(ws), "the held agent is not running"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "resume with --resume x" in out
    # the agent waits for a release that never comes: it is gone, so the run killed it
    assert not processes_under(ws)

    resumed = subprocess.run([*args, "--resume", "x", "--executor", then],
                             capture_output=True, text=True, env=env, cwd=tmp_path,
                             timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    store = connect(db)
    try:
        assert _judgments(store, "x") == expected
        assert {c: r[0] for c, r in _case_runs(store, "x").items()} == \
            dict.fromkeys(CASES, "judged")
        assert store.con.execute("SELECT status FROM eval_runs WHERE run_id = 'x'")\
            .fetchall() == [("completed",)]
    finally:
        store.close()


def _registry(tmp_path: Path, cases: dict[str, dict], execution: dict) -> Path:
    """A registry with suite ``mini`` over copies of sample cases; ``cases`` maps a case id
    to keys merged into its case.yaml ``execution``."""
    import shutil

    import yaml

    sample = Path(__file__).resolve().parents[2] / "data" / "registry"
    root = tmp_path / "registry"
    (root / "suites").mkdir(parents=True)
    for cid, extra in cases.items():
        shutil.copytree(sample / "cases" / cid, root / "cases" / cid)
        path = root / "cases" / cid / "case.yaml"
        doc = yaml.safe_load(path.read_text())
        doc["execution"] = {**doc.get("execution", {}), **extra}
        path.write_text(yaml.safe_dump(doc, sort_keys=False))
    suite = {"suite_id": "mini", "version": "1", "execution": execution,
             "cases": [{"id": c} for c in cases]}
    (root / "suites" / "mini.yaml").write_text(yaml.safe_dump(suite, sort_keys=False))
    return root


def test_ray_tasks_ask_the_execution_policy_and_time_out_like_local(ray_address, tmp_path):
    hold = tmp_path / "hold"
    hold.mkdir()
    held, other = CASES[0], CASES[1]
    # suite order + jobs 1: the held case's agent is the first to start; it never answers,
    # so only its own case timeout (case.yaml execution.timeout_s) ends it
    registry = _registry(tmp_path, {held: {"timeout_s": 3},
                                    other: {"cpus": 1, "memory_mb": 64}},
                         {"cpus": 0.5, "jobs": 1})
    store = connect(tmp_path / "store.duckdb")
    try:
        summary = run_suite(store, "mini", AGENT, registry_root=registry, run_id="pol",
                            executor="ray", sandbox="none", agent_env={"HOLD_DIR": str(hold)},
                            audit_root=tmp_path / "audits", progress=False, reports=False)
        assert summary.status == "completed"
        runs = _case_runs(store, "pol")
        assert runs[held][:2] == ("timed_out", 1)
        assert "timeout" in runs[held][2]
        assert runs[other][:2] == ("judged", 1)
        ws = (hold / "held").read_text()
        assert not processes_under(ws), "the timed-out agent outlived its case"
        audits = tmp_path / "audits" / "pol"
        got = {cid: _check_audit(audits / cid, "pol", cid)["executor"] for cid in (held, other)}
        assert got[held]["kind"] == "ray" and got[held]["resources"] == {"CPU": 0.5}
        assert got[other]["resources"] == {"CPU": 1.0, "memory": 64 * 1024 * 1024}
    finally:
        (hold / "release").touch()
        store.close()
