"""Harness profiles (``--agent opencode:…`` / ``claude-code:…``): the binary is found on PATH
or the spec is refused (exit 3), the command line each turn gets, and what is read from each
harness's own JSON output (answer, session, usage and cost). The real harnesses run in
tests/harnesses (slow)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from rcaeval.errors import InputError
from rcaeval.runner._agents import parse_agent_spec
from rcaeval.runner._profiles import ClaudeCodeAgent, OpencodeAgent


def _bin(tmp: Path, name: str) -> Path:
    path = tmp / "bin" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    _bin(tmp_path, "opencode")
    _bin(tmp_path, "claude")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("OPENCODE_CONFIG", str(tmp_path / "absent.json"))
    return tmp_path


def test_a_missing_binary_is_exit_3(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(InputError, match=r"'opencode' binary is not on PATH \(npm install"):
        parse_agent_spec("opencode:anthropic/claude-sonnet-4-5")
    with pytest.raises(InputError, match=r"'claude' binary is not on PATH"):
        parse_agent_spec("claude-code:")


def test_opencode_models_are_provider_slash_model(on_path: Path):
    with pytest.raises(InputError, match="PROVIDER/MODEL"):
        parse_agent_spec("opencode:gpt-5")


def test_profiles_resolve_to_absolute_binaries(on_path: Path):
    oc = parse_agent_spec("opencode:scripted/rca")
    cc = parse_agent_spec("claude-code:claude-sonnet-4-5", env={"ANTHROPIC_API_KEY": None})
    assert isinstance(oc, OpencodeAgent) and isinstance(cc, ClaudeCodeAgent)
    assert oc.exe == str(on_path / "bin" / "opencode") and oc.model == "scripted/rca"
    assert cc.info()["harness"] == "claude-code" and cc.info()["model"] == "claude-sonnet-4-5"
    assert cc.env["ENABLE_TOOL_SEARCH"] == "false" and "ANTHROPIC_API_KEY" in cc.env
    assert parse_agent_spec("claude-code:").model is None  # the harness's default model


def test_the_user_opencode_provider_is_passed_through(on_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch):
    mine = on_path / "mine.json"
    mine.write_text(json.dumps({"provider": {"p": {"npm": "@ai-sdk/openai-compatible"}},
                                "mcp": {"other": {}}, "theme": "x"}))
    monkeypatch.setenv("OPENCODE_CONFIG", str(mine))
    agent = parse_agent_spec("opencode:p/m")
    assert agent.user_config == {"provider": {"p": {"npm": "@ai-sdk/openai-compatible"}}}
    assert json.loads(agent.env["OPENCODE_CONFIG_CONTENT"]) == {
        "provider": {"p": {"npm": "@ai-sdk/openai-compatible"}}, "model": "p/m"}
    mine.write_text("{not json")
    with pytest.raises(InputError, match="not a JSON opencode config"):
        parse_agent_spec("opencode:p/m")


OPENCODE_OUT = "\n".join(json.dumps(e) for e in [
    {"type": "step_start", "sessionID": "ses_1", "part": {"messageID": "m1"}},
    {"type": "text", "sessionID": "ses_1", "part": {"messageID": "m1", "text": "Let me look."}},
    {"type": "step_finish", "sessionID": "ses_1", "part": {
        "tokens": {"input": 100, "output": 5, "reasoning": 2, "cache": {"read": 7, "write": 1}},
        "cost": 0.25}},
    {"type": "text", "sessionID": "ses_1", "part": {"messageID": "m2", "text": "## Root "}},
    {"type": "text", "sessionID": "ses_1", "part": {"messageID": "m2", "text": "cause"}},
    {"type": "step_finish", "sessionID": "ses_1", "part": {
        "tokens": {"input": 200, "output": 10, "reasoning": 0, "cache": {"read": 0, "write": 0}},
        "cost": 0.5}},
]) + "\nnot json\n"


def test_opencode_json_output(on_path: Path):
    got = parse_agent_spec("opencode:p/m").parse(OPENCODE_OUT)
    assert got["answer"] == "## Root cause" and got["session"] == "ses_1"
    assert got["usage"] == {"input_tokens": 300, "output_tokens": 17, "cache_read_tokens": 7,
                            "cache_write_tokens": 1, "cost_usd": 0.75, "steps": 2}
    err = json.dumps({"type": "error", "error": {"name": "APIError", "data": {
        "message": "Cannot connect to API"}}})
    assert parse_agent_spec("opencode:p/m").parse(err)["error"] == \
        "APIError: Cannot connect to API"


def test_claude_json_output(on_path: Path):
    doc = {"type": "result", "subtype": "success", "is_error": False, "result": "## Root cause",
           "session_id": "abc", "total_cost_usd": 0.2, "num_turns": 3,
           "usage": {"input_tokens": 50, "output_tokens": 4, "cache_read_input_tokens": 3,
                     "cache_creation_input_tokens": 2}}
    got = parse_agent_spec("claude-code:").parse(json.dumps(doc))
    assert got["answer"] == "## Root cause" and got["session"] == "abc" and not got["error"]
    assert got["usage"] == {"input_tokens": 50, "output_tokens": 4, "cache_read_tokens": 3,
                            "cache_write_tokens": 2, "cost_usd": 0.2, "num_turns": 3}
    bad = parse_agent_spec("claude-code:").parse(json.dumps(
        {**doc, "is_error": True, "subtype": "error_during_execution", "result": "boom"}))
    assert bad["error"] == "error_during_execution: boom"
    assert parse_agent_spec("claude-code:").parse("") == {}


def test_turn_two_resumes_turn_one(on_path: Path):
    class _Ws:
        path = on_path
        tools = "mcp"
        runner_dir = on_path / ".rcaeval"

    cc = parse_agent_spec("claude-code:m")
    argv1 = cc.turn_argv(_Ws(), 1)
    assert "--resume" not in argv1 and argv1[:4] == [cc.exe, "-p", "--output-format", "json"]
    assert argv1[argv1.index("--permission-mode") + 1] == "dontAsk"
    assert argv1[argv1.index("--mcp-config") + 1] == str(on_path / ".rcaeval" / "mcp.json")
    cc._sessions[str(on_path)] = "abc"
    assert cc.turn_argv(_Ws(), 2)[-2:] == ["--resume", "abc"]
    oc = parse_agent_spec("opencode:p/m")
    oc._sessions[str(on_path)] = "ses_1"
    assert oc.turn_argv(_Ws(), 2)[1:] == ["run", "--format", "json", "--auto", "-m", "p/m",
                                          "--session", "ses_1"]
