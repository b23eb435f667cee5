"""Shared pieces of the real-harness tests: the pinned harnesses (installed by
``make harnesses`` / ``.ci/install-harnesses`` into ``.cache/harnesses``), and one
``rcaeval run`` through the CLI - sandboxed - with its verdicts, usage and report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
REGISTRY = REPO / "data" / "registry"
CACHE = Path(os.environ.get("RCAEVAL_HARNESS_CACHE") or REPO / ".cache" / "harnesses")
NPM_BIN = CACHE / "npm" / "node_modules" / ".bin"
AGENTS_PY = CACHE / "agents-venv" / "bin" / "python"
LANGGRAPH_PY = CACHE / "langgraph-venv" / "bin" / "python"
PYDANTIC_AI_PY = CACHE / "pydantic-ai-venv" / "bin" / "python"
CASES = ("tikv-panic-restart-001", "cpu-hotspot-region-001")
EXPECTED = {
    "thorough": {c: ("pass", "diagnosis_pass") for c in CASES},
    "lazy": {"tikv-panic-restart-001": ("fail", "evidence_collection_partial"),
             "cpu-hotspot-region-001": ("fail", "evidence_collection_partial")},
    "wrong": {c: ("fail", "diagnosis_fail") for c in CASES},
}
"""The verdicts every harness gets from each scripted model (scripted_model_kit)."""
"""Two smoke cases: one turn, and two turns (the follow-up continues the session)."""


def pins() -> dict[str, str]:
    out = {}
    for line in (REPO / "tests" / "harnesses" / "versions.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            _kind, pkg, version = line.split()[:3]
            out[pkg] = version
    return out


def installed() -> dict[str, str]:
    """``{package: "ok" | reason}`` after running the installer (idempotent, cached)."""
    proc = subprocess.run([str(REPO / ".ci" / "install-harnesses")], capture_output=True,
                          text=True, timeout=1800,
                          env={**os.environ, "RCAEVAL_HARNESS_CACHE": str(CACHE)})
    status: dict[str, str] = {}
    for line in (CACHE / "status").read_text().splitlines() if (CACHE / "status").exists() \
            else []:
        word, pkg, rest = (line.split(" ", 2) + ["", ""])[:3]
        status[pkg] = "ok" if word == "ok" else rest
    if proc.returncode != 0:
        pytest.fail(f"make harnesses failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-2000:]}")
    return status


def need(status: dict[str, str], pkg: str) -> None:
    """Skip (registry unreachable) unless ``pkg`` is installed."""
    state = status.get(pkg)
    if state != "ok":
        pytest.skip(f"{pkg} is not installed: {state or 'not in the installer status'}")


@dataclass
class Run:
    proc: subprocess.CompletedProcess
    rows: dict[str, dict[str, Any]]
    report: str
    audit: Path
    run_id: str


def run_cli(tmp: Path, agent: str, *, env: dict[str, str], args: list[str] = (),
            cases: tuple[str, ...] = CASES) -> Run:
    """``rcaeval run --suite smoke`` with ``agent`` on ``cases``, sandboxed (``--sandbox
    require``), one agent HOME for the run; returns the verdict rows and report.txt."""
    audit = tmp / "audit"
    results = tmp / "results.json"
    cmd = [sys.executable, "-m", "rcaeval", "run", "--suite", "smoke", "--agent", agent,
           "--registry", str(REGISTRY), "--db", str(tmp / "store.duckdb"),
           "--audit-root", str(audit), "--workspace-root", str(tmp / "ws"),
           "--sandbox", "require", "--agent-home", str(tmp / "home"), "--no-progress",
           "--results-json", str(results), *[a for c in cases for a in ("--case", c)], *args]
    (tmp / "home").mkdir(exist_ok=True)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1500,
                          env={**os.environ, **env}, cwd=tmp)
    assert results.is_file(), f"{proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    doc = json.loads(results.read_text())
    rows = {c["case_id"]: c["attempts"][0] for c in doc["cases"]}
    run_id = doc["run"]["run_ids"][0]
    report = (audit / run_id / "report.txt").read_text()
    return Run(proc, rows, report, audit / run_id, run_id)


def telemetry_tools(run: Run, case: str) -> list[str]:
    """The incident tools the agent called in ``case``, in order (the tool server's record)."""
    path = run.audit / case / ".opencode" / "telemetry.log"
    calls = []
    for line in path.read_text().splitlines() if path.is_file() else []:
        e = json.loads(line)
        if e.get("event") in ("tool.call", "tool.error") and "source" not in e:
            calls.append(e["tool"])
    return calls


def transcript(run: Run, case: str) -> list[dict[str, Any]]:
    return json.loads((run.audit / case / "transcript.json").read_text())


def tool_servers(run: Run, case: str) -> int:
    """How many tool server processes answered a call in ``case`` (each records
    ``diagnosis_run.initialized`` at its first call)."""
    path = run.audit / case / ".opencode" / "telemetry.log"
    return sum(json.loads(line).get("event") == "diagnosis_run.initialized"
               for line in path.read_text().splitlines())


def assert_scripted_run(run: Run, model: Any, script: str, *, api: str | None = None,
                        one_server: bool = False) -> None:
    """What every harness run against a scripted model must show: the script's verdicts on
    both cases, tokens and a cost per case (both in report.txt), the incident tools called
    through the tool server (no log search for the lazy script; one ticket read; the report
    submitted last), and turn 2 of the two-turn case answered from turn 1's session.
    ``api``: the only model API the harness may have called; ``one_server``: the harness held
    one MCP session (one tool server) for the whole turn."""
    assert not model.errors, model.errors
    if api is not None:
        assert {e["api"] for e in model.log} == {api}, model.log[:3]
    got = {c: (r["verdict"], r["subtype"]) for c, r in run.rows.items()}
    assert got == EXPECTED[script], (got, run.proc.stderr[-3000:])
    assert all(c in run.rows for c in CASES)
    for case, row in run.rows.items():
        tokens = row["tokens"]
        assert tokens["input_tokens"] > 1000 and tokens["output_tokens"] > 0, row
        assert row["cost_usd"] > 0, row
        tools = telemetry_tools(run, case)
        assert ("search_logs" in tools) is (script != "lazy"), tools
        assert tools[-1] == "submit_report" and tools.count("get_ticket") == 1, tools
        if one_server:
            assert len(tools) > 10 and tool_servers(run, case) == 1, tools
    assert "(2 of 2 cases reported)" in run.report.split("tokens:")[1].splitlines()[0]
    assert "(2 of 2 cases reported)" in run.report.split("cost:")[1].splitlines()[0]
    # turn 2 resumed turn 1's session: the scripted model saw the whole investigation in the
    # follow-up's history and answered it without a second one
    turns = transcript(run, "cpu-hotspot-region-001")
    assert [t["turn"] for t in turns] == [1, 1, 2, 2]
    assert turns[3]["text"].startswith("## Follow-up 1"), turns[3]
