"""The lab's own service: a small HTTP front end over the lab database that writes one JSON
log line per request (``logs/service.jsonl``) and exposes its request counters to Prometheus.

``GET /accounts/AID`` reads a balance, ``POST /accounts/AID/deposit?delta=N`` writes one (and
its history row), ``GET /orders/pending`` counts the order backlog, ``GET /healthz`` answers
without the database, ``GET /metrics`` is the Prometheus text format.
Each request runs ``psql`` (as the ``app`` role, statement timeout 2 s) over 127.0.0.1, so what
the database does — a lock, a full connection table, a slow plan — is what a caller sees.

``lab up`` copies this file (standard library only) and its SQL files into the lab dir and
runs it there with a Python the lab user can execute:
``python3 _service.py --port N --pg-port N --log FILE --sql-dir DIR``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import threading
import time
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

_LOCK = threading.Lock()
_COUNTS: dict[tuple[str, str], int] = {}
_SECONDS: dict[str, list[float]] = {}


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class _Service:
    def __init__(self, pg_port: int, log: Path, sql_dir: Path, psql: str) -> None:
        self.sql_dir, self.psql = sql_dir, psql
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PGHOST": "127.0.0.1",
                    "PGPORT": str(pg_port), "PGUSER": "app", "PGDATABASE": "lab",
                    "PGCONNECT_TIMEOUT": "3", "PGOPTIONS": "-c statement_timeout=2000",
                    "PGAPPNAME": "lab-service"}
        self.log = open(log, "a", buffering=1, encoding="utf-8")  # noqa: SIM115 (process-long)

    def query(self, sql_file: str, **var: str) -> tuple[bool, str]:
        argv = [self.psql, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
                "-f", str(self.sql_dir / sql_file)]
        for name, value in var.items():
            argv += ["-v", f"{name}={value}"]
        done = subprocess.run(argv, env=self.env, capture_output=True, text=True, timeout=10)
        if done.returncode != 0:
            err = [ln for ln in done.stderr.splitlines() if ln.strip()]
            return False, (err[0] if err else f"psql exited {done.returncode}")
        return True, done.stdout.strip()

    def write_log(self, record: dict) -> None:
        with _LOCK:
            self.log.write(json.dumps(record, sort_keys=True) + "\n")


def _observe(route: str, code: int, seconds: float) -> None:
    with _LOCK:
        key = (route, str(code))
        _COUNTS[key] = _COUNTS.get(key, 0) + 1
        acc = _SECONDS.setdefault(route, [0.0, 0])
        acc[0] += seconds
        acc[1] += 1


def _metrics_text() -> str:
    lines = ["# TYPE lab_service_requests_total counter"]
    with _LOCK:
        for (route, code), n in sorted(_COUNTS.items()):
            lines.append(f'lab_service_requests_total{{route="{route}",code="{code}"}} {n}')
        lines.append("# TYPE lab_service_request_seconds summary")
        for route, (total, n) in sorted(_SECONDS.items()):
            lines.append(f'lab_service_request_seconds_sum{{route="{route}"}} {total:.6f}')
            lines.append(f'lab_service_request_seconds_count{{route="{route}"}} {int(n)}')
    return "\n".join(lines) + "\n"


def _handler(service: _Service) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:  # the JSON log replaces the access log
            pass

        def _send(self, code: int, body: str, ctype: str = "application/json") -> None:
            data = body.encode()
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _account(self, method: str) -> None:
            url = urlsplit(self.path)
            parts = url.path.strip("/").split("/")
            started = time.monotonic()
            if method == "GET" and parts == ["orders", "pending"]:
                self._serve(started, "orders", None, *service.query("service_orders.sql"))
                return
            if len(parts) < 2 or parts[0] != "accounts" or not parts[1].isdigit():
                self._send(404, '{"error": "not found"}')
                return
            aid = parts[1]
            if method == "POST" and parts[2:] == ["deposit"]:
                delta = parse_qs(url.query).get("delta", ["1"])[0]
                if not delta.lstrip("-").isdigit():
                    self._send(400, '{"error": "delta must be an integer"}')
                    return
                route, ok, out = "deposit", *service.query(
                    "service_deposit.sql", aid=aid, delta=delta)
            elif method == "GET" and len(parts) == 2:
                route, ok, out = "account", *service.query("service_account.sql", aid=aid)
            else:
                self._send(404, '{"error": "not found"}')
                return
            self._serve(started, route, int(aid), ok, out)

        def _serve(self, started: float, route: str, aid: int | None, ok: bool,
                   out: str) -> None:
            seconds = time.monotonic() - started
            code = 200 if ok and out else (404 if ok else 503)
            _observe(route, code, seconds)
            record = {"ts": _now(), "component": "service", "route": route,
                      **({"aid": aid} if aid is not None else {}),
                      "status": code, "latency_ms": round(seconds * 1000, 1),
                      "level": "info" if code < 500 else "error",
                      "msg": "request served" if code < 500 else f"database error: {out}"}
            if seconds > 1.0 and code < 500:
                record["level"], record["msg"] = "warn", "slow request"
            service.write_log(record)
            body = {"balance": out, "aid": aid} if aid is not None else {"pending": out}
            self._send(code, json.dumps(body if ok else {"error": out}))

        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            if self.path == "/healthz":
                self._send(200, '{"ok": true}')
            elif self.path == "/metrics":
                self._send(200, _metrics_text(), "text/plain; version=0.0.4")
            else:
                self._account("GET")

        def do_POST(self) -> None:  # noqa: N802
            self._account("POST")

    return Handler


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="rcaeval.lab._service")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--pg-port", type=int, required=True)
    ap.add_argument("--log", type=Path, required=True)
    ap.add_argument("--sql-dir", type=Path, required=True)
    ap.add_argument("--psql", default="psql")
    args = ap.parse_args(argv)
    service = _Service(args.pg_port, args.log, args.sql_dir, args.psql)
    try:
        server = ThreadingHTTPServer(("127.0.0.1", args.port), _handler(service))
    except OSError as exc:  # e.g. the port is taken: exit, and let the supervisor restart
        service.write_log({"ts": _now(), "component": "service", "level": "error",
                           "msg": f"fatal: cannot listen on 127.0.0.1:{args.port}: {exc}"})
        raise SystemExit(1) from None
    service.write_log({"ts": _now(), "component": "service", "level": "info",
                       "msg": f"listening on 127.0.0.1:{args.port}"})
    server.serve_forever()


if __name__ == "__main__":
    main()
