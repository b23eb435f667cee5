"""The hosted (Unix-socket) tool server lives as long as the pipe on its stdin: when the
process holding the pipe's other end is gone (a runner killed with ``kill -9``), the server
stops by itself; with stdin from ``/dev/null`` it keeps serving until stopped."""

from __future__ import annotations

import os
import select
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CASE = REPO / "data" / "registry" / "cases" / "cpu-hotspot-region-001"


def _start(tmp_path: Path, stdin: int) -> tuple[subprocess.Popen[bytes], int]:
    rfd, wfd = os.pipe()
    proc = subprocess.Popen(
        [sys.executable, "-m", "rcaeval.tools", "serve", "--transport", "unix",
         "--socket", str(tmp_path / "t.sock"), "--case-dir", str(CASE),
         "--bundle-dir", str(tmp_path / "b")],
        stdin=stdin, stdout=wfd, stderr=subprocess.PIPE)
    os.close(wfd)
    seen = b""
    while b"listening " not in seen:  # the server's own readiness line, no timing
        ready, _, _ = select.select([rfd], [], [], 120)
        assert ready, "the server never said it listens"
        chunk = os.read(rfd, 4096)
        assert chunk, proc.stderr.read().decode() if proc.stderr else "server exited"
        seen += chunk
    return proc, rfd


def test_the_server_stops_when_its_stdin_pipe_closes(tmp_path: Path) -> None:
    life_r, life_w = os.pipe()
    proc, out = _start(tmp_path, life_r)
    os.close(life_r)
    try:
        assert proc.poll() is None
        os.close(life_w)  # what the kernel does when the holder is killed
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(out)


def test_with_stdin_from_dev_null_the_server_keeps_serving(tmp_path: Path) -> None:
    proc, out = _start(tmp_path, subprocess.DEVNULL)
    try:
        # end of file on /dev/null is not a stop: the socket still accepts a connection
        import socket

        with socket.socket(socket.AF_UNIX) as s:
            s.connect(str(tmp_path / "t.sock"))
        assert proc.poll() is None
    finally:
        proc.kill()
        proc.wait()
        os.close(out)
