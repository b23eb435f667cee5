"""Starting and stopping agent processes: the ONE place the runner spawns an agent.

Every agent starts in its own session (``start_new_session=True``), so its pid is its process
group id and one ``killpg`` reaches every descendant that stays in the group (a shell launcher,
a tool subprocess, a backgrounded ``sleep``). Descendants that leave the group (``setsid``, a
double-forked daemon) are contained by running the agent as the first process of a new PID
namespace (``unshare --pid --fork --kill-child``, util-linux) where the kernel allows it: when
that first process ends - it exits, or its group is killed - the kernel kills every process
left in the namespace, whatever session it moved to. ``$RCAEVAL_CONTAINMENT`` chooses:
``auto`` (default: a PID namespace when ``unshare`` works here, else process groups only),
``pidns`` (require it), ``none`` (process groups only). docs/agents.md "Process containment".

:func:`spawn` / :func:`spawn_async` build the command line through :func:`launch_argv`, so a
wrapper (a sandbox) composes with the containment by passing ``wrapper=[...]``: the result is
``<containment> <wrapper> <agent argv>``.
"""

from __future__ import annotations

import asyncio
import functools
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import IO, Any

from rcaeval.errors import InputError

CONTAINMENT_ENV = "RCAEVAL_CONTAINMENT"
CONTAINMENT_MODES = ("auto", "pidns", "none")

File = int | IO[Any] | None


def containment_mode() -> str:
    """The requested mode from ``$RCAEVAL_CONTAINMENT`` (blank: ``auto``)."""
    mode = (os.environ.get(CONTAINMENT_ENV) or "auto").strip().lower() or "auto"
    if mode not in CONTAINMENT_MODES:
        raise InputError(f"${CONTAINMENT_ENV} must be one of {', '.join(CONTAINMENT_MODES)}, "
                         f"got {mode!r}", field=CONTAINMENT_ENV)
    return mode


@functools.cache
def _pidns_prefix() -> tuple[str, ...] | None:
    """The ``unshare`` prefix that works on this machine, or ``None`` (probed once)."""
    exe = shutil.which("unshare")
    if exe is None:
        return None
    base = (exe, "--pid", "--fork", "--kill-child")
    candidates = [base] if os.geteuid() == 0 else []
    # Unprivileged: a user namespace mapping our uid to itself (util-linux >= 2.38), else root.
    candidates += [(exe, "--user", "--map-current-user", *base[1:]),
                   (exe, "--user", "--map-root-user", *base[1:])]
    for prefix in candidates:
        try:
            done = subprocess.run([*prefix, "--", "true"], stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  timeout=10, check=False)
        except (OSError, subprocess.SubprocessError):
            continue
        if done.returncode == 0:
            return prefix
    return None


def containment() -> str:
    """What agents actually run under: ``pidns`` or ``none``."""
    mode = containment_mode()
    if mode == "none":
        return "none"
    if _pidns_prefix() is not None:
        return "pidns"
    if mode == "pidns":
        raise InputError(f"${CONTAINMENT_ENV}=pidns but `unshare --pid --fork` does not work "
                         "here (no util-linux unshare, or PID/user namespaces are disabled)",
                         field=CONTAINMENT_ENV)
    return "none"


def launch_argv(argv: Sequence[str], *, wrapper: Sequence[str] = (),
                contained: bool = True) -> list[str]:
    """The command line actually executed for an agent ``argv``:
    ``<containment prefix> <wrapper> <argv>`` (no prefix when not ``contained``)."""
    prefix: Sequence[str] = ()
    if contained and containment() == "pidns":
        prefix = (*(_pidns_prefix() or ()), "--")
    return [*prefix, *wrapper, *argv]


def _check_executable(argv: Sequence[str], env: Mapping[str, str], cwd: Any) -> None:
    """Raise the ``OSError`` a direct exec of ``argv[0]`` would (so a missing agent binary
    stays a spawn failure even when a containment prefix is what is executed)."""
    if not argv:
        raise FileNotFoundError("empty command line")
    exe = argv[0]
    if "/" in exe:
        path = exe if os.path.isabs(exe) else os.path.join(os.fspath(cwd), exe)
        if not os.path.exists(path):
            raise FileNotFoundError(2, "No such file or directory", exe)
        if os.path.isdir(path) or not os.access(path, os.X_OK):
            raise PermissionError(13, "Permission denied", exe)
    elif shutil.which(exe, path=env.get("PATH", os.defpath)) is None:
        raise FileNotFoundError(2, "No such file or directory", exe)


