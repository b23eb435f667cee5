"""Shared helpers of the reliability tests (a uniquely named module)."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import yaml

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "data" / "registry"
RECORDED = REPO / "data" / "recorded"
THOROUGH = RECORDED / "rec-thorough"
HOSTILE = Path(__file__).resolve().parent / "agents" / "hostile_agent.py"
PY = sys.executable
CASES = ["cpu-hotspot-region-001", "kill-query-chain-001", "tikv-panic-restart-001"]


def cli_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RCAEVAL_")}
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra)
    return env


def rcaeval(*args: str, cwd: Path, timeout: float = 180, env: dict[str, str] | None = None
            ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PY, "-m", "rcaeval", *args], capture_output=True, text=True,
                          timeout=timeout, env=env or cli_env(), cwd=cwd)


def hostile_spec() -> str:
    return f"command:{shlex.quote(PY)} {shlex.quote(str(HOSTILE))}"


def hostile_args(mode: str, cases: list[str] | None = None, **env: str) -> list[str]:
    """``--agent`` and ``--agent-env`` options running the hostile agent in ``mode`` on
    ``cases`` (the others replay the thorough recording)."""
    # --sandbox none: the hostile agent replays recordings from outside its workspace and
    # these tests are about host-side process handling (the sandbox has its own tests)
    out = ["--agent", hostile_spec(), "--sandbox", "none", "--expose-case-ids",
           "--agent-env", f"REC_DIR={THOROUGH}",
           "--agent-env", f"HOSTILE_MODE={mode}"]
    if cases:
        out += ["--agent-env", f"HOSTILE_CASES={','.join(cases)}"]
    for k, v in env.items():
        out += ["--agent-env", f"{k}={v}"]
    return out


def make_registry(root: Path, case_ids: list[str], *, jobs: int = 2) -> Path:
    """A registry with suite ``mini`` over copies of sample cases."""
    (root / "suites").mkdir(parents=True, exist_ok=True)
    for cid in case_ids:
        shutil.copytree(SAMPLE / "cases" / cid, root / "cases" / cid)
    suite = {"suite_id": "mini", "version": "1", "execution": {"jobs": jobs},
             "cases": [{"id": c, "status": "active"} for c in case_ids]}
    (root / "suites" / "mini.yaml").write_text(yaml.safe_dump(suite, sort_keys=False))
    return root


def query(db: Path, sql: str, params: Any = None) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def run_args(tmp: Path, registry: Path, *more: str) -> list[str]:
    return ["run", "--suite", "mini", "--registry", str(registry), "--db", str(tmp / "s.duckdb"),
            "--audit-root", str(tmp / "audits"), "--workspace-root", str(tmp / "ws"),
            "--no-progress", *more]
