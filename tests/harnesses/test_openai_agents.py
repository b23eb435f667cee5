"""The OpenAI Agents SDK (PyPI ``openai-agents``, pinned in versions.txt, in its own venv)
running docs/recipes/openai_agents_sdk.py as a ``command:`` agent that names its own
interpreter: sandboxed (the venv is mounted whole), against the project's scripted
OpenAI-compatible server on 127.0.0.1, over two smoke cases, with a thorough, a lazy and a
wrong script. The recipe writes usage.json with a cost from declared prices; both reach
report.txt; turn 2 continues the SQLite session of turn 1."""

from __future__ import annotations

from pathlib import Path

import pytest
from harnesses_kit import AGENTS_PY, REPO, assert_scripted_run, installed, need, run_cli
from scripted_model_kit import serve

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
    assert_scripted_run(run, model, script)
