"""Process-group handling for agent subprocesses.

Every agent starts in its own session (``start_new_session=True``), so its pid is its process
group id and one ``killpg`` reaches every descendant that did not itself call ``setsid`` (a
shell launcher, a tool subprocess, a backgrounded ``sleep``).
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator


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
