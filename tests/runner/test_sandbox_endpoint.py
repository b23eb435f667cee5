"""``--no-network --allow-endpoint HOST:PORT``: a model server on the host's loopback is
reachable from the sandbox at 127.0.0.1:PORT, and nothing else is (docs/agents.md,
"Sandbox")."""

from __future__ import annotations

import socket
import threading
import uuid

import pytest

from rcaeval.errors import InputError
from rcaeval.runner import execute_case
from rcaeval.runner._endpoints import parse_endpoints
from rcaeval.runner._sandbox import bwrap_path, resolve_sandbox

AGENT = """
import socket, sys
out = []
for port in sys.argv[1:]:
    try:
        with socket.create_connection(("127.0.0.1", int(port)), timeout=10) as s:
            s.sendall(b"ping " + port.encode() + b"\\n")
            s.shutdown(socket.SHUT_WR)
            out.append(s.makefile("rb").read().decode().strip())
    except OSError as exc:
        out.append(f"refused {port}: {exc.strerror or exc}")
print(" | ".join(out))
"""


def _server() -> tuple[socket.socket, int]:
    """A line server on the host's loopback: answers ``pong <what it read>``."""
    srv = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            with conn:
                data = conn.makefile("rb").readline()
                conn.sendall(b"pong " + data)

    threading.Thread(target=serve, daemon=True).start()
    return srv, srv.getsockname()[1]


@pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")
def test_a_declared_loopback_endpoint_is_reachable_without_network(make_case, dirs, tmp_path):
    agent = tmp_path / "net_agent.py"
    agent.write_text(AGENT)
    allowed_srv, allowed = _server()
    other_srv, other = _server()
    case, case_dir = make_case()
    try:
        spec = f"command:{{python}} {agent} {allowed} {other}"
        res = execute_case(f"r-{uuid.uuid4().hex[:6]}", case, spec, case_dir=case_dir,
                           timeout_s=120, sandbox="bwrap", network=False,
                           allow_endpoints=[f"127.0.0.1:{allowed}"], **dirs)
        assert res.status == "completed", res.error
        got = res.final_text.strip().split(" | ")
        assert got[0] == f"pong ping {allowed}", got
        assert got[1].startswith(f"refused {other}"), got
        assert res.manifest["sandbox"] == f"bwrap (no network; endpoints 127.0.0.1:{allowed})"
        # without the declaration neither is reachable
        res = execute_case(f"r-{uuid.uuid4().hex[:6]}", case, spec, case_dir=case_dir,
                           timeout_s=120, sandbox="bwrap", network=False, **dirs)
        assert all(g.startswith("refused") for g in res.final_text.strip().split(" | "))
    finally:
        allowed_srv.close()
        other_srv.close()


def test_endpoint_options_are_checked():
    assert parse_endpoints(["127.0.0.1:8000", "localhost:11434", "[::1]:9"]) == (
        ("127.0.0.1", 8000), ("localhost", 11434), ("::1", 9))
    with pytest.raises(InputError, match="not a loopback address"):
        parse_endpoints(["api.openai.com:443"])
    with pytest.raises(InputError, match="expected HOST:PORT"):
        parse_endpoints(["127.0.0.1"])
    with pytest.raises(InputError, match="declared twice"):
        parse_endpoints(["127.0.0.1:80", "localhost:80"])
    if bwrap_path() is not None:
        with pytest.raises(InputError, match="is for --no-network"):
            resolve_sandbox("require", endpoints=["127.0.0.1:80"])
