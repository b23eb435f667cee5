"""End to end through the runner: the example ACP agent is handed the incident tools in
`session/new` (sandboxed by default) and investigates through them; the judged verdict
reflects what it looked at (thorough -> pass, told to skip logs -> evidence partial)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tools_kit import REGISTRY

import rcaeval.store as st
from rcaeval.runner import run_suite

CASE = "tikv-panic-restart-001"
ACP = "acp:{python} -m rcaeval.examples.example_agent"


@pytest.mark.slow
@pytest.mark.parametrize(("skip", "verdict", "subtype"), [
    ("", "pass", "diagnosis_pass"),
    ("logs", "fail", "evidence_collection_partial"),
])
def test_acp_agent_through_the_tools(tmp_path: Path, skip: str, verdict: str, subtype: str):
    store = st.connect(tmp_path / "s.duckdb")
    summary = run_suite(store, "smoke", ACP, registry_root=REGISTRY, audit_root=tmp_path / "a",
                        case_ids=[CASE], progress=False, reports=False, tools="mcp",
                        agent_env={"RCAEVAL_EXAMPLE_SKIP": skip})
    row = summary.frame().row(0, named=True)
    assert (row["verdict"], row["subtype"]) == (verdict, subtype), row
    audit = tmp_path / "a" / summary.run_id / CASE
    assert not (audit / "incident").exists()  # tools: mcp - the data came through the tools
    tele = (audit / ".opencode/telemetry.log").read_text()
    assert ('"tool":"search_logs"' in tele) is (skip != "logs")
