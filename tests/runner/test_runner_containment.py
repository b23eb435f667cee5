"""Process containment (docs/agents.md "Process containment"): agent descendants that leave
the process group (setsid, a double-forked daemon) do not outlive the turn."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from rcaeval.errors import InputError
from rcaeval.runner import execute_case
from rcaeval.runner._proc import containment, launch_argv, processes_under

PY = sys.executable

DAEMON = (
    "import os, sys, time\n"
    "if os.fork() == 0:\n"
    "    os.setsid()\n"
    "    if os.fork() == 0:\n"
    "        open('daemon.started', 'w').write('yes')\n"
    "        time.sleep(1000)\n"
    "    os._exit(0)\n"
    "time.sleep(0.1)\n"
    "while not os.path.exists('daemon.started'):\n"
    "    time.sleep(0.01)\n"
    "print('## Root cause\\nleft a daemon behind')\n"
)

needs_pidns = pytest.mark.skipif(containment() != "pidns",
                                 reason="PID namespaces (unshare) are not available here")


def _gone(ws: Path, within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while processes_under(ws) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not processes_under(ws)


def _run_daemon_agent(make_case, dirs, tmp_path) -> Path:
    """Run the daemon-leaving agent as one case; returns its (kept) workspace."""
    case, case_dir = make_case()
    script = tmp_path / "daemon_agent.py"
    script.write_text(DAEMON)
    res = execute_case("r", case, f"command:{PY} {script}", case_dir=case_dir, timeout_s=30,
                       keep_workspace=True, **dirs)
    assert res.status == "completed", res.error
    ws = dirs["workspace_root"] / "r" / res.workspace_id
    assert (ws / "daemon.started").exists()
    return ws


@needs_pidns
def test_a_double_forked_daemon_dies_with_its_turn(make_case, dirs, tmp_path):
    ws = _run_daemon_agent(make_case, dirs, tmp_path)
    assert _gone(ws), "the double-forked daemon survived"


def test_an_escaped_daemon_is_gone_when_the_case_returns_even_without_a_namespace(
        make_case, dirs, tmp_path, monkeypatch):
    """Under `none` a double-forked daemon leaves the process group; the runner's end-of-attempt
    sweep of the workspace still kills it, and waits, before execute_case returns."""
    monkeypatch.setenv("RCAEVAL_CONTAINMENT", "none")
    ws = _run_daemon_agent(make_case, dirs, tmp_path)
    assert processes_under(ws) == []  # no polling: gone by the time the case returned


def test_containment_mode_is_validated(monkeypatch):
    monkeypatch.setenv("RCAEVAL_CONTAINMENT", "jail")
    with pytest.raises(InputError, match="RCAEVAL_CONTAINMENT"):
        containment()
    monkeypatch.setenv("RCAEVAL_CONTAINMENT", "none")
    assert launch_argv(["agent", "-x"], wrapper=["wrap", "--"]) == ["wrap", "--", "agent", "-x"]


@needs_pidns
def test_a_wrapper_composes_inside_the_containment():
    argv = launch_argv(["agent"], wrapper=["wrap"])
    assert argv[-2:] == ["wrap", "agent"] and "--pid" in argv[: argv.index("wrap")]


def test_a_missing_binary_is_still_a_spawn_failure(make_case, dirs):
    case, case_dir = make_case()
    res = execute_case("r", case, "command:no-such-agent-binary-xyz", case_dir=case_dir,
                       timeout_s=10, max_infra_retries=0, **dirs)
    assert res.status == "errored" and "cannot start" in res.error
