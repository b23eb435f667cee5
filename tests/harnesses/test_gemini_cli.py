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
from harnesses_kit import NPM_BIN, assert_scripted_run, installed, need, run_cli
from scripted_model_kit import serve

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
    assert_scripted_run(run, model, script, api='gemini')
