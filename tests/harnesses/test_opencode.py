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
from harnesses_kit import NPM_BIN, assert_scripted_run, installed, need, run_cli
from scripted_model_kit import serve

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500)]

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
    assert_scripted_run(run, model, script)
