"""The real Gemini CLI (npm ``@google/gemini-cli``, pinned in versions.txt) through
``--agent gemini:MODEL``: sandboxed, against the project's scripted Gemini API server on
127.0.0.1 (``GOOGLE_GEMINI_BASE_URL``, ``…:streamGenerateContent``), over two smoke cases,
with a thorough, a lazy and a wrong script. Tokens come from ``gemini --output-format json``
(its ``stats``), the cost from declared prices (Gemini CLI reports none); both reach
report.txt; the follow-up turn resumes the session (``--resume ID``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from harnesses_kit import CASES, NPM_BIN, installed, need, run_cli, telemetry_tools, transcript
from scripted_model_kit import serve
from test_opencode import EXPECTED

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500)]


@pytest.mark.parametrize("script", ["thorough", "lazy", "wrong"])
def test_gemini_cli_through_the_profile(tmp_path: Path, script: str):
    need(installed(), "@google/gemini-cli")
    with serve(script) as model:
        env = {"PATH": f"{NPM_BIN}{os.pathsep}{os.environ['PATH']}"}
        args = ["--agent-env", f"GOOGLE_GEMINI_BASE_URL={model.url}",
                "--agent-env", "GEMINI_API_KEY=scripted",
                "--agent-env", "RCAEVAL_PRICE_IN=1.25", "--agent-env", "RCAEVAL_PRICE_OUT=10"]
        if script == "thorough":  # the model endpoint is all a --no-network agent reaches
            args += ["--no-network", "--allow-endpoint", f"127.0.0.1:{model.port}"]
        run = run_cli(tmp_path, "gemini:gemini-2.5-pro", env=env, args=args)
    assert not model.errors, model.errors
    assert {e["api"] for e in model.log} == {"gemini"}, model.log[:3]
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
    # turn 2 resumed turn 1's session: the scripted model saw the whole investigation in the
    # follow-up's history and answered it without a second one
    turns = transcript(run, "cpu-hotspot-region-001")
    assert [t["turn"] for t in turns] == [1, 1, 2, 2]
    assert turns[3]["text"].startswith("## Follow-up 1"), turns[3]
    assert all(c in run.rows for c in CASES)
