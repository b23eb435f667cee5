"""The real Claude Code (npm ``@anthropic-ai/claude-code``, pinned in versions.txt) through
``--agent claude-code:MODEL``: sandboxed, against the project's scripted Anthropic Messages
server on 127.0.0.1 (``ANTHROPIC_BASE_URL``), over two smoke cases, with a thorough, a lazy
and a wrong script. Usage and cost come from ``claude -p --output-format json`` and reach
report.txt; the follow-up turn resumes the session."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from harnesses_kit import CASES, NPM_BIN, installed, need, run_cli, telemetry_tools, transcript
from scripted_model_kit import serve
from test_opencode import EXPECTED

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
    assert all(c in run.rows for c in CASES)
