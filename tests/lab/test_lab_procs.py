"""The lab's process control on real processes: a stopped group leaves nothing behind, also
when its leader was already killed (a killed run), and a pid file never kills a reused pid."""

from __future__ import annotations

import json
import os
import signal

from rcaeval.lab._http import poll
from rcaeval.lab._procs import RunAs, read_procs, spawn, stop

ME = RunAs("me", os.getuid(), os.getgid())


def _alive(pid: int) -> bool:
    try:
        state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state not in ("Z", "X")


def _children(pid: int) -> list[int]:
    path = f"/proc/{pid}/task/{pid}/children"
    return [int(x) for x in open(path).read().split()] if os.path.exists(path) else []


def test_stop_ends_the_whole_group(tmp_path):
    proc = spawn(tmp_path, "pair", ["sh", "-c", "sleep 300 & sleep 300 & wait"],
                 run_as=ME, log=tmp_path / "logs" / "pair.log")
    assert read_procs(tmp_path)[0].pid == proc.pid
    kids = poll("two children", lambda: len(_children(proc.pid)) == 2 and _children(proc.pid),
                timeout_s=10)
    assert stop(tmp_path, proc) is True
    assert not _alive(proc.pid) and not any(_alive(k) for k in kids)
    assert read_procs(tmp_path) == []


def test_orphans_of_a_killed_leader_are_stopped(tmp_path):
    proc = spawn(tmp_path, "pair", ["sh", "-c", "sleep 300 & sleep 300 & wait"],
                 run_as=ME, log=tmp_path / "logs" / "pair.log")
    kids = poll("two children", lambda: len(_children(proc.pid)) == 2 and _children(proc.pid),
                timeout_s=10)
    os.kill(proc.pid, signal.SIGKILL)
    poll("leader gone", lambda: not proc.alive(), timeout_s=10)
    assert all(_alive(k) for k in kids)
    again = read_procs(tmp_path)[0]
    assert stop(tmp_path, again) is True
    assert not any(_alive(k) for k in kids)


def test_a_reused_pid_is_not_signalled(tmp_path):
    proc = spawn(tmp_path, "one", ["sleep", "300"], run_as=ME,
                 log=tmp_path / "logs" / "one.log")
    pidfile = tmp_path / "run" / "one.pid"
    rec = json.loads(pidfile.read_text())
    rec["ticks"] += 1  # as if the pid now belonged to a process started later
    pidfile.write_text(json.dumps(rec))
    stale = read_procs(tmp_path)[0]
    assert stale.alive() is False
    assert stop(tmp_path, stale) is False
    assert _alive(proc.pid)
    os.killpg(proc.pid, signal.SIGKILL)
