"""What the sandbox mounts for an agent: its program (a venv's interpreter brings the venv
and its base installation; an interpreter brings its script; a ``#!`` script its
interpreter), the declared ``--sandbox-bind`` paths - and nothing else named on its command
line (docs/agents.md, "Sandbox")."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from rcaeval.errors import InputError
from rcaeval.runner import execute_case
from rcaeval.runner._sandbox import bwrap_path, parse_binds
from rcaeval.runner._sandbox_mounts import program_mounts, script_operand

needs_bwrap = pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")


def test_only_the_program_and_its_script_are_mounted(tmp_path):
    script = tmp_path / "agent.py"
    script.write_text("print('hi')\n")
    mounts = program_mounts([sys.executable, "-u", str(script), "/", str(tmp_path)], None)
    assert script in mounts and Path(sys.executable) in mounts
    assert Path("/") not in mounts and tmp_path not in mounts
    # code from the command line or a module: no script operand
    assert script_operand(["python", "-c", "x", str(script)]) is None
    assert script_operand(["python", "-m", "mod", str(script)]) is None
    assert script_operand(["python", "-W", "ignore", str(script)]) == script
    # a program that is no interpreter does not get its arguments mounted
    assert script not in program_mounts(["/usr/bin/env", str(script)], None)


def test_a_shebang_script_brings_its_interpreter(tmp_path):
    fake = tmp_path / "rt" / "bin"
    fake.mkdir(parents=True)
    interp = fake / "myinterp"
    interp.write_text("#!/bin/sh\n")
    interp.chmod(0o755)
    tool = tmp_path / "tool"
    tool.write_text("#!/usr/bin/env myinterp\n")
    tool.chmod(0o755)
    assert interp in program_mounts([str(tool)], str(fake))


def test_bind_options_are_checked(tmp_path):
    assert [str(b) for b in parse_binds([f"{tmp_path}:ro", str(tmp_path)])] == \
        [f"{tmp_path}:ro", str(tmp_path)]
    with pytest.raises(InputError, match="does not exist"):
        parse_binds([str(tmp_path / "missing")])
    with pytest.raises(InputError, match="whole filesystem"):
        parse_binds(["/:ro"])


def _two_file_agent(root: Path) -> Path:
    agents = root / "agents"
    agents.mkdir()
    (agents / "helper.py").write_text("ANSWER = 'helper says: panic on tikv-2'\n")
    (agents / "agent.py").write_text(
        "import os, sys\n"
        "sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))\n"
        "import helper\n"
        "out = os.environ.get('WRITE_TO')\n"
        "if out:\n"
        "    try:\n"
        "        open(out, 'w').write('x')\n"
        "        print('wrote', out)\n"
        "    except OSError as exc:\n"
        "        print('write refused:', exc.strerror)\n"
        "print(helper.ANSWER, sys.prefix)\n")
    return agents


@needs_bwrap
def test_a_venv_interpreter_runs_with_its_venv(make_case, dirs, tmp_path):
    """``command:/path/venv/bin/python agent.py``: the venv (a symlink into the base
    installation) and its site-packages are mounted, the script's neighbours are not."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=120)
    site = next(venv.glob("lib/python*/site-packages"))
    (site / "venvmod.py").write_text("VALUE = 'from the venv'\n")
    agent = tmp_path / "venv_agent.py"
    agent.write_text("import sys, venvmod\nprint(venvmod.VALUE, sys.prefix)\n")
    case, case_dir = make_case()
    res = execute_case(f"r-{uuid.uuid4().hex[:6]}", case, f"command:{venv}/bin/python {agent}",
                       case_dir=case_dir, timeout_s=120, sandbox="bwrap", **dirs)
    assert res.status == "completed", res.error
    assert res.final_text.strip() == f"from the venv {venv}"


