"""``--allow-endpoint HOST:PORT``: a declared model endpoint on the host's loopback, reachable
from a ``--no-network`` sandbox (docs/agents.md, "Sandbox").

A ``--no-network`` agent has its own network namespace with only its own loopback. For each
declared endpoint the runner keeps one Unix socket (in a private directory, for the life of the
process) whose connections it forwards to ``HOST:PORT``; the sandbox mounts that socket, and a
small forwarder started inside the sandbox before the agent (``python -m
rcaeval.runner._netfwd``) listens on the agent's ``127.0.0.1:PORT`` and relays each connection
through it. The agent reaches exactly the declared ports and nothing else.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import ipaddress
import os
import shutil
import socket
import tempfile
import threading
from collections.abc import Sequence

from rcaeval.errors import InputError

SANDBOX_SOCKET_DIR = "/run/rcaeval-endpoints"
"""Where the endpoint sockets appear inside the sandbox."""

_LOCK = threading.Lock()
_CHUNK = 64 * 1024


def parse_endpoints(items: Sequence[str] | None) -> tuple[tuple[str, int], ...]:
    """``["127.0.0.1:8000", "localhost:11434"]`` -> ``(("127.0.0.1", 8000), …)``. Only
    loopback hosts: a remote model needs the network (drop ``--no-network``)."""
    out: list[tuple[str, int]] = []
    for item in items or ():
        host, sep, port_s = item.rpartition(":")
        host = host.strip("[]")
        if not sep or not host or not port_s.isdigit() or not 0 < int(port_s) < 65536:
            raise InputError(f"bad --allow-endpoint {item!r}: expected HOST:PORT",
                             field="--allow-endpoint")
        if not _is_loopback(host):
            raise InputError(f"--allow-endpoint {item!r}: {host} is not a loopback address; "
                             "an agent that needs a remote endpoint needs the network "
                             "(leave out --no-network)", field="--allow-endpoint")
        if any(p == int(port_s) for _, p in out):
            raise InputError(f"--allow-endpoint {item!r}: port {port_s} is declared twice",
                             field="--allow-endpoint")
        out.append((host, int(port_s)))
    return tuple(out)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@functools.cache
def _socket_dir() -> str:
    path = tempfile.mkdtemp(prefix="rcaeval-endpoints-")
    atexit.register(shutil.rmtree, path, True)
    return path


_SERVERS: dict[tuple[str, int], str] = {}


def endpoint_socket(host: str, port: int) -> str:
    """The host-side Unix socket forwarding to ``host:port`` (started once per process)."""
    with _LOCK:
        path = _SERVERS.get((host, port))
        if path is not None:
            return path
        path = os.path.join(_socket_dir(), f"{port}.sock")
        srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        srv.bind(path)
        os.chmod(path, 0o777)  # the sandboxed agent's uid differs
        srv.listen(64)
        threading.Thread(target=_accept, args=(srv, host, port), daemon=True,
                         name=f"rcaeval-endpoint-{port}").start()
        _SERVERS[(host, port)] = path
        return path


def _accept(srv: socket.socket, host: str, port: int) -> None:
    while True:
        try:
            conn, _ = srv.accept()
        except OSError:
            return
        threading.Thread(target=_serve, args=(conn, host, port), daemon=True).start()


def _serve(conn: socket.socket, host: str, port: int) -> None:
    try:
        upstream = socket.create_connection((host, port), timeout=30)
        upstream.settimeout(None)
    except OSError:
        conn.close()
        return
    relay(conn, upstream)


def relay(a: socket.socket, b: socket.socket) -> None:
    """Copy bytes both ways until each side has closed; then close both."""
    def pump(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(_CHUNK):
                dst.sendall(data)
        except OSError:
            pass
        with contextlib.suppress(OSError):
            dst.shutdown(socket.SHUT_WR)

    t = threading.Thread(target=pump, args=(b, a), daemon=True)
    t.start()
    pump(a, b)
    t.join()
    for s in (a, b):
        with contextlib.suppress(OSError):
            s.close()
