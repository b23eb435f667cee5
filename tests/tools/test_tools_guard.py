"""What the MCP server answers to hostile requests over stdio (docs/tools.md, "Errors and
limits"): invalid Unicode gets a JSON-RPC error, every tool error carries a message without
pydantic's URLs, oversized numbers and patterns are refused with a message."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

from tools_kit import PANIC_CASE

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "t", "version": "1"}}}


def _call(i: int, arguments: str, name: str = "search_logs") -> str:
    return ('{"jsonrpc": "2.0", "id": ' + str(i) + ', "method": "tools/call", "params": '
            '{"name": "' + name + '", "arguments": ' + arguments + '}}')


def test_hostile_requests_over_stdio_all_get_an_answer_with_a_message(tmp_path: Path):
    calls = [
        _call(2, '{"pattern": "\\ud800"}'),
        _call(3, '{"limit": 1000000000000000000000000000000}'),
        _call(4, json.dumps({"pattern": "(" * 5000})),
        _call(5, json.dumps({"pattern": "(" * 900 + ")" * 900})),
        _call(6, '{"limit": "x"}'),
        _call(7, '{"component": "\\udfff"}', name="get_component_health"),
        _call(8, '{}', name="get_ticket"),
    ]
    lines = [json.dumps(INIT), json.dumps({"jsonrpc": "2.0",
                                           "method": "notifications/initialized"}), *calls]
    proc = subprocess.Popen(
        [sys.executable, "-m", "rcaeval.tools", "serve", "--case-dir", str(PANIC_CASE),
         "--bundle-dir", str(tmp_path / "b")], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    guard = threading.Timer(120, proc.kill)  # a hang fails the test instead of blocking it
    guard.start()
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("\n".join(lines) + "\n")
        proc.stdin.flush()
        answers = {}
        while len(answers) < 8:  # stdin stays open: EOF would end the session
            line = proc.stdout.readline()
            assert line, "the server stopped answering"
            msg = json.loads(line)
            answers[msg["id"]] = msg
        proc.stdin.close()
        stderr = proc.stderr.read() if proc.stderr else ""
        proc.wait()
    finally:
        guard.cancel()
        proc.kill()
    assert sorted(answers) == [1, 2, 3, 4, 5, 6, 7, 8]
    for i in (2, 7):  # invalid Unicode: a JSON-RPC error, not silence
        assert answers[i]["error"]["code"] == -32602
        assert "invalid Unicode" in answers[i]["error"]["message"]
    for i in (3, 4, 5, 6):
        result = answers[i]["result"]
        text = result["content"][0]["text"]
        assert result["isError"] and text.startswith("search_logs: ") and len(text) > 20
        assert "pydantic.dev" not in text and "Error executing tool" not in text
    assert "limit must be between 1 and 200" in answers[3]["result"]["content"][0]["text"]
    assert "at most 1000" in answers[4]["result"]["content"][0]["text"]
    assert "invalid arguments: limit" in answers[6]["result"]["content"][0]["text"]
    assert "INC-4211" in answers[8]["result"]["content"][0]["text"]
    assert "Traceback" not in stderr
