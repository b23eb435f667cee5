"""The real opencode binary (npm ``opencode-ai``, pinned in versions.txt) through
``--agent opencode:PROVIDER/MODEL``: sandboxed, against the project's scripted
OpenAI-compatible model server on 127.0.0.1, over two smoke cases, with a thorough, a lazy
and a wrong script. The verdicts follow the script; usage and cost come from opencode's own
``--format json`` output and reach report.txt; the follow-up turn continues the session."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from harnesses_kit import CASES, NPM_BIN, installed, need, run_cli, telemetry_tools, transcript
from scripted_model_kit import serve

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500)]

EXPECTED = {
    "thorough": {c: ("pass", "diagnosis_pass") for c in CASES},
    "lazy": {"tikv-panic-restart-001": ("fail", "evidence_collection_partial"),
             "cpu-hotspot-region-001": ("fail", "evidence_collection_partial")},
    "wrong": {c: ("fail", "diagnosis_fail") for c in CASES},
}


def _user_config(tmp: Path, url: str) -> Path:
    """The user's own opencode config: a provider for the scripted server (with prices, so
    opencode computes a cost). The profile copies ``provider`` into the generated config."""
    path = tmp / "my-opencode.json"
    path.write_text(json.dumps({"provider": {"scripted": {
        "npm": "@ai-sdk/openai-compatible", "name": "Scripted",
        "options": {"baseURL": f"{url}/v1", "apiKey": "scripted"},
        "models": {"rca": {"name": "rca", "cost": {"input": 3, "output": 15}}}}}}))
    return path


@pytest.mark.parametrize("script", ["thorough", "lazy", "wrong"])
def test_opencode_through_the_profile(tmp_path: Path, script: str):
    need(installed(), "opencode-ai")
    with serve(script) as model:
        env = {"PATH": f"{NPM_BIN}{os.pathsep}{os.environ['PATH']}",
               "OPENCODE_CONFIG": str(_user_config(tmp_path, model.url))}
        # the wrong script also proves the model endpoint is all a --no-network agent reaches
        extra = ["--no-network", "--allow-endpoint", f"127.0.0.1:{model.port}"] \
            if script == "wrong" else []
        run = run_cli(tmp_path, "opencode:scripted/rca", env=env, args=extra)
    assert not model.errors, model.errors
    got = {c: (r["verdict"], r["subtype"]) for c, r in run.rows.items()}
    assert got == EXPECTED[script], (got, run.proc.stderr[-3000:])
    for case, row in run.rows.items():
        tokens = row["tokens"]
        assert tokens["input_tokens"] > 1000 and tokens["output_tokens"] > 0, row
        assert row["cost_usd"] > 0, row
        tools = telemetry_tools(run, case)
        assert ("search_logs" in tools) is (script != "lazy"), tools
        assert tools[-1] == "submit_report" and tools.count("get_ticket") == 1, tools
    assert "(2 of 2 cases reported)" in run.report.split("tokens:")[1].splitlines()[0]
    assert "(2 of 2 cases reported)" in run.report.split("cost:")[1].splitlines()[0]
    # turn 2 of the two-turn case is the same opencode session: no new investigation, and the
    # scripted model answered the follow-up from the history it was sent
    turns = transcript(run, "cpu-hotspot-region-001")
    assert [t["turn"] for t in turns] == [1, 1, 2, 2]
    assert turns[3]["text"].startswith("## Follow-up 1"), turns[3]
