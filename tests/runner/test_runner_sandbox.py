"""The bubblewrap sandbox: a hostile agent tries each channel to ground truth (docs/agents.md,
"Sandbox") and finds nothing; a setsid grandchild dies with the case; --no-network."""

from __future__ import annotations

import os
import socket
import sys
import time
import uuid
from pathlib import Path

import orjson
import pytest

from rcaeval.errors import InputError
from rcaeval.runner import execute_case
from rcaeval.runner._proc import proc_stats
from rcaeval.runner._sandbox import bwrap_path, resolve_sandbox

AGENTS = Path(__file__).resolve().parent / "agents"
LEAK = f"command:{{python}} {AGENTS / 'leak_agent.py'}"


def _cmdlines_with(token: str) -> list[int]:
    out = []
    for pid, state, _, _ in proc_stats():
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                if token.encode() in fh.read() and state not in (b"Z", b"X"):
                    out.append(pid)
        except OSError:
            pass
    return out


def _wait_gone(token: str, timeout: float = 10.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while (left := _cmdlines_with(token)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


@pytest.fixture
def world(tmp_path: Path, make_case, panic_incident):
    """A registry case, a store file, an earlier run's audit with judgment.json and run.json,
    another run's workspace: everything an agent must not reach."""
    case, case_dir = make_case(incident=panic_incident, secret="zebra-answer")
    audits, wsroot = tmp_path / "audits", tmp_path / "ws"
    old = audits / "old-run" / case["case_id"]
    old.mkdir(parents=True)
    (old / "judgment.json").write_text('{"verdict": "pass"}')
    (audits / "old-run" / "run.json").write_text('{"case_ref_key": "k"}')
    (wsroot / "other-run" / "ws-0").mkdir(parents=True)
    (wsroot / "other-run" / "ws-0" / "output.txt").write_text("other answer")
    store = tmp_path / "rcaeval.duckdb"
    store.write_bytes(b"DUCK")
    import rcaeval

    probes = [case_dir / "expected.md", case_dir / "judge.yaml", case_dir.parent,
              audits / "old-run" / "run.json", old / "judgment.json", audits, store,
              wsroot / "other-run", Path(rcaeval.__file__).parent / "synth" / "scenarios",
              Path(__file__).resolve().parents[2] / "data"]
    return case, case_dir, {"workspace_root": wsroot, "audit_root": audits}, probes


def _runner_env_entry() -> str:
    """An entry of this (the runner's) process environment the agent is not given - what
    ``/proc/$PPID/environ`` would leak - e.g. ``HOME=/root`` (the agent's HOME differs)."""
    with open("/proc/self/environ", "rb") as fh:
        entries = [e.decode("utf-8", "replace") for e in fh.read().split(b"\0") if b"=" in e]
    given = ("PATH", "LANG", "LC_ALL", "TZ", "PYTHONUNBUFFERED")
    for entry in entries:
        key = entry.split("=", 1)[0]
        if key not in given and not key.startswith(("RCAEVAL_", "LEAK_", "OPENCODE_")):
            return entry
    raise AssertionError("the test process has no environment variable to leak")


def _run(world, *, sandbox: str, network: bool = True, port: int | None = None):
    case, case_dir, dirs, probes = world
    token = f"98{uuid.uuid4().int % 10**6}.5"
    env = {"LEAK_PATHS": os.pathsep.join(map(str, probes)), "LEAK_SLEEP": token,
           "LEAK_ENV_ENTRY": _runner_env_entry()}
    if port:
        env["LEAK_PORT"] = str(port)
    res = execute_case(f"r-{uuid.uuid4().hex[:6]}", case, LEAK, case_dir=case_dir,
                       timeout_s=120, agent_env=env, sandbox=sandbox, network=network, **dirs)
    assert res.status == "completed", res.error
    return orjson.loads(res.final_text), token


needs_bwrap = pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")


@needs_bwrap
def test_no_leak_channel_is_open_in_the_sandbox(world):
    found, token = _run(world, sandbox="bwrap")
    assert found["files"] == [] and found["proc"] == [], found
    assert found["pids"] <= 4, found  # its own PID namespace: itself, its child, bwrap's init
    assert _wait_gone(token) == []  # the setsid grandchild died with the case


def test_without_a_sandbox_the_channels_are_open(world):
    """The probe works: unsandboxed, the same agent reads the registry (docs/agents.md says
    which channels only the sandbox closes)."""
    case_dir = world[1]
    found, token = _run(world, sandbox="none")
    assert str(case_dir / "expected.md") in found["files"]
    # the runner's /proc/<pid>/cmdline and environ (a variable it did not pass) are readable
    assert any("/cmdline:" in p for p in found["proc"]), found
    assert any("/environ:" in p for p in found["proc"]), found
    _wait_gone(token, 0)
    for pid in _cmdlines_with(token):  # not contained without the sandbox: clean up
        os.kill(pid, 9)


@needs_bwrap
def test_network_on_by_default_and_off_with_no_network(world):
    with socket.create_server(("127.0.0.1", 0)) as srv:
        port = srv.getsockname()[1]
        found, token = _run(world, sandbox="bwrap", port=port)
        assert found["net"] == "connected"
        found, token2 = _run(world, sandbox="bwrap", network=False, port=port)
        assert found["net"].startswith("refused")
    assert _wait_gone(token) == [] and _wait_gone(token2) == []


def test_sandbox_options_are_checked():
    with pytest.raises(InputError, match="unknown sandbox"):
        resolve_sandbox("docker")
    with pytest.raises(InputError, match="--no-network needs"):
        resolve_sandbox("none", network=False)
    assert resolve_sandbox("none").describe() == "none"


@needs_bwrap
def test_example_agent_with_tools_in_the_sandbox(make_case, dirs, panic_incident):
    case, case_dir = make_case(incident=panic_incident)
    res = execute_case("r-sb", case, "acp:{python} -m rcaeval.examples.example_agent",
                       case_dir=case_dir, timeout_s=120, sandbox="bwrap", **dirs)
    assert res.status == "completed", res.error
    assert res.manifest["sandbox"] == "bwrap"
    assert "panic on tikv-2" in (res.audit_dir / "output.txt").read_text()
    assert (res.audit_dir / "analysis_patch.json").is_file()  # submit_report ran inside
    assert sys.executable in res.manifest["agent"]["command"]


def test_auto_without_bubblewrap_warns_once_and_runs_unsandboxed(tmp_path, monkeypatch):
    """Where bwrap is not on PATH: ``auto`` is no sandbox with a one-line warning, ``bwrap``
    and ``--no-network`` are input errors."""
    from rcaeval.runner import _sandbox

    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap here
    bwrap_path.cache_clear()
    _sandbox._warn_once.cache_clear()
    try:
        with pytest.warns(RuntimeWarning, match="bubblewrap is not available") as caught:
            assert resolve_sandbox("auto").describe() == "none"
            assert resolve_sandbox("auto").describe() == "none"
        assert len(caught) == 1
        with pytest.raises(InputError, match="needs bubblewrap"):
            resolve_sandbox("bwrap")
        with pytest.raises(InputError, match="needs bubblewrap"):
            resolve_sandbox("auto", network=False)
        with pytest.raises(InputError, match="needs bubblewrap: bubblewrap is not installed"):
            resolve_sandbox("require")
        # in CI the boundary never switches off silently: only an explicit none runs bare
        for ci in ("true", "1", "TRUE"):
            with pytest.raises(InputError, match="CI=true and bubblewrap is not installed"):
                resolve_sandbox("auto", environ={"CI": ci})
        assert resolve_sandbox("none", environ={"CI": "true"}).describe() == "none"
        monkeypatch.setenv("CI", "true")
        with pytest.raises(InputError, match="--sandbox none to run them unsandboxed"):
            resolve_sandbox("auto")
    finally:
        bwrap_path.cache_clear()
        _sandbox._warn_once.cache_clear()


def test_ci_without_bubblewrap_fails_the_run_unless_none(make_registry, paths, tmp_path):
    """Through the CLI: with CI=true and no bubblewrap on PATH, `run` (default --sandbox
    auto) is an input error before anything is recorded; --sandbox none runs on purpose."""
    import subprocess

    from runner_kit import PY, cli_env

    reg = make_registry(["tikv-panic-restart-001"])
    env = {**cli_env(), "CI": "true", "PATH": str(tmp_path)}  # no bwrap here
    base = [PY, "-m", "rcaeval", "run", "--suite", "mini", "--registry", str(reg), "--db",
            str(paths["db"]), "--audit-root", str(paths["audits"]), "--no-progress",
            "--agent", "replay:thorough"]
    done = subprocess.run(base, capture_output=True, text=True, env=env, timeout=300,
                          check=False)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "CI=true and bubblewrap is not installed" in " ".join(done.stderr.split())
    assert not paths["db"].exists() or "ci-none" not in done.stdout
    done = subprocess.run([*base, "--sandbox", "none", "--run-id", "ci-none"],
                          capture_output=True, text=True, env=env, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
