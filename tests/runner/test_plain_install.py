"""`pip install rcaeval-judge` without extras: `run`, `doctor` and `demo` work; an `acp:` agent
is a clear exit 3 naming the extra. The fast tests hide the installed `acp` package from the
CLI process (agents/without_acp.py); the slow test builds the wheel and installs it without
extras into a fresh virtualenv outside the checkout."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import venv
from pathlib import Path

import pytest
from runner_kit import AGENTS, PY, REPO, SAMPLE, cli_env

WITHOUT_ACP = AGENTS / "without_acp.py"
ACP_SPEC = "acp:{python} -m rcaeval.examples.example_agent"
EXTRA = "pip install 'rcaeval-judge[acp]'"


def _no_acp(tmp_path: Path, *args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run([PY, str(WITHOUT_ACP), *args], capture_output=True, text=True,
                          timeout=timeout, env=cli_env(), cwd=tmp_path)


def test_run_replay_without_the_acp_extra(tmp_path: Path) -> None:
    r = _no_acp(tmp_path, "run", "--suite", "smoke", "--agent", "replay:thorough",
                "--registry", str(SAMPLE), "--db", str(tmp_path / "s.duckdb"),
                "--audit-root", str(tmp_path / "audits"), "--case", "tikv-panic-restart-001",
                "--no-progress")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 case(s): pass 1" in r.stdout
    assert "ModuleNotFoundError" not in r.stderr


def test_acp_agent_without_the_extra_is_exit_3_naming_it(tmp_path: Path) -> None:
    r = _no_acp(tmp_path, "run", "--suite", "smoke", "--agent", ACP_SPEC,
                "--registry", str(SAMPLE), "--db", str(tmp_path / "s.duckdb"),
                "--audit-root", str(tmp_path / "audits"), "--no-progress")
    assert r.returncode == 3, r.stdout + r.stderr
    assert EXTRA in r.stderr and "[--agent]" in r.stderr
    assert "internal error" not in r.stderr


def test_doctor_without_the_acp_extra(tmp_path: Path) -> None:
    r = _no_acp(tmp_path, "doctor", "--registry", str(SAMPLE),
                "--db", str(tmp_path / "s.duckdb"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "warn acp:" in r.stdout and EXTRA in r.stdout
    d = _no_acp(tmp_path, "doctor", "--registry", str(SAMPLE),
                "--db", str(tmp_path / "s.duckdb"), "--agent", ACP_SPEC)
    assert d.returncode != 0, d.stdout  # a failed agent check (docs/cli.md: doctor)
    assert "fail agent:" in d.stdout and EXTRA in d.stdout


@pytest.mark.slow
def test_demo_without_the_acp_extra(tmp_path: Path) -> None:
    r = _no_acp(tmp_path, "demo", "--db", str(tmp_path / "s.duckdb"),
                "--out", str(tmp_path / "audits"), "--no-progress", timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"skipping the example ACP agent: the acp extra is not installed ({EXTRA})" \
        in r.stdout
    assert re.search(r"✓\s+demo-thorough\s+13 pass\s+13 pass", r.stdout), r.stdout


def _wheel(tmp_path: Path) -> Path:
    """Build the wheel from a copy of the package sources (the checkout stays untouched)."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("rcaeval", "queries", "notebooks"):
        shutil.copytree(REPO / name, src / name, symlinks=True, ignore=ignore)
    dist = tmp_path / "dist"
    subprocess.run([PY, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), str(src)],
                   check=True, capture_output=True, text=True, timeout=300)
    (wheel,) = dist.glob("rcaeval_judge-*.whl")
    return wheel


@pytest.mark.slow
def test_wheel_without_extras_in_a_fresh_venv(tmp_path: Path) -> None:
    wheel = _wheel(tmp_path)
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    vpy = env_dir / "bin" / "python"
    inst = subprocess.run([str(vpy), "-m", "pip", "install", "-q", str(wheel)],
                          capture_output=True, text=True, timeout=900)
    assert inst.returncode == 0, inst.stderr
    assert subprocess.run([str(vpy), "-c", "import acp"], capture_output=True).returncode != 0
    exe = str(env_dir / "bin" / "rcaeval")
    work = tmp_path / "work"  # outside the checkout: the data root is ./data
    work.mkdir()
    env = {k: v for k, v in cli_env().items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = os.pathsep.join(("/usr/bin", "/bin"))  # the venv is not activated

    def rc(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([exe, *args], capture_output=True, text=True, timeout=300,
                              cwd=work, env=env)

    s = rc("synth", "sample", "--out", "data")
    assert s.returncode == 0, s.stdout + s.stderr
    r = rc("run", "--suite", "smoke", "--agent", "replay:thorough", "--no-progress")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "13 case(s): pass 13" in r.stdout
    assert (work / "data" / "rcaeval.duckdb").is_file()
    d = rc("doctor")
    assert d.returncode == 0, d.stdout + d.stderr
    assert "warn acp:" in d.stdout and "ok store:" in d.stdout
    # the fix names this environment, not a checkout's .venv
    assert f"source {env_dir / 'bin' / 'activate'}, or call {exe}" in d.stdout
    a = rc("run", "--suite", "smoke", "--agent", ACP_SPEC, "--no-progress")
    assert a.returncode == 3 and EXTRA in a.stderr, a.stdout + a.stderr
