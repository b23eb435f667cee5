"""The runner-hosted, sealing tool server (docs/tools.md, "Sealed evidence").

For a workspace with tools (``mcp`` / ``both``) the runner generates a per-case seal key and
starts the case's tool server itself, before the agent: ``rcaeval tools serve --transport
unix --socket .rcaeval/tools.sock``, inside its own sandbox when the agent has one (the same
mounts as the agent's, its own PID namespace), with the key only in that server's
environment (the server drops it from its environment at start). The agent's MCP
configuration names the stdio bridge (``serve --via .rcaeval/tools.sock``), so the agent
reaches the tools but never the key: the key is not in the workspace, not in the agent's
environment, and the server's ``/proc`` is not in the agent's PID namespace. The server
seals every record it writes; after the case the runner stores the key in the audit dir's
runner side (``seal.json`` beside ``manifest.json``), where the judge reads it. The server's
stdin is a pipe whose other end only the runner holds: a runner killed with ``kill -9`` closes
it, and the server stops at its end of file instead of outliving the run.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from rcaeval._seal import SEAL_KEY_ENV
from rcaeval.runner._proc import kill_group, spawn
from rcaeval.runner._sandbox import wrapper

if TYPE_CHECKING:
    from rcaeval.runner._workspace import Workspace

SOCKET = "tools.sock"
"""The hosted server's socket, in the workspace's ``.rcaeval/``."""

START_TIMEOUT_S = 120.0
"""How long the runner waits for the server to listen before the agent starts anyway (its
bridge then serves the tools itself, unsealed)."""


def socket_path(ws: Workspace) -> str:
    return str(ws.runner_dir / SOCKET)


def _server_argv(ws: Workspace) -> list[str]:
    from rcaeval.runner._mcp import incident_path

    return [sys.executable, "-m", "rcaeval.tools", "serve", "--transport", "unix",
            "--socket", socket_path(ws), "--case-dir", str(ws.path),
            "--incident-dir", str(incident_path(ws)), "--bundle-dir", str(ws.path)]


def _wait_listening(fd: int, proc: subprocess.Popen[bytes], timeout_s: float) -> bool:
    """Read the server's stdout until its ``listening`` line (``True``), its exit or the
    deadline (``False``)."""
    deadline = time.monotonic() + timeout_s
    seen = b""
    while b"listening " not in seen:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            return False
        chunk = os.read(fd, 4096)
        if not chunk:
            return False
        seen = (seen + chunk)[-8192:]
    return proc.poll() is None


@contextmanager
def host_tools(ws: Workspace, *, replay: bool = False,
               argv: list[str] | None = None) -> Iterator[bytes | None]:
    """Run the case's sealing tool server for the duration of the block; yields its seal
    key, or ``None`` without tools, for a replay agent (it copies a recorded bundle and calls
    no tool) or when the server did not start (its stderr is in ``.rcaeval/tools.stderr``).
    ``argv`` replaces the server's command line (a live backend, such as the incident lab's
    ``rcaeval lab tools --transport unix``); it runs outside the agent's sandbox and
    PID namespace, since it must reach the live system (the pids it reads and signals, and
    the processes it restarts, are the system's)."""
    if ws.tools == "files" or replay:
        yield None
        return
    key = secrets.token_bytes(32)
    live = argv is not None
    argv = list(argv) if argv is not None else _server_argv(ws)
    env = {"PATH": os.environ.get("PATH", os.defpath), "PYTHONUNBUFFERED": "1",
           "HOME": str(ws.home), "TMPDIR": "/tmp", "LANG": "C.UTF-8",
           SEAL_KEY_ENV: key.hex()}
    rfd, wfd = os.pipe()
    life_r, life_w = os.pipe()  # the server's stdin: it stops when the runner's end closes
    try:
        with open(ws.runner_dir / "tools.stderr", "ab") as err:
            proc = spawn(argv, cwd=ws.path, env=env, stdin=life_r, stdout=wfd,
                         stderr=err,
                         wrapper=[] if live else wrapper(ws.sandbox, ws, argv, env),
                         contained=not live)
    except OSError:
        for fd in (rfd, wfd, life_r, life_w):
            os.close(fd)
        yield None
        return
    os.close(wfd)
    os.close(life_r)
    try:
        ready = _wait_listening(rfd, proc, START_TIMEOUT_S)
        yield key if ready else None
    finally:
        kill_group(proc.pid)
        proc.wait()
        os.close(rfd)
        os.close(life_w)
        _remove_socket(ws)


def _remove_socket(ws: Workspace) -> None:
    """Drop the socket (not a bundle file: the audit would list it as skipped), unless the
    agent replaced ``.rcaeval/`` (then nothing is done through it)."""
    from rcaeval.runner._workspace import runner_dir_problem

    if runner_dir_problem(ws) is None:
        with contextlib.suppress(OSError):
            os.unlink(socket_path(ws))
