"""Small HTTP helpers of the lab: free ports on 127.0.0.1, GETs with a timeout, polling a
real condition until a deadline."""

from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from typing import Any

from rcaeval.lab._procs import LabError


def free_ports(n: int) -> list[int]:
    """``n`` distinct ports free on 127.0.0.1 (held open together while choosing)."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def get(url: str, *, timeout: float = 3.0) -> bytes | None:
    """The body of a 2xx GET, or None when the server is unreachable or answers otherwise."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return resp.read()
    except (urllib.error.URLError, OSError, ValueError):
        return None


def get_json(url: str, **params: str) -> Any:
    if params:
        url += "?" + urllib.parse.urlencode(params)
    body = get(url)
    return None if body is None else json.loads(body)


def poll(what: str, check: Callable[[], Any], *, timeout_s: float, every_s: float = 0.25) -> Any:
    """Call ``check`` until it returns something truthy (returned) or ``timeout_s`` passes
    (a :class:`LabError` naming ``what``)."""
    deadline = time.monotonic() + timeout_s
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > deadline:
            raise LabError(f"lab: {what} not reached within {timeout_s:.0f} s")
        time.sleep(every_s)  # polling interval of a real condition
