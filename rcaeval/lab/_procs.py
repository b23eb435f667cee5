"""The lab's processes: each component runs in its own process group as the lab user, with a
pid file recording its pid, group and kernel start time, so ``down`` (and the next ``up``
after a killed run) stops exactly what the lab started and nothing that reused a pid."""

from __future__ import annotations

import json
import os
import pwd
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from rcaeval.errors import ExitCode, RcaevalError

_CHILDREN: set[int] = set()  # pids this Python started (reaped once they exit)


class LabError(RcaevalError):
    """The lab could not start, stop or inject (a component failed, a deadline passed)."""

    exit_code = ExitCode.INFRA_ERROR


@dataclass(frozen=True)
class RunAs:
    """Who the lab's processes run as: the current user, or (when rcaeval runs as root,
    which PostgreSQL refuses) an unprivileged account such as ``nobody``."""

    name: str
    uid: int
    gid: int

    @property
    def switch(self) -> bool:
        return self.uid != os.getuid()

    def popen_kwargs(self) -> dict:
        if not self.switch:
            return {}
        return {"user": self.uid, "group": self.gid, "extra_groups": []}


def resolve_user(name: str | None) -> RunAs:
    """The account the lab runs as. Not root: the current user (``name`` must be empty or
    the same). Root: ``name`` (default ``$RCAEVAL_LAB_USER`` or ``nobody``)."""
    if os.getuid() != 0:
        me = pwd.getpwuid(os.getuid())
        if name and name != me.pw_name:
            raise LabError(f"lab: --user {name} needs root (running as {me.pw_name})")
        return RunAs(me.pw_name, me.pw_uid, me.pw_gid)
    name = name or os.environ.get("RCAEVAL_LAB_USER") or "nobody"
    try:
        ent = pwd.getpwnam(name)
    except KeyError:
        raise LabError(f"lab: user {name!r} does not exist (create it, or pass --user)") from None
    if ent.pw_uid == 0:
        raise LabError("lab: the lab must not run as root (PostgreSQL refuses it); pick --user")
    return RunAs(name, ent.pw_uid, ent.pw_gid)


def _start_ticks(pid: int) -> int | None:
    """The process's start time in clock ticks since boot (field 22 of /proc/PID/stat), or
    None when it is gone or a zombie."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    fields = raw[raw.rindex(")") + 2:].split()
    if fields[0] in ("Z", "X"):
        return None
    return int(fields[19])


def _group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes whose process group is ``pgid``."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            raw = (entry / "stat").read_text()
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
        fields = raw[raw.rindex(")") + 2:].split()
        if fields[0] not in ("Z", "X") and int(fields[2]) == pgid:
            out.append(int(entry.name))
    return out


@dataclass
class Proc:
    """One started process as its pid file records it."""

    name: str
    pid: int
    pgid: int
    ticks: int
    order: int
    stop_signal: int = int(signal.SIGTERM)

    def alive(self) -> bool:
        return _start_ticks(self.pid) == self.ticks

    def group_alive(self) -> bool:
        return self.alive() or bool(self._orphans())

    def _orphans(self) -> list[int]:
        # the leader is gone but members of its group may remain (a killed run): they are
        # ours when the group id is the recorded leader's pid and that pid is not reused
        if _start_ticks(self.pid) not in (None, self.ticks):
            return []
        return _group_members(self.pgid)


def run_dir(lab_dir: Path) -> Path:
    return lab_dir / "run"


def spawn(lab_dir: Path, name: str, argv: list[str], *, run_as: RunAs, log: Path,
          env: dict[str, str] | None = None, cwd: Path | None = None, order: int = 50,
          stop_signal: int = int(signal.SIGTERM)) -> Proc:
    """Start ``argv`` in a new session (its own process group) as ``run_as``, output to
    ``log``; write its pid file before returning."""
    log.parent.mkdir(parents=True, exist_ok=True)
    full_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8",
                "HOME": str(lab_dir), "TZ": "UTC"}
    full_env.update(env or {})
    with open(log, "ab") as out:
        child = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True, env=full_env, cwd=str(cwd or lab_dir),
            **run_as.popen_kwargs())
    _CHILDREN.add(child.pid)
    ticks = _start_ticks(child.pid)
    proc = Proc(name, child.pid, child.pid, ticks or 0, order, stop_signal)
    pidfile = run_dir(lab_dir) / f"{name}.pid"
    pidfile.parent.mkdir(parents=True, exist_ok=True)
    pidfile.write_text(json.dumps(proc.__dict__) + "\n")
    # the child outlives this Popen object (``lab up`` returns); don't warn about it
    child.returncode = 0
    return proc


def read_procs(lab_dir: Path) -> list[Proc]:
    """Every pid file under the lab's run dir, in start order."""
    out = []
    for pidfile in sorted(run_dir(lab_dir).glob("*.pid")):
        try:
            out.append(Proc(**json.loads(pidfile.read_text())))
        except (ValueError, TypeError):
            pidfile.unlink()
    return sorted(out, key=lambda p: (p.order, p.name))


def stop(lab_dir: Path, proc: Proc, *, timeout_s: float = 20.0) -> bool:
    """Stop one process group: its stop signal to the leader, SIGTERM to the rest of the
    group, SIGKILL once ``timeout_s`` passes. True when something was running."""
    was = proc.group_alive()
    if was:
        if proc.alive():
            _signal(proc.pid, proc.stop_signal)
        deadline = time.monotonic() + timeout_s
        while proc.group_alive():
            if time.monotonic() > deadline:
                for pid in [proc.pid, *proc._orphans()]:
                    _signal(pid, signal.SIGKILL)
                deadline = time.monotonic() + 5
                if not _wait_gone(proc, deadline):
                    raise LabError(f"lab: could not stop {proc.name} (pid {proc.pid})")
                break
            if not proc.alive():
                for pid in proc._orphans():
                    _signal(pid, signal.SIGTERM)
            _wait_gone(proc, min(deadline, time.monotonic() + 0.2))
    (run_dir(lab_dir) / f"{proc.name}.pid").unlink(missing_ok=True)
    return was


def _wait_gone(proc: Proc, deadline: float) -> bool:
    while proc.group_alive():
        if time.monotonic() > deadline:
            return False
        _reap()
        time.sleep(0.05)  # polling interval of a real condition (the group exits)
    return True


def _reap() -> None:
    # children of this process (started by ``spawn`` in the same Python) stay zombies until
    # waited for; reap those that exited
    for pid in list(_CHILDREN):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            _CHILDREN.discard(pid)


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass
