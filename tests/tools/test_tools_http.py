"""`rcaeval tools serve --transport http`: streamable HTTP on 127.0.0.1, a free port, the URL
announced on stderr."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest
from tools_kit import PANIC_CASE

from rcaeval.tools import client_caller


@pytest.mark.slow
def test_serve_over_streamable_http(tmp_path: Path):
    from mcp import Client

    proc = subprocess.Popen(
        [sys.executable, "-m", "rcaeval.tools", "serve", "--case-dir", str(PANIC_CASE),
         "--bundle-dir", str(tmp_path / "b"), "--transport", "http"],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        assert proc.stderr is not None
        url, token_line = "", ""
        for line in proc.stderr:
            if line.startswith("rcaeval incident tools token: "):
                token_line = line
            if line.startswith("rcaeval incident tools: "):
                url = line.split(": ", 1)[1].strip()
                break
        assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")

        assert token_line.startswith("rcaeval incident tools token: ")
        token = token_line.split(": ", 1)[1].strip()

        async def main(headers: dict[str, str]) -> dict:
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import create_mcp_http_client

            async with create_mcp_http_client(headers=headers) as http, \
                    Client(streamable_http_client(url, http_client=http)) as client:
                return await client_caller(client)("get_ticket", {})
        out = asyncio.run(main({"Authorization": f"Bearer {token}"}))
        assert out["ticket"]["ticket_id"] == "INC-4211"
        # without the token (or with another one) nothing is served
        import httpx2

        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": token}):
            r = httpx2.post(url, json=init, headers={
                **headers, "Accept": "application/json, text/event-stream"})
            assert r.status_code == 401, (headers, r.status_code)
        assert (tmp_path / "b/evidences/ticket_context.json").is_file()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        if proc.stderr:
            proc.stderr.close()


def test_serve_rejects_bad_options(tmp_path: Path):
    from rcaeval.cli import main

    assert main(["tools", "serve", "--case-dir", str(tmp_path)]) == 3
    assert main(["tools", "serve", "--case-dir", str(PANIC_CASE), "--transport", "ws"]) == 3
