"""The real Claude Code (npm ``@anthropic-ai/claude-code``, pinned in versions.txt) through
``--agent claude-code:MODEL``: sandboxed, against the project's scripted Anthropic Messages
server on 127.0.0.1 (``ANTHROPIC_BASE_URL``), over two smoke cases, with a thorough, a lazy
and a wrong script. Usage and cost come from ``claude -p --output-format json`` and reach
report.txt; the follow-up turn resumes the session."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from harnesses_kit import NPM_BIN, assert_scripted_run, installed, need, run_cli
from scripted_model_kit import serve

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500)]


@pytest.mark.parametrize("script", ["thorough", "lazy", "wrong"])
def test_claude_code_through_the_profile(tmp_path: Path, script: str):
    need(installed(), "@anthropic-ai/claude-code")
    with serve(script) as model:
        env = {"PATH": f"{NPM_BIN}{os.pathsep}{os.environ['PATH']}"}
        args = ["--agent-env", f"ANTHROPIC_BASE_URL={model.url}",
                "--agent-env", "ANTHROPIC_API_KEY=sk-scripted"]
        if script == "lazy":  # the model endpoint is all a --no-network agent reaches
            args += ["--no-network", "--allow-endpoint", f"127.0.0.1:{model.port}"]
        run = run_cli(tmp_path, "claude-code:claude-sonnet-4-5", env=env, args=args)
    assert_scripted_run(run, model, script)
