"""The hosted tool server's transport (docs/tools.md, "Sealed evidence"): MCP over a Unix
socket, one session per connection, and the stdio bridge the agent starts.

The runner starts ``rcaeval tools serve --transport unix --socket PATH`` itself, outside the
agent's sandbox, with the case's seal key in the server's own environment; the agent's MCP
configuration names ``rcaeval tools serve --via PATH …``, which relays its stdio to that
socket. Every connection is a full MCP session on one server process, so every record any
connection returns is sealed and in the bundle. ``--via`` with no server listening (a
workspace made without the runner) serves the tools itself, unsealed.

When the server's stdin is a pipe (the runner holds its other end), the server stops at
end of file on it: a runner that is killed (``kill -9``) closes the pipe, so its hosted
server never outlives it. Started from a terminal, or with stdin from ``/dev/null`` or a
file, the server runs until stopped.
"""

from __future__ import annotations

import os
import socket
import stat
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

MAX_LINE = 64 * 1024 * 1024
"""The longest JSON-RPC message line accepted on the socket."""

_SUN_PATH = 100
"""Socket paths longer than this are reached through their directory (``chdir``)."""


def _address(path: str | Path) -> str:
    """``path``, or its file name after changing into its directory when ``path`` is longer
    than a Unix socket address may be."""
    path = str(path)
    if len(path) <= _SUN_PATH:
        return path
    head, name = os.path.split(path)
    os.chdir(head)
    return name


def bridge(path: str | Path) -> bool:
    """Relay this process's stdin/stdout to the server on ``path`` until either side ends;
    ``False`` (nothing relayed) when no server listens there."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(_address(path))
    except OSError:
        sock.close()
        return False
    out = sys.stdout.buffer

    def downstream() -> None:
        while chunk := sock.recv(1 << 16):
            out.write(chunk)
            out.flush()

    reader = threading.Thread(target=downstream, daemon=True)
    reader.start()
    stdin = sys.stdin.buffer
    try:
        while chunk := stdin.read1(1 << 16):
            sock.sendall(chunk)
        sock.shutdown(socket.SHUT_WR)
    except OSError:
        pass
    reader.join()
    sock.close()
    return True


class _SocketLines:
    """A connection's lines, as ``_FilteredStdin`` reads stdin."""

    def __init__(self, buffered: Any) -> None:
        self._buf = buffered

    async def readline(self) -> str:
        import anyio

        try:
            data = await self._buf.receive_until(b"\n", MAX_LINE)
        except (anyio.IncompleteRead, anyio.EndOfStream, anyio.DelimiterNotFound,
                anyio.ClosedResourceError, anyio.BrokenResourceError):
            return ""
        return data.decode("utf-8", "replace") + "\n"


class _SocketText:
    def __init__(self, stream: Any) -> None:
        self._stream = stream

    async def write(self, text: str) -> None:
        await self._stream.send(text.encode("utf-8"))

    async def flush(self) -> None:
        return None


def _stdin_is_pipe() -> bool:
    try:
        return stat.S_ISFIFO(os.fstat(0).st_mode)
    except OSError:
        return False


def _read_to_eof() -> None:
    """Block until end of file on stdin (whatever is written to it is discarded)."""
    while True:
        try:
            if not os.read(0, 4096):
                return
        except InterruptedError:
            continue
        except OSError:
            return


def serve_unix(server: Any, path: str | Path, on_listen: Callable[[str], None]) -> None:
    """Serve ``server`` (an ``MCPServer``) on the Unix socket ``path`` until stopped; every
    connection is one MCP session. ``on_listen(path)`` is told once the socket listens."""
    import anyio
    from anyio.streams.buffered import BufferedByteReceiveStream
    from mcp.server.stdio import stdio_server

    from rcaeval.tools._guard import _FilteredStdin, _LockedStdout

    address = _address(path)
    if os.path.lexists(address):
        os.unlink(address)

    async def session(conn: Any) -> None:
        async with conn:
            lock = anyio.Lock()
            out = _SocketText(conn)
            stdin = _FilteredStdin(_SocketLines(BufferedByteReceiveStream(conn)), out, lock)
            try:
                async with stdio_server(stdin=stdin, stdout=_LockedStdout(out, lock)) as (r, w):
                    low = server._lowlevel_server  # noqa: SLF001 - as MCPServer.run_stdio_async
                    await low.run(r, w, low.create_initialization_options())
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                return  # the client went away mid-answer

    async def main() -> None:
        listener = await anyio.create_unix_listener(address)
        os.chmod(address, 0o666)  # the agent runs as another uid inside its sandbox
        on_listen(str(path))
        if not _stdin_is_pipe():
            await listener.serve(session)
            return
        async with anyio.create_task_group() as tg:
            tg.start_soon(listener.serve, session)
            await anyio.to_thread.run_sync(_read_to_eof, abandon_on_cancel=True)
            tg.cancel_scope.cancel()  # the runner that holds the pipe's other end is gone

    anyio.run(main)
