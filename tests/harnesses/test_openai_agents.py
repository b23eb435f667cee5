"""The OpenAI Agents SDK (PyPI ``openai-agents``, pinned in versions.txt, in its own venv)
running docs/recipes/openai_agents_sdk.py as a ``command:`` agent that names its own
interpreter: sandboxed (the venv is mounted whole), against the project's scripted
OpenAI-compatible server on 127.0.0.1, over two smoke cases, with a thorough, a lazy and a
wrong script. The recipe writes usage.json with a cost from declared prices; both reach
report.txt; turn 2 continues the SQLite session of turn 1."""

from __future__ import annotations

from pathlib import Path

import pytest
from harnesses_kit import AGENTS_PY, REPO, installed, need, run_cli, telemetry_tools, transcript
from scripted_model_kit import serve
from test_opencode import EXPECTED

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500)]
RECIPE = REPO / "docs" / "recipes" / "openai_agents_sdk.py"


@pytest.mark.parametrize("script", ["thorough", "lazy", "wrong"])
def test_openai_agents_sdk_recipe(tmp_path: Path, script: str):
    need(installed(), "openai-agents")
    with serve(script) as model:
        args = ["--agent-env", f"OPENAI_BASE_URL={model.url}/v1",
                "--agent-env", "OPENAI_API_KEY=sk-scripted",
                "--agent-env", "RCAEVAL_AGENT_MODEL=scripted-rca",
                "--agent-env", "RCAEVAL_PRICE_IN=3", "--agent-env", "RCAEVAL_PRICE_OUT=15",
                "--agent-env", "OPENAI_AGENTS_DISABLE_TRACING=1"]
        if script == "thorough":
            args += ["--no-network", "--allow-endpoint", f"127.0.0.1:{model.port}"]
        run = run_cli(tmp_path, f"command:{AGENTS_PY} {RECIPE}", env={}, args=args)
    assert not model.errors, model.errors
    got = {c: (r["verdict"], r["subtype"]) for c, r in run.rows.items()}
    assert got == EXPECTED[script], (got, run.proc.stderr[-3000:])
    for case, row in run.rows.items():
        assert row["tokens"]["input_tokens"] > 1000 and row["tokens"]["output_tokens"] > 0
        assert row["cost_usd"] > 0, row
        tools = telemetry_tools(run, case)
        assert ("search_logs" in tools) is (script != "lazy"), tools
        assert tools[-1] == "submit_report" and tools.count("get_ticket") == 1, tools
    assert "(2 of 2 cases reported)" in run.report.split("tokens:")[1].splitlines()[0]
    assert "(2 of 2 cases reported)" in run.report.split("cost:")[1].splitlines()[0]
    turns = transcript(run, "cpu-hotspot-region-001")
    assert [t["turn"] for t in turns] == [1, 1, 2, 2]
    assert turns[3]["text"].startswith("## Follow-up 1"), turns[3]
