"""`rcaeval doctor --agent` starts the agent exactly as `rcaeval run` would - same sandbox,
mounts and environment - and runs its first step: an agent that cannot start inside the
sandbox is a failure naming the exception line, not "ok agent"; the incident tools must import
with a compatible mcp (docs/doctor.md)."""

from __future__ import annotations

import shlex
import subprocess
import sys
import sysconfig
from pathlib import Path

import orjson
import pytest

from rcaeval.cli import main
from rcaeval.doctor._agent import check_agent, mcp_compatible
from rcaeval.runner._sandbox import bwrap_path

needs_bwrap = pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")


def _doctor(capsys, *args: str) -> tuple[int, dict]:
    code = main(["doctor", "--json", "--timeout", "60", *args])
    return code, {c["name"]: c for c in orjson.loads(capsys.readouterr().out)["checks"]}


def _two_file_agent(root: Path) -> Path:
    (root / "helper.py").write_text("ANSWER = 'OK'\n")
    (root / "agent.py").write_text(
        "import os, sys\nsys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))\n"
        "import helper\nsys.stdin.read()\nprint(helper.ANSWER)\n")
    return root / "agent.py"


@needs_bwrap
def test_an_agent_that_cannot_start_in_the_sandbox_fails_the_doctor(tmp_path, capsys):
    agent = _two_file_agent(tmp_path)
    spec = f"command:{shlex.quote(sys.executable)} {agent}"
    code, got = _doctor(capsys, "--agent", spec, "--sandbox", "require")
    assert code == 7, got
    assert got["agent"]["status"] == "fail"
    assert "ModuleNotFoundError: No module named 'helper'" in got["agent"]["detail"]
    assert "sandbox bwrap" in got["agent"]["detail"]
    assert "--sandbox-bind" in got["agent"]["fix"]
    # declared, it starts and answers; the incident tools import in the sandbox
    code, got = _doctor(capsys, "--agent", spec, "--sandbox", "require", "--sandbox-bind",
                        f"{tmp_path}:ro")
    assert code == 0, got
    assert got["agent"]["status"] == "ok" and "answered 'OK'" in got["agent"]["detail"]
    assert got["tools"]["status"] == "ok" and "mcp 2." in got["tools"]["detail"]


@needs_bwrap
def test_the_example_acp_agent_passes_in_the_sandbox(capsys):
    spec = f"acp:{shlex.quote(sys.executable)} -m rcaeval.examples.example_agent"
    code, got = _doctor(capsys, "--agent", spec, "--sandbox", "require")
    assert code == 0, got
    assert "(sandbox bwrap): ACP handshake ok (rcaeval-example-agent" in got["agent"]["detail"]


@needs_bwrap
def test_a_wrapper_calling_an_unmounted_path_fails(tmp_path):
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / "agent").write_text("#!/bin/sh\necho OK\n")
    (hidden / "agent").chmod(0o755)
    wrapper = tmp_path / "wrapper.sh"
    wrapper.write_text(f"#!/bin/sh\nexec {hidden}/agent\n")
    wrapper.chmod(0o755)
    checks = {c.name: c for c in check_agent(f"command:{wrapper}", sandbox="require")}
    assert checks["agent"].status == "fail"
    assert f"{hidden}/agent: not found" in checks["agent"].detail
    # unsandboxed the same agent starts: the doctor checks what the run would do
    checks = {c.name: c for c in check_agent(f"command:{wrapper}", sandbox="none")}
    assert checks["agent"].status == "ok", checks["agent"]


@needs_bwrap
def test_an_agent_interpreter_with_an_incompatible_mcp_fails(tmp_path):
    """A venv whose mcp is older than rcaeval needs (what installing langchain-mcp-adapters
    into the runner's venv does) is named, inside the sandbox."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=120)
    site = next(venv.glob("lib/python*/site-packages"))
    runner_site = sysconfig.get_paths()["purelib"]
    (site / "runner.pth").write_text(f"import site; site.addsitedir({runner_site!r})\n")
    old = site / "mcp-1.9.0.dist-info"
    old.mkdir()
    (old / "METADATA").write_text("Metadata-Version: 2.1\nName: mcp\nVersion: 1.9.0\n")
    agent = tmp_path / "agent.py"
    agent.write_text("import sys\nsys.stdin.read()\nprint('OK')\n")
    checks = check_agent(f"command:{venv}/bin/python {agent}", sandbox="require")
    tools = [c for c in checks if c.name == "tools"]
    assert tools[0].status == "ok", tools  # the runner's own interpreter
    assert tools[1].status == "fail", tools
    assert "mcp 1.9.0 does not meet rcaeval's mcp" in tools[1].detail
    assert ">=2.3" in tools[1].detail and str(venv) in tools[1].detail


def test_mcp_requirement_comparison():
    assert mcp_compatible("2.3.1", ">=2.3,<3")
    assert not mcp_compatible("1.26.0", ">=2.3,<3")
    assert not mcp_compatible("3.0", ">=2.3,<3")
    assert mcp_compatible("2.10", ">=2.3,<3")
