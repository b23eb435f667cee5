"""The Gemini CLI profile (``--agent gemini:MODEL``): the settings the runner writes into the
workspace's ``GEMINI_CLI_HOME``, the command line of each turn, what is read from
``--output-format json``, and the repaired session a follow-up turn continues (Gemini CLI's
own session file repeats every tool result). The real Gemini CLI runs in
tests/harnesses/test_gemini_cli.py (slow)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from rcaeval.errors import InputError
from rcaeval.runner import RunCase, create_workspace
from rcaeval.runner._agents import parse_agent_spec
from rcaeval.runner._profile_gemini import GeminiAgent, dedupe_session


@pytest.fixture
def gemini(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "bin" / "gemini"
    path.parent.mkdir()
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{path.parent}{os.pathsep}{os.environ['PATH']}")
    return path


def _ws(tmp: Path, tools: str = "mcp"):
    return create_workspace(tmp / "ws", RunCase(case_id="c1", prompt="find it"), run_id="r",
                            tools=tools)


def test_settings_and_command_line(gemini: Path, tmp_path: Path):
    agent = parse_agent_spec("gemini:gemini-2.5-pro", env={"GEMINI_API_KEY": "k"})
    assert isinstance(agent, GeminiAgent) and agent.exe == str(gemini)
    assert agent.info()["harness"] == "gemini" and agent.info()["model"] == "gemini-2.5-pro"
    ws = _ws(tmp_path)
    env = agent.turn_env(ws, 1)
    assert env["GEMINI_CLI_HOME"] == str(ws.home) and env["GEMINI_API_KEY"] == "k"
    doc = json.loads((ws.home / ".gemini" / "settings.json").read_text())
    server = doc["mcpServers"]["rcaeval"]
    assert server["trust"] is True and server["args"][:3] == ["-P", "-m", "rcaeval.tools"]
    assert doc["security"]["auth"]["selectedType"] == "gemini-api-key"
    assert doc["privacy"]["usageStatisticsEnabled"] is False
    assert agent.turn_argv(ws, 1) == [str(gemini), "--output-format", "json", "--approval-mode",
                                      "yolo", "--skip-trust", "-m", "gemini-2.5-pro"]
    files = _ws(tmp_path / "f", tools="files")
    agent.turn_env(files, 1)
    assert "mcpServers" not in json.loads((files.home / ".gemini" / "settings.json").read_text())
    vertex = parse_agent_spec("gemini:", env={"GOOGLE_GENAI_USE_VERTEXAI": "true"})
    assert vertex.settings(ws)["security"]["auth"]["selectedType"] == "vertex-ai"
    assert vertex.model is None and "-m" not in vertex.turn_argv(ws, 1)


def test_json_output_tokens_and_declared_prices(gemini: Path):
    doc = {"session_id": "s-1", "response": "## Root cause", "stats": {"models": {
        "gemini-2.5-pro": {"api": {"totalRequests": 3}, "tokens": {
            "input": 900, "prompt": 1000, "candidates": 40, "thoughts": 10, "cached": 100}},
        "gemini-2.5-flash": {"api": {"totalRequests": 1}, "tokens": {
            "input": 100, "prompt": 100, "candidates": 5, "thoughts": 0, "cached": 0}}}}}
    text = "Loaded cached credentials.\n" + json.dumps(doc, indent=2)
    got = parse_agent_spec("gemini:").parse(text)
    assert got["answer"] == "## Root cause" and got["session"] == "s-1" and not got["error"]
    assert got["usage"] == {"input_tokens": 1000, "output_tokens": 55, "cache_read_tokens": 100,
                            "requests": 4}
    priced = parse_agent_spec("gemini:", env={"RCAEVAL_PRICE_IN": "1.25",
                                              "RCAEVAL_PRICE_OUT": "10"}).parse(text)
    assert priced["usage"]["cost_usd"] == pytest.approx((1100 * 1.25 + 55 * 10) / 1e6)
    err = parse_agent_spec("gemini:").parse(json.dumps(
        {"session_id": "s-2", "error": {"type": "Error", "message": "Invalid auth", "code": 41}}))
    assert err["error"] == "Error: Invalid auth" and err["answer"] == ""
    assert parse_agent_spec("gemini:").parse("no json here") == {}
    with pytest.raises(InputError, match="must be numbers"):
        parse_agent_spec("gemini:", env={"RCAEVAL_PRICE_IN": "x",
                                         "RCAEVAL_PRICE_OUT": "1"}).parse(text)


def _session_lines() -> list[dict]:
    call = {"id": "c1", "name": "mcp_rcaeval_get_ticket", "args": {},
            "result": [{"functionResponse": {"id": "c1", "name": "mcp_rcaeval_get_ticket",
                                             "response": {"output": "{}"}}}]}
    return [{"sessionId": "abcdef12-0000", "projectHash": "h"},
            {"id": "u1", "type": "user", "content": [{"text": "find it"}]},
            {"id": "g1", "type": "gemini", "content": "", "toolCalls": [call]},
            {"id": "u2", "type": "user", "content": call["result"]},
            {"$set": {"lastUpdated": "x"}},
            {"id": "g2", "type": "gemini", "content": "## Root cause"}]


def test_the_duplicate_tool_results_are_dropped():
    lines = _session_lines()
    text = "".join(json.dumps(r) + "\n" for r in lines) + "not json\n"
    kept = [json.loads(x) for x in dedupe_session(text).splitlines()]
    assert kept == [r for r in lines if r.get("id") != "u2"]
    # a user record with a result no call holds is the agent's own and stays
    lines[3]["content"] = [{"functionResponse": {"id": "other", "response": {}}}]
    text = "".join(json.dumps(r) + "\n" for r in lines)
    assert len(dedupe_session(text).splitlines()) == len(lines)


def test_turn_two_continues_the_repaired_session(gemini: Path, tmp_path: Path):
    agent = parse_agent_spec("gemini:m")
    ws = _ws(tmp_path)
    agent.turn_env(ws, 1)
    chats = ws.home / ".gemini" / "tmp" / "ws" / "chats"
    chats.mkdir(parents=True)
    src = chats / "session-2026-12-02T02-13-abcdef12.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in _session_lines()))
    agent._sessions[str(ws.path)] = "abcdef12-0000"
    argv = agent.turn_argv(ws, 2)
    copy = ws.runner_dir / "gemini-session-2.jsonl"
    assert argv[-2:] == ["--session-file", str(copy)]
    assert [json.loads(x).get("id") for x in copy.read_text().splitlines()] == \
        [None, "u1", "g1", None, "g2"]
    # a session file reached through a symlink is never read: plain --resume instead
    src.unlink()
    outside = tmp_path / "secret.jsonl"
    outside.write_text('{"id": "s", "type": "user", "content": [{"text": "secret"}]}\n')
    src.symlink_to(outside)
    assert agent.turn_argv(ws, 3)[-2:] == ["--resume", "abcdef12-0000"]
    assert not (ws.runner_dir / "gemini-session-3.jsonl").exists()
