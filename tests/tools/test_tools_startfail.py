"""A stdio tool server that cannot start tells the client why over MCP (not only "Connection
closed"), and the runner's server command is not shadowed by a folder named ``rcaeval``."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest


def test_a_server_that_cannot_start_answers_initialize_with_the_reason(tmp_path: Path):
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}}
    proc = subprocess.run(
        [sys.executable, "-m", "rcaeval.tools", "serve", "--case-dir", str(tmp_path / "nope"),
         "--bundle-dir", str(tmp_path / "b")],
        input=json.dumps(init) + "\n", capture_output=True, text=True, timeout=60)
    assert proc.returncode == 3, proc.stderr
    answer = json.loads(proc.stdout.splitlines()[0])
    assert answer["id"] == 0 and answer["error"]["code"] == -32603, answer
    assert answer["error"]["message"].startswith("rcaeval tools server cannot start: ")
    assert "case dir not found" in answer["error"]["message"], answer
    assert "case dir not found" in proc.stderr


def test_an_mcp_client_sees_the_reason(tmp_path: Path):
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "rcaeval.tools", "serve", "--case-dir", str(tmp_path / "nope"),
        "--bundle-dir", str(tmp_path / "b")])

    async def main() -> None:
        async with Client(params):
            pass

    with pytest.raises(BaseException) as info:  # noqa: PT011 - whatever the client raises
        asyncio.run(main())
    assert "cannot start" in repr(info.value) + "".join(
        repr(e) for e in getattr(info.value, "exceptions", ())), info.value


def test_runner_server_command_ignores_a_folder_named_rcaeval(tmp_path: Path):
    from rcaeval.runner._mcp import server_command

    shadow = tmp_path / "rcaeval"
    shadow.mkdir()
    (shadow / "__init__.py").write_text("raise SystemExit('shadowed')\n")

    class _Ws:  # server_command only reads these
        path = tmp_path
        tools = "both"
        runner_dir = tmp_path / ".rcaeval"

    cmd, args = server_command(_Ws())  # type: ignore[arg-type]
    args = [a for a in args if a not in ("serve",)][:3] + ["--help"]
    proc = subprocess.run([cmd, *args], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0 and "shadowed" not in proc.stderr, proc.stderr
    plain = subprocess.run([cmd, "-m", "rcaeval.tools", "--help"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=60)
    assert "shadowed" in plain.stderr  # what -P prevents
