"""End to end through the runner: a command agent gets the incident tools as the generated MCP
config files (``{mcp_config}``, ``$RCAEVAL_MCP_CONFIG``, ``$OPENCODE_CONFIG``), starts the
server named there itself - inside the sandbox, as Claude Code or opencode would - and the
judged verdict reflects what it looked at."""

from __future__ import annotations

from pathlib import Path

import pytest
from tools_kit import REGISTRY

import rcaeval.store as st
from rcaeval.runner import run_suite

CASE = "tikv-panic-restart-001"
AGENT = Path(__file__).resolve().parent / "agents" / "mcp_config_agent.py"
SPEC = f"command:{{python}} {AGENT} {{mcp_config}}"


def _run(tmp_path: Path, tools: str, skip: str = ""):
    store = st.connect(tmp_path / "s.duckdb")
    summary = run_suite(store, "smoke", SPEC, registry_root=REGISTRY, audit_root=tmp_path / "a",
                        workspace_root=tmp_path / "ws", case_ids=[CASE], progress=False,
                        reports=False, tools=tools, agent_env={"RCAEVAL_EXAMPLE_SKIP": skip})
    return summary, summary.frame().row(0, named=True)


@pytest.mark.slow
@pytest.mark.parametrize(("skip", "verdict", "subtype"), [
    ("", "pass", "diagnosis_pass"),
    ("logs", "fail", "evidence_collection_partial"),
])
def test_command_agent_through_the_mcp_config(tmp_path: Path, skip: str, verdict: str,
                                              subtype: str):
    summary, row = _run(tmp_path, "mcp", skip)
    assert (row["verdict"], row["subtype"]) == (verdict, subtype), row
    audit = tmp_path / "a" / summary.run_id / CASE
    assert not (audit / "incident").exists()  # tools: mcp - the data came through the tools
    tele = (audit / ".opencode/telemetry.log").read_text()
    assert ('"tool":"search_logs"' in tele) is (skip != "logs")
    assert '"tool":"submit_report"' in tele


def test_mcp_config_placeholder_without_tools_is_an_error(tmp_path: Path):
    _, row = _run(tmp_path, "files")
    assert row["status"] == "errored", row
    assert "{mcp_config} in the command line" in (row["error"] or ""), row


@pytest.mark.slow
def test_an_agent_that_never_calls_a_tool_gets_a_note(tmp_path: Path):
    store = st.connect(tmp_path / "s.duckdb")
    summary = run_suite(store, "smoke", "command:{python} -c \"print('no tools used')\"",
                        registry_root=REGISTRY, audit_root=tmp_path / "a",
                        workspace_root=tmp_path / "ws", case_ids=[CASE], progress=False,
                        reports=False, tools="mcp")
    row = summary.frame().row(0, named=True)
    assert row["verdict"] == "invalid", row
    assert "the agent made 0 tool calls; is its MCP config loaded?" in (row["error"] or ""), row
