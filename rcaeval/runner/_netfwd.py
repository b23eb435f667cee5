"""Inside a ``--no-network`` sandbox: listen on ``127.0.0.1:PORT`` for each declared endpoint,
relay each connection through the Unix socket the runner forwards to the host's endpoint
(rcaeval.runner._endpoints), then exec the agent.

    python -I -S _netfwd.py PORT=SOCKET [PORT=SOCKET ...] -- AGENT ARGV...

The listeners are bound before the agent starts (no race); a forked child serves them with
stdio on ``/dev/null`` (so it never holds the agent's pipes) and dies with the sandbox's PID
namespace when the agent exits. Standard library only: it runs with ``-I -S``.
"""

from __future__ import annotations

import os
import socket
import sys
import threading

_CHUNK = 64 * 1024


def _pump(src: socket.socket, dst: socket.socket) -> None:
    try:
        while data := src.recv(_CHUNK):
            dst.sendall(data)
    except OSError:
        pass
    try:
        dst.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def _relay(conn: socket.socket, path: str) -> None:
    try:
        up = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        up.connect(path)
    except OSError:
        conn.close()
        return
    t = threading.Thread(target=_pump, args=(up, conn), daemon=True)
    t.start()
    _pump(conn, up)
    t.join()
    conn.close()
    up.close()


def _serve(listener: socket.socket, path: str) -> None:
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=_relay, args=(conn, path), daemon=True).start()


def main(args: list[str]) -> None:
    split = args.index("--")
    routes = [a.split("=", 1) for a in args[:split]]
    agent = args[split + 1:]
    listeners = []
    for port, path in routes:
        for family, host in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
            try:
                s = socket.socket(family, socket.SOCK_STREAM)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                s.bind((host, int(port)))
                s.listen(64)
            except OSError:
                if family == socket.AF_INET:
                    raise
                continue  # no IPv6 loopback in this namespace
            listeners.append((s, path))
    if os.fork() == 0:
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        threads = [threading.Thread(target=_serve, args=lp, daemon=True) for lp in listeners]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        os._exit(0)
    for s, _ in listeners:
        s.close()
    os.execvp(agent[0], agent)


if __name__ == "__main__":
    main(sys.argv[1:])