@needs_bwrap
@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_an_npm_bin_link_runs_its_whole_package(make_case, dirs, tmp_path):
    """``node_modules/.bin/tool`` -> ``../pkg/bin/tool.js``, which imports ``./lib.js`` (as
    Gemini CLI's bundle does): in the sandbox the link stays a link, so node finds the import
    beside the real file, inside the mounted package."""
    pkg = tmp_path / "nm" / "node_modules" / "pkg"
    (pkg / "bin").mkdir(parents=True)
    (pkg / "package.json").write_text('{"name": "pkg", "type": "module"}\n')
    (pkg / "bin" / "lib.js").write_text("export const msg = 'lib loaded';\n")
    tool = pkg / "bin" / "tool.js"
    tool.write_text("#!/usr/bin/env node\nimport { msg } from './lib.js';\nconsole.log(msg);\n")
    tool.chmod(0o755)
    bindir = pkg.parent / ".bin"
    bindir.mkdir()
    (bindir / "tool").symlink_to("../pkg/bin/tool.js")
    case, case_dir = make_case()
    res = execute_case(f"r-{uuid.uuid4().hex[:6]}", case, "command:tool", case_dir=case_dir,
                       timeout_s=120, sandbox="bwrap", max_infra_retries=0,
                       agent_env={"PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}"},
                       **dirs)
    assert res.status == "completed", res.error
    assert res.final_text.strip() == "lib loaded"


@needs_bwrap
def test_a_two_file_agent_needs_its_dir_bound(make_case, dirs, tmp_path):
    agents = _two_file_agent(tmp_path)
    case, case_dir = make_case()
    spec = f"command:{{python}} {agents / 'agent.py'}"
    res = execute_case(f"r-{uuid.uuid4().hex[:6]}", case, spec, case_dir=case_dir,
                       timeout_s=120, sandbox="bwrap", max_infra_retries=0, **dirs)
    assert res.status == "errored", (res.status, res.error)
    assert "ModuleNotFoundError: No module named 'helper'" in res.error
    res = execute_case(f"r-{uuid.uuid4().hex[:6]}", case, spec, case_dir=case_dir,
                       timeout_s=120, sandbox="bwrap", sandbox_binds=[f"{agents}:ro"],
                       agent_env={"WRITE_TO": str(agents / "new.txt")}, **dirs)
    assert res.status == "completed", res.error
    assert "helper says: panic on tikv-2" in res.final_text
    assert "write refused: Read-only file system" in res.final_text
    rw = tmp_path / "cache"
    rw.mkdir()
    res = execute_case(f"r-{uuid.uuid4().hex[:6]}", case, spec, case_dir=case_dir,
                       timeout_s=120, sandbox="bwrap", sandbox_binds=[f"{agents}:ro", str(rw)],
                       agent_env={"WRITE_TO": str(rw / "new.txt")}, **dirs)
    assert res.status == "completed", res.error
    assert (rw / "new.txt").read_text() == "x"


@needs_bwrap
@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
def test_agent_home_persists_between_cases(make_case, dirs, tmp_path, sandbox):
    """``--agent-home DIR``: one HOME for every case (a harness's cache survives); without
    it each case's HOME is fresh."""
    agent = tmp_path / "home_agent.py"
    agent.write_text("import os, pathlib\nhome = pathlib.Path(os.environ['HOME'])\n"
                     "marker = home / 'cache.txt'\nprint(home, marker.exists())\n"
                     "marker.write_text('cached')\n")
    home = tmp_path / "agent-home"
    case, case_dir = make_case()
    seen = []
    for _ in range(2):
        res = execute_case(f"r-{uuid.uuid4().hex[:6]}", case, f"command:{{python}} {agent}",
                           case_dir=case_dir, timeout_s=120, sandbox=sandbox,
                           agent_home=home, **dirs)
        assert res.status == "completed", res.error
        seen.append(res.final_text.split())
    assert seen == [[str(home), "False"], [str(home), "True"]]
    assert res.manifest["agent_home"] == str(home)
    res = execute_case("r-fresh", case, f"command:{{python}} {agent}", case_dir=case_dir,
                       timeout_s=120, sandbox=sandbox, **dirs)
    assert res.final_text.split()[1] == "False"
