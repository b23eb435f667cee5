"""A real Prometheus (and Alertmanager) on 127.0.0.1 for the capture tests: the Debian
``prometheus`` / ``prometheus-alertmanager`` binaries with a temp config and TSDB, scraping an
exporter the test runs (a tiny HTTP server serving the text exposition format) whose
checkout latency jumps 10x when the test flips it.

Every wait polls the servers' own APIs for the state the test needs (ready, target up, N raw
samples, the alert listed) with a bounded deadline; nothing waits a fixed time.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

PROMETHEUS = shutil.which("prometheus")
ALERTMANAGER = shutil.which("prometheus-alertmanager") or shutil.which("alertmanager")
LATENCY = "checkout_request_latency_seconds"
BASE_LATENCY, FAULT_LATENCY = 0.12, 1.2
"""checkout-0's latency before and after the fault (10x); checkout-1 stays at 0.11."""
ALERT = "CheckoutLatencyHigh"
DEADLINE_S = 60.0
POLL_S = 0.2


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(what: str, check: Callable[[], Any], deadline_s: float = DEADLINE_S,
             proc: subprocess.Popen[bytes] | None = None, log: Path | None = None) -> Any:
    """Poll ``check`` until it returns a truthy value (returned); fail after ``deadline_s``
    or when ``proc`` exits, with its log."""
    end = time.monotonic() + deadline_s
    while True:
        try:
            got = check()
        except httpx.HTTPError:
            got = None
        if got:
            return got
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"{what}: the server exited {proc.returncode}:\n"
                                 + (log.read_text(errors="replace")[-3000:] if log else ""))
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {deadline_s:.0f} s waiting for {what}"
                                 + (":\n" + log.read_text(errors="replace")[-3000:]
                                    if log else ""))
        time.sleep(POLL_S)  # a poll interval, not a synchronisation: the loop checks state


class Exporter:
    """The scraped app: two checkout pods' p99 latency and an in-flight gauge, in the
    Prometheus text exposition format; :meth:`fault` makes checkout-0 10x slower."""

    def __init__(self) -> None:
        self.faulty = False
        exporter = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                body = exporter.exposition().encode()
                self.send_response(200 if self.path == "/metrics" else 404)
                self.send_header("Content-Type", "text/plain; version=0.0.4")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = int(self.server.server_address[1])
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def exposition(self) -> str:
        slow = FAULT_LATENCY if self.faulty else BASE_LATENCY
        return (f"# HELP {LATENCY} p99 latency of checkout requests.\n"
                f"# TYPE {LATENCY} gauge\n"
                f'{LATENCY}{{service="checkout",pod="checkout-0"}} {slow}\n'
                f'{LATENCY}{{service="checkout",pod="checkout-1"}} 0.11\n'
                "# HELP checkout_inflight_requests Requests in flight.\n"
                "# TYPE checkout_inflight_requests gauge\n"
                'checkout_inflight_requests{service="checkout",pod="checkout-0"} 4\n'
                'checkout_inflight_requests{service="checkout",pod="checkout-1"} 4\n')

    def fault(self) -> None:
        self.faulty = True


