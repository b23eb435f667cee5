"""The lab's process supervisor (the part of an init system the lab needs): it runs the lab
service, restarts it a second after it exits (``Restart=always``, ``RestartSec=1``), writes
one JSON line per exit to the service's log, and exposes its own counters to Prometheus
(``lab_supervisor_restarts_total{unit}``, ``lab_supervisor_child_up{unit}``,
``lab_supervisor_last_exit_code{unit}``), so a crash loop is visible even while the service
itself cannot be scraped.

Copied into the lab dir (standard library only) and run as
``python3 _supervise.py --unit service --port N --log FILE -- ARGV...``; SIGTERM stops the
child and then the supervisor.
"""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
import threading
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

RESTART_S = 1.0


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class _State:
    def __init__(self, unit: str) -> None:
        self.unit = unit
        self.restarts = 0
        self.up = 0
        self.last_exit = 0
        self.lock = threading.Lock()
        self.stopping = threading.Event()

    def metrics(self) -> str:
        with self.lock:
            u = f'{{unit="{self.unit}"}}'
            return ("# TYPE lab_supervisor_restarts_total counter\n"
                    f"lab_supervisor_restarts_total{u} {self.restarts}\n"
                    "# TYPE lab_supervisor_child_up gauge\n"
                    f"lab_supervisor_child_up{u} {self.up}\n"
                    "# TYPE lab_supervisor_last_exit_code gauge\n"
                    f"lab_supervisor_last_exit_code{u} {self.last_exit}\n")


def _serve_metrics(state: _State, port: int) -> None:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            body = state.metrics().encode() if self.path == "/metrics" else b"ok\n"
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="rcaeval.lab._supervise")
    ap.add_argument("--unit", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--log", type=Path, required=True)
    ap.add_argument("child", nargs=argparse.REMAINDER)
    args = ap.parse_args(argv)
    child_argv = args.child[1:] if args.child[:1] == ["--"] else args.child
    state = _State(args.unit)
    _serve_metrics(state, args.port)
    log = open(args.log, "a", buffering=1, encoding="utf-8")  # noqa: SIM115 (process-long)
    current: list[subprocess.Popen] = []

    def on_term(signum: int, frame: object) -> None:
        state.stopping.set()
        for child in current:
            if child.poll() is None:
                child.terminate()

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    while not state.stopping.is_set():
        child = subprocess.Popen(child_argv, stdin=subprocess.DEVNULL)
        current[:] = [child]
        with state.lock:
            state.up = 1
        code = child.wait()
        with state.lock:
            state.up, state.last_exit = 0, code
        if state.stopping.is_set():
            break
        with state.lock:
            state.restarts += 1
            n = state.restarts
        log.write(json.dumps({"ts": _now(), "component": "supervisor", "level": "error",
                              "msg": f"{args.unit} exited with status {code}; restart {n} "
                              f"in {RESTART_S:g} s", "unit": args.unit, "exit_code": code},
                             sort_keys=True) + "\n")
        # RestartSec: the back-off before the next start (the supervisor's policy, not a
        # synchronisation); a SIGTERM meanwhile ends the wait at once
        state.stopping.wait(RESTART_S)
    sys.exit(0)


if __name__ == "__main__":
    main()