def spawn(
    argv: Sequence[str], *, cwd: str | os.PathLike[str], env: Mapping[str, str],
    stdin: File, stdout: File, stderr: File, wrapper: Sequence[str] = (),
    contained: bool = True,
) -> subprocess.Popen[bytes]:
    """Start an agent process (own session, contained unless ``contained=False``, no
    inherited fds). Raises ``OSError`` when it cannot be started."""
    _check_executable(argv, env, cwd)
    return subprocess.Popen(
        launch_argv(argv, wrapper=wrapper, contained=contained), cwd=cwd, env=dict(env),
        stdin=stdin, stdout=stdout, stderr=stderr, start_new_session=True, close_fds=True)


async def spawn_async(
    argv: Sequence[str], *, cwd: str | os.PathLike[str], env: Mapping[str, str],
    stdin: File, stdout: File, stderr: File, limit: int, wrapper: Sequence[str] = (),
) -> asyncio.subprocess.Process:
    """:func:`spawn` for asyncio (the ACP adapter's stdio pipes)."""
    _check_executable(argv, env, cwd)
    return await asyncio.create_subprocess_exec(
        *launch_argv(argv, wrapper=wrapper), cwd=str(cwd), env=dict(env), stdin=stdin,
        stdout=stdout, stderr=stderr, start_new_session=True, close_fds=True, limit=limit)


def group_alive(pgid: int) -> bool:
    """True while any process of the group exists (zombies included)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def kill_group(pgid: int, *, grace_s: float = 1.0) -> None:
    """SIGTERM the whole group, wait up to ``grace_s``, then SIGKILL whatever is left."""
    try:
        os.killpg(pgid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        if not _group_has_live_members(pgid):
            return
        time.sleep(0.02)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        return


def proc_stats() -> Iterator[tuple[int, bytes, int, int]]:
    """``(pid, state, ppid, pgrp)`` of every process in /proc (Linux); nothing elsewhere.
    Fields are read after the ``)`` that closes ``comm``, which may itself hold spaces."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        rest = data[data.rfind(b")") + 2 :].split()
        if len(rest) >= 3:
            yield int(name), rest[0], int(rest[1]), int(rest[2])


def _group_has_live_members(pgid: int) -> bool:
    """Like :func:`group_alive` but zombies (exited, not yet reaped) do not count."""
    if not group_alive(pgid):
        return False
    if not os.path.isdir("/proc"):
        return True
    return any(pgrp == pgid and state not in (b"Z", b"X") for _, state, _, pgrp in proc_stats())


def pid_running(pid: int) -> bool:
    """True when ``pid`` exists and is not a zombie (used by tests and diagnostics)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    state = data[data.rfind(b")") + 2 :].split()[0]
    return state not in (b"Z", b"X")


def processes_under(root: str | os.PathLike[str]) -> list[int]:
    """Live processes (host pids, zombies excluded) whose working directory lies inside
    ``root``: what is left of an agent in a workspace, whatever session or PID namespace it
    moved to (Linux; empty elsewhere)."""
    base = os.path.realpath(root).rstrip("/") + "/"
    out = []
    for pid, state, _, _ in proc_stats():
        if state in (b"Z", b"X") or pid == os.getpid():
            continue
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        cwd = cwd.removesuffix(" (deleted)")
        if (cwd + "/").startswith(base):
            out.append(pid)
    return out


def kill_processes_under(root: str | os.PathLike[str], *, timeout: float = 10.0) -> int:
    """SIGKILL every process :func:`processes_under` finds (e.g. agents a killed runner left
    in a workspace) and wait until none is left alive, killing any that appear meanwhile (a
    child forked before its parent died). SIGKILL is delivered asynchronously, so returning
    right after ``kill`` would let a caller remove the workspace under a still-running agent.
    Gives up after ``timeout`` seconds; returns how many processes were signalled."""
    signalled: set[int] = set()
    foreign: set[int] = set()  # not ours to kill (another user's process): not waited for
    deadline = time.monotonic() + timeout
    delay = 0.005
    while True:
        pids = [pid for pid in processes_under(root) if pid not in foreign]
        if not pids or time.monotonic() >= deadline:
            return len(signalled)
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                signalled.add(pid)
            except ProcessLookupError:
                pass
            except PermissionError:
                foreign.add(pid)
        time.sleep(delay)  # waiting for the kernel to finish the kills, then looking again
        delay = min(delay * 2, 0.1)
