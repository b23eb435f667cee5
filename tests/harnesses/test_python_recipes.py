"""Two Python agent frameworks, each running its recipe from docs/recipes/ as a ``command:``
agent that names its own interpreter (a venv of its own, pinned in versions.txt): sandboxed,
against the project's scripted OpenAI-compatible server on 127.0.0.1 (non-streamed chat
completions), over two smoke cases, with a thorough, a lazy and a wrong script.

- LangGraph (``langgraph`` + ``langchain-mcp-adapters`` + ``langchain-openai``; the adapter
  needs ``mcp<2``): docs/recipes/langgraph_agent.py.
- Pydantic AI (``pydantic-ai-slim[openai,mcp]``): docs/recipes/pydantic_ai_agent.py.

Each recipe holds one MCP session for the whole turn (one tool server, however many calls),
writes usage.json with a cost from declared prices (both reach report.txt), and turn 2
continues turn 1's message history. One script per framework also runs under
``--no-network``, where the model endpoint is all the agent reaches."""

from __future__ import annotations

from pathlib import Path

import pytest
from harnesses_kit import (
    LANGGRAPH_PY,
    PYDANTIC_AI_PY,
    REPO,
    assert_scripted_run,
    installed,
    need,
    run_cli,
)
from scripted_model_kit import serve

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500)]
RECIPES = REPO / "docs" / "recipes"
FRAMEWORKS = {  # name: (package that must be installed, interpreter, recipe, --no-network script)
    "langgraph": ("langchain-mcp-adapters", LANGGRAPH_PY, RECIPES / "langgraph_agent.py", "lazy"),
    "pydantic_ai": ("pydantic-ai-slim", PYDANTIC_AI_PY, RECIPES / "pydantic_ai_agent.py",
                    "wrong"),
}


@pytest.mark.parametrize("script", ["thorough", "lazy", "wrong"])
@pytest.mark.parametrize("framework", sorted(FRAMEWORKS))
def test_python_framework_recipe(tmp_path: Path, framework: str, script: str):
    pkg, python, recipe, offline_script = FRAMEWORKS[framework]
    need(installed(), pkg)
    with serve(script) as model:
        args = ["--agent-env", f"OPENAI_BASE_URL={model.url}/v1",
                "--agent-env", "OPENAI_API_KEY=sk-scripted",
                "--agent-env", "RCAEVAL_AGENT_MODEL=scripted-rca",
                "--agent-env", "RCAEVAL_PRICE_IN=3", "--agent-env", "RCAEVAL_PRICE_OUT=15"]
        if script == offline_script:
            args += ["--no-network", "--allow-endpoint", f"127.0.0.1:{model.port}"]
        run = run_cli(tmp_path, f"command:{python} {recipe}", env={}, args=args)
    assert_scripted_run(run, model, script, api="openai", one_server=True)
