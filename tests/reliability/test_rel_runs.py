"""Items: no crash strands a run (terminal status, reports, resume finishes it); deep and wide
trees in a workspace; orphaned workspaces and agents of a killed runner are cleaned up."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import duckdb
import orjson
import pytest
from reliability_kit import CASES, PY, cli_env, hostile_args, make_registry, query, rcaeval

import rcaeval.store as st
from rcaeval.runner import RunFailed, _loop, run_suite
from rcaeval.runner._orphans import ORPHAN_MARKER, clean_orphaned_workspaces, workspace_root_for
from rcaeval.runner._proc import kill_processes_under, processes_under


def test_an_unexpected_error_fails_the_run_with_reports_and_resume_finishes_it(
        tmp_path, monkeypatch):
    reg = make_registry(tmp_path / "reg", CASES, jobs=1)
    store = st.connect(tmp_path / "s.duckdb")
    real = _loop.persist_cases
    calls = []

    def flaky(store, run_id, cases, done, *rest, **kw):
        # Deterministic however the finished cases are batched: the first case to finish is
        # judged and committed, the fault comes with whatever finishes after it.
        calls.append(1)
        if len(calls) == 1:
            persisted = real(store, run_id, cases, done[:1], *rest, **kw)
            if len(done) == 1:
                return persisted
        raise RuntimeError("injected fault")

    monkeypatch.setattr(_loop, "persist_cases", flaky)
    kw = {"registry_root": reg, "audit_root": tmp_path / "a", "progress": False}
    with pytest.raises(RunFailed) as info:
        run_suite(store, "mini", "replay:thorough", run_id="f1", jobs=1, **kw)
    assert "--resume f1" in str(info.value) and info.value.summary.status == "failed"
    assert store.sql("SELECT status FROM eval_runs").item() == "failed"
    assert (tmp_path / "a" / "f1" / "report.txt").is_file()
    judged = store.sql("SELECT count(*) FROM eval_case_runs WHERE status = 'judged'").item()
    assert judged == 1
    monkeypatch.setattr(_loop, "persist_cases", real)
    summary = run_suite(store, "mini", "replay:thorough", run_id="f1", resume=True, **kw)
    assert summary.status == "completed" and summary.counts()["pass"] == len(CASES)
    rows = store.sql("SELECT case_id, count(*) AS n FROM eval_judgment GROUP BY ALL")
    assert rows.height == len(CASES) and set(rows["n"]) == {1}
    store.close()


def test_a_fault_inside_a_failed_store_transaction_still_fails_the_run(tmp_path, monkeypatch):
    """A statement fails inside the store's transaction (DuckDB aborts it), then the fault
    propagates: store.transaction rolls back on the way out, so the runner records the run
    ``failed`` on the same connection and the aborted write left nothing."""
    reg = make_registry(tmp_path / "reg", CASES[:1], jobs=1)
    store = st.connect(tmp_path / "s.duckdb")

    def failing(store, *_a, **_kw):
        with store.transaction():
            store.con.execute("INSERT INTO eval_runs (run_id) VALUES ('stray')")
            with pytest.raises(duckdb.ConstraintException):
                store.con.execute("INSERT INTO eval_runs (run_id) VALUES ('stray')")
            raise RuntimeError("injected fault")

    monkeypatch.setattr(_loop, "persist_cases", failing)
    with pytest.raises(RunFailed) as info:
        run_suite(store, "mini", "replay:thorough", run_id="f2", jobs=1, registry_root=reg,
                  audit_root=tmp_path / "a", progress=False)
    assert info.value.summary is not None and info.value.summary.status == "failed"
    assert store.sql("SELECT run_id, status FROM eval_runs").rows() == [("f2", "failed")]
    store.close()


@pytest.mark.parametrize("mode,reason", [("deep_tree", "too_deep"),
                                         ("wide_dir", "too_many_entries")])
def test_deep_or_wide_trees_are_bounded_and_removed(tmp_path, mode, reason):
    reg = make_registry(tmp_path / "reg", CASES[:2])
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    r = rcaeval("run", "--suite", "mini", "--registry", str(reg), "--db",
                str(tmp_path / "s.duckdb"), "--audit-root", str(tmp_path / "a"),
                "--run-id", "d1", "--no-progress", *hostile_args(mode, [CASES[0]]),
                cwd=tmp_path, env=cli_env(TMPDIR=str(tmp)))
    assert r.returncode == 0, r.stderr
    rows = dict(query(tmp_path / "s.duckdb", "SELECT case_id, c.status || ' ' || j.verdict "
                      "FROM eval_case_runs c JOIN eval_judgment j USING (run_id, case_id)"))
    assert rows == {CASES[0]: "judged pass", CASES[1]: "judged pass"}
    manifest = orjson.loads((tmp_path / "a" / "d1" / CASES[0] / "manifest.json").read_bytes())
    assert any(s["reason"].startswith(reason) for s in manifest["skipped"]), manifest["skipped"]
    assert list(tmp.glob("rcaeval-ws-*")) == []
    assert (tmp_path / "a" / "d1" / "report.txt").is_file()


def test_orphaned_workspace_roots_and_their_agents_are_cleaned_up(tmp_path):
    orphan = tmp_path / "rcaeval-ws-orphan"
    (orphan / "run" / "ws-1").mkdir(parents=True)
    (orphan / ORPHAN_MARKER).write_text("999999999 12345\n")
    live = tmp_path / "rcaeval-ws-live"
    live.mkdir()
    (live / ORPHAN_MARKER).write_text(f"{os.getpid()} {_loop_start()}\n")
    agent = subprocess.Popen(["sleep", "1000"], cwd=orphan / "run" / "ws-1",
                             start_new_session=True)
    try:
        removed = clean_orphaned_workspaces(tmp_path)
        assert removed == [orphan] and live.is_dir()
        agent.wait(timeout=10)  # killed: wait() returns instead of timing out
        assert processes_under(tmp_path) == []
    finally:
        if agent.poll() is None:
            agent.kill()
            agent.wait()


def _loop_start() -> str:
    from rcaeval.runner._orphans import _proc_start

    return _proc_start(os.getpid()) or "0"


def test_killing_what_is_left_in_a_workspace_returns_only_when_it_is_gone(tmp_path):
    """SIGKILL is delivered asynchronously: the cleaner must wait for the kills to finish (and
    kill what a dying parent forked meanwhile) before the caller removes the workspace."""
    ws = tmp_path / "ws"
    ws.mkdir()
    # a shell that keeps forking sleepers, plus a crowd of sleepers of its own group
    agents = [subprocess.Popen(["sh", "-c", "while :; do sleep 1000 & sleep 0.01; done"],
                               cwd=ws, start_new_session=True)]
    agents += [subprocess.Popen(["sleep", "1000"], cwd=ws, start_new_session=True)
               for _ in range(30)]
    try:
        deadline = time.monotonic() + 60
        while len(processes_under(ws)) < 33 and time.monotonic() < deadline:
            time.sleep(0.01)  # until the forker has children of its own
        assert kill_processes_under(ws) >= 33
        assert processes_under(ws) == []
    finally:
        for a in agents:
            if a.poll() is None:
                a.kill()
            a.wait()
        kill_processes_under(ws)


@pytest.mark.slow
def test_resume_removes_what_the_killed_run_left_in_its_workspace_root(tmp_path):
    reg = make_registry(tmp_path / "reg", CASES[:2])
    gate = tmp_path / "gate"
    base = ["run", "--suite", "mini", "--registry", str(reg), "--db", str(tmp_path / "s.duckdb"),
            "--audit-root", str(tmp_path / "a"), "--workspace-root", str(tmp_path / "ws"),
            "--no-progress", *hostile_args("hang_after", [CASES[0]], HOSTILE_GATE=str(gate))]
    proc = subprocess.Popen([PY, "-m", "rcaeval", *base, "--run-id", "k1"], cwd=tmp_path,
                            env=cli_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    ws_run = tmp_path / "ws" / "k1"
    deadline = time.monotonic() + 120
    while not processes_under(ws_run) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert processes_under(ws_run), "the hanging agent never started"
    os.killpg(proc.pid, signal.SIGKILL)  # the runner dies; its agent lives on (own session)
    proc.wait()
    assert processes_under(ws_run)
    # What --resume does first: kill the leftovers and remove the old workspaces.
    assert workspace_root_for(tmp_path / "ws", "k1", resume=True) == (tmp_path / "ws").resolve()
    assert processes_under(ws_run) == [] and not ws_run.exists()
    gate.write_text("go")
    r = rcaeval(*base, "--resume", "k1", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert query(tmp_path / "s.duckdb", "SELECT status FROM eval_runs") == [("completed",)]
    assert sorted(query(tmp_path / "s.duckdb", "SELECT status FROM eval_case_runs")) == [
        ("judged",), ("judged",)]


def test_a_cleaner_running_while_a_root_is_created_leaves_it_alone(tmp_path, monkeypatch):
    """Two runners on one machine (or two Ray tasks on one node): one creating its temporary
    workspace root while the other cleans orphans. At the last moment before the owner marker
    appears, the cleaner must see a young unmarked root, never an empty marker."""
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    real_replace = os.replace
    seen = []

    def replace_after_a_cleanup(src, dst):
        seen.append(clean_orphaned_workspaces(tmp_path))
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace_after_a_cleanup)
    root = workspace_root_for(None, "r1", resume=False)
    monkeypatch.setattr(os, "replace", real_replace)
    assert seen == [[]] and root.is_dir()
    assert (root / ORPHAN_MARKER).read_text().split()[0] == str(os.getpid())
    assert clean_orphaned_workspaces(tmp_path) == [] and root.is_dir()
