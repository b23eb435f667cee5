"""Shared helpers of the run-loop tests (a module with a unique name, so test modules can
import it whatever other conftest.py files are loaded)."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "data" / "registry"
RECORDED = REPO / "data" / "recorded"
MULTI_AGENT = Path(__file__).resolve().parent / "agents" / "multi_agent.py"
PY = sys.executable


def cli_env() -> dict[str, str]:
    """The test process's environment without RCAEVAL_* overrides."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RCAEVAL_")}
    env["PYTHONUNBUFFERED"] = "1"
    return env


def multi_agent_spec() -> str:
    return f"command:{shlex.quote(PY)} {shlex.quote(str(MULTI_AGENT))}"
