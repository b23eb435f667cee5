"""A real subprocess agent through the runner states its root cause as data with
submit_report (``root_cause: {summary, family, component}``): the tool server writes it into
the report as ``analysis.structured_root_cause`` and the judge decides the diagnosis by it
against the case's ground truth, with the prose detectors as a consistency check."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tools_kit import REGISTRY

import rcaeval.store as st
from rcaeval.runner import run_suite

CASE = "tikv-panic-restart-001"  # ground truth: storage_node_panic on tikv-2
AGENT = Path(__file__).resolve().parent / "agents" / "structured_agent.py"
SPEC = f"command:{{python}} {AGENT} {{mcp_config}}"


@pytest.mark.slow
@pytest.mark.parametrize(("family", "component", "verdict", "disagree"), [
    ("Storage Node Panic", "tikv-2", "pass", False),
    ("network_partition", "tikv-2", "fail", True),
])
def test_structured_submit_report_decides_the_diagnosis(tmp_path: Path, family: str,
                                                        component: str, verdict: str,
                                                        disagree: bool):
    store = st.connect(tmp_path / "s.duckdb")
    summary = run_suite(store, "smoke", SPEC, registry_root=REGISTRY, audit_root=tmp_path / "a",
                        workspace_root=tmp_path / "ws", case_ids=[CASE], progress=False,
                        reports=False, tools="mcp",
                        agent_env={"STRUCTURED_FAMILY": family,
                                   "STRUCTURED_COMPONENT": component})
    row = summary.frame().row(0, named=True)
    assert row["verdict"] == verdict, row
    audit = tmp_path / "a" / summary.run_id / CASE
    report = json.loads((audit / "evidences" / "workspace_evidence_report.json").read_text())
    assert report["analysis"]["structured_root_cause"] == {"family": family,
                                                           "component": component}
    facts = dict(store.sql("SELECT fact, value FROM eval_fact WHERE fact LIKE 'answer.%'").rows())
    reason = store.sql("SELECT reason FROM eval_bucket WHERE bucket = 'diagnosis'").rows()[0][0]
    store.close()
    assert facts["answer.structured_root_cause"] is True
    assert facts["answer.structured_family_matches"] is (verdict == "pass")
    assert facts["answer.structured_prose_disagree"] is disagree
    assert reason.startswith("structured: ")
    # the synonyms and the truth live in judge.yaml, which never reaches the agent
    assert not list((tmp_path / "ws").rglob("judge.yaml"))
    assert not list(audit.rglob("judge.yaml"))
