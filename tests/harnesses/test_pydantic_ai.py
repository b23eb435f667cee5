"""Pydantic AI (PyPI ``pydantic-ai-slim[openai,mcp]``, pinned in versions.txt, in a venv of its
own) running docs/recipes/pydantic_ai_agent.py as a ``command:`` agent that names its own
interpreter: sandboxed, against the project's scripted OpenAI-compatible server on 127.0.0.1,
over two smoke cases, with a thorough, a lazy and a wrong script. The recipe holds one MCP
session for the turn (one tool server), writes usage.json with a cost from declared prices
(both reach report.txt), and turn 2 continues turn 1's message history."""

from __future__ import annotations

from pathlib import Path

import pytest
from harnesses_kit import (
    PYDANTIC_AI_PY,
    REPO,
    installed,
    need,
    run_cli,
    telemetry_tools,
    tool_servers,
    transcript,
)
from scripted_model_kit import serve
from test_opencode import EXPECTED

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500)]
RECIPE = REPO / "docs" / "recipes" / "pydantic_ai_agent.py"


@pytest.mark.parametrize("script", ["thorough", "lazy", "wrong"])
def test_pydantic_ai_recipe(tmp_path: Path, script: str):
    need(installed(), "pydantic-ai-slim")
    with serve(script) as model:
        args = ["--agent-env", f"OPENAI_BASE_URL={model.url}/v1",
                "--agent-env", "OPENAI_API_KEY=sk-scripted",
                "--agent-env", "RCAEVAL_AGENT_MODEL=scripted-rca",
                "--agent-env", "RCAEVAL_PRICE_IN=3", "--agent-env", "RCAEVAL_PRICE_OUT=15"]
        if script == "wrong":
            args += ["--no-network", "--allow-endpoint", f"127.0.0.1:{model.port}"]
        run = run_cli(tmp_path, f"command:{PYDANTIC_AI_PY} {RECIPE}", env={}, args=args)
    assert not model.errors, model.errors
    assert {e["api"] for e in model.log} == {"openai"}, model.log[:3]
    got = {c: (r["verdict"], r["subtype"]) for c, r in run.rows.items()}
    assert got == EXPECTED[script], (got, run.proc.stderr[-3000:])
    for case, row in run.rows.items():
        assert row["tokens"]["input_tokens"] > 1000 and row["tokens"]["output_tokens"] > 0
        assert row["cost_usd"] > 0, row
        tools = telemetry_tools(run, case)
        assert ("search_logs" in tools) is (script != "lazy"), tools
        assert tools[-1] == "submit_report" and tools.count("get_ticket") == 1, tools
        assert len(tools) > 10 and tool_servers(run, case) == 1, tools
    assert "(2 of 2 cases reported)" in run.report.split("tokens:")[1].splitlines()[0]
    assert "(2 of 2 cases reported)" in run.report.split("cost:")[1].splitlines()[0]
    turns = transcript(run, "cpu-hotspot-region-001")
    assert [t["turn"] for t in turns] == [1, 1, 2, 2]
    assert turns[3]["text"].startswith("## Follow-up 1"), turns[3]