def _start(args: list[str], log: Path) -> subprocess.Popen[bytes]:
    fh = log.open("wb")
    try:
        return subprocess.Popen(args, stdout=fh, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    finally:
        fh.close()


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


class Stack:
    """The running servers: the exporter, Prometheus and (when installed) Alertmanager."""

    def __init__(self, root: Path, exporter: Exporter, prom_url: str,
                 prom: subprocess.Popen[bytes], am_url: str | None) -> None:
        self.root, self.exporter, self.prom_url, self.prom, self.am_url = (
            root, exporter, prom_url, prom, am_url)

    def query(self, promql: str) -> list[dict[str, Any]]:
        r = httpx.get(f"{self.prom_url}/api/v1/query", params={"query": promql}, timeout=10)
        r.raise_for_status()
        return r.json()["data"]["result"]

    def raw_samples(self, selector: str) -> list[tuple[float, float]]:
        """Every raw sample of ``selector`` Prometheus holds (a range selector over 1 h)."""
        out = []
        for series in self.query(f"{selector}[1h]"):
            out += [(float(t), float(v)) for t, v in series["values"]]
        return sorted(out)

    def wait_samples(self, selector: str, n: int, value: float | None = None) -> list[Any]:
        def enough() -> list[Any] | None:
            got = [s for s in self.raw_samples(selector) if value is None or s[1] == value]
            return got if len(got) >= n else None

        return wait_for(f"{n} samples of {selector}" + (f" = {value}" if value else ""),
                        enough, proc=self.prom, log=self.root / "prometheus.log")

    def wait_alert(self, name: str) -> dict[str, Any]:
        def listed() -> dict[str, Any] | None:
            r = httpx.get(f"{self.am_url}/api/v2/alerts", timeout=10)
            return next((a for a in r.json() if a["labels"].get("alertname") == name), None)

        return wait_for(f"alert {name} in Alertmanager", listed,
                        log=self.root / "alertmanager.log")


def _prom_config(exporter_port: int, am_port: int | None) -> str:
    alerting = (f"alerting:\n  alertmanagers:\n    - static_configs:\n"
                f"        - targets: ['127.0.0.1:{am_port}']\n") if am_port else ""
    return (
        "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n"
        "rule_files: ['rules.yml']\n" + alerting
        + "scrape_configs:\n  - job_name: shop\n    static_configs:\n"
        f"      - targets: ['127.0.0.1:{exporter_port}']\n")


RULES = f"""groups:
  - name: checkout
    rules:
      - alert: {ALERT}
        expr: {LATENCY} > 0.5
        labels:
          severity: page
        annotations:
          summary: checkout p99 latency above 500 ms on {{{{ $labels.pod }}}}
          description: p99 is {{{{ $value }}}} s
"""


@contextmanager
def running_stack(root: Path, *, alertmanager: bool = True) -> Iterator[Stack]:
    """Start the exporter, Alertmanager (if asked and installed) and Prometheus under
    ``root``; yield once Prometheus is ready and the exporter's target is up."""
    assert PROMETHEUS, "prometheus is not installed (make prometheus-deps)"
    root.mkdir(parents=True, exist_ok=True)
    exporter = Exporter()
    exporter.thread.start()
    procs: list[subprocess.Popen[bytes]] = []
    try:
        am_port = am_url = None
        if alertmanager and ALERTMANAGER:
            am_port = free_port()
            am_url = f"http://127.0.0.1:{am_port}"
            (root / "alertmanager.yml").write_text(
                "route:\n  receiver: sink\n  group_wait: 0s\nreceivers:\n  - name: sink\n")
            am = _start([ALERTMANAGER, f"--config.file={root / 'alertmanager.yml'}",
                         f"--storage.path={root / 'am-data'}",
                         f"--web.listen-address=127.0.0.1:{am_port}",
                         "--cluster.listen-address="], root / "alertmanager.log")
            procs.append(am)
            wait_for("Alertmanager ready", lambda: httpx.get(
                f"{am_url}/-/ready", timeout=5).status_code == 200, proc=am,
                log=root / "alertmanager.log")
        port = free_port()
        (root / "prometheus.yml").write_text(_prom_config(exporter.port, am_port))
        (root / "rules.yml").write_text(RULES)
        prom = _start([PROMETHEUS, f"--config.file={root / 'prometheus.yml'}",
                       f"--storage.tsdb.path={root / 'tsdb'}",
                       f"--web.listen-address=127.0.0.1:{port}"], root / "prometheus.log")
        procs.append(prom)
        url = f"http://127.0.0.1:{port}"
        log = root / "prometheus.log"
        wait_for("Prometheus ready", lambda: httpx.get(
            f"{url}/-/ready", timeout=5).status_code == 200, proc=prom, log=log)

        def target_up() -> bool:
            r = httpx.get(f"{url}/api/v1/targets", timeout=5).json()
            return any(t["health"] == "up" for t in r["data"]["activeTargets"])

        wait_for("the exporter's target up", target_up, proc=prom, log=log)
        yield Stack(root, exporter, url, prom, am_url)
    finally:
        for p in reversed(procs):
            _stop(p)
        exporter.server.shutdown()
        exporter.server.server_close()


def env_without_proxy() -> dict[str, str]:
    """The environment for a CLI subprocess: no HTTP proxy between it and 127.0.0.1."""
    return {k: v for k, v in os.environ.items()
            if k.lower() not in ("http_proxy", "https_proxy", "all_proxy")} | {
        "NO_PROXY": "127.0.0.1,localhost", "COLUMNS": "200"}


def rcaeval(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m rcaeval ARGS`` in a real subprocess (no proxy for 127.0.0.1)."""
    return subprocess.run([sys.executable, "-m", "rcaeval", *args], capture_output=True,
                          text=True, timeout=300, env=env_without_proxy(), check=False)
