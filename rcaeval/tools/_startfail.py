"""A stdio tool server that cannot start says why over MCP before it exits.

Without this a client sees only "Connection closed" (the reason went to stderr, which many
clients do not show). The first JSON-RPC request (``initialize``) gets an error response
whose message is the reason; the server then exits as before (exit 3 for bad input).
"""

from __future__ import annotations

import json
import os
import select
import sys

WAIT_S = 10.0
"""How long the failed server waits for the client's first request before it exits."""
MAX_LINE = 1024 * 1024


def report_start_failure(reason: str, *, wait_s: float = WAIT_S) -> bool:
    """Answer every request on stdin with ``reason`` until the client closes stdin (or
    sends nothing for ``wait_s``); True if at least one request was answered. Staying until
    the client hangs up lets it read the answer before it sees the connection close."""
    message = f"rcaeval tools server cannot start: {reason}"
    try:
        fd = sys.stdin.fileno()
    except (OSError, ValueError):
        return False
    buf, answered = b"", False
    while len(buf) < MAX_LINE:
        ready, _, _ = select.select([fd], [], [], wait_s)
        if not ready:
            break
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if isinstance(msg, dict) and "id" in msg and "method" in msg:
                out = {"jsonrpc": "2.0", "id": msg["id"],
                       "error": {"code": -32603, "message": message}}
                sys.stdout.write(json.dumps(out) + "\n")
                sys.stdout.flush()
                answered = True
    return answered
