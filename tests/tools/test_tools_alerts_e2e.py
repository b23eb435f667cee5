"""The five smoke cases whose critical evidence includes the alert / gate checks
(evidences/gate_checks.json) are passable by an agent that uses the tools: the example ACP
agent, handed only the incident tools (``tools: mcp``), passes them through the real runner;
told to skip the alerts channel it fails them on critical evidence. The example command
agent (incident files + BundleWriter) passes them too."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from tools_kit import REGISTRY

import rcaeval.store as st
from rcaeval.runner import run_suite

ALERT_CASES = ["cpu-hotspot-region-001", "fake-alarm-scrape-gap-001", "hot-write-autoinc-001",
               "mvcc-gc-buildup-001", "pd-leader-election-storm-001"]
ACP = "acp:{python} -m rcaeval.examples.example_agent"
COMMAND = "command:{python} -m rcaeval.examples.example_command_agent"


def _run(tmp_path: Path, agent: str, tools: str, skip: str = "") -> tuple[str, dict]:
    store = st.connect(tmp_path / "s.duckdb")
    summary = run_suite(store, "smoke", agent, registry_root=REGISTRY,
                        audit_root=tmp_path / "a", case_ids=ALERT_CASES, progress=False,
                        reports=False, tools=tools, jobs=2,
                        agent_env={"RCAEVAL_EXAMPLE_SKIP": skip})
    rows = {r["case_id"]: r for r in summary.frame().iter_rows(named=True)}
    return summary.run_id, rows


@pytest.mark.slow
def test_the_acp_example_passes_the_alert_cases_through_the_tools(tmp_path: Path):
    run_id, rows = _run(tmp_path, ACP, "mcp")
    got = {c: (r["verdict"], r["subtype"]) for c, r in rows.items()}
    assert got == {c: ("pass", "diagnosis_pass") for c in ALERT_CASES}, got
    for case in ALERT_CASES:
        audit = tmp_path / "a" / run_id / case
        assert not (audit / "incident").exists()  # tools: mcp - the data came through the tools
        checks = orjson.loads((audit / "evidences/gate_checks.json").read_bytes())["checks"]
        assert any(c["status"] in ("fail", "warn") for c in checks), case
        assert '"tool":"get_alerts"' in (audit / ".opencode/telemetry.log").read_text()


@pytest.mark.slow
def test_skipping_the_alerts_fails_them_on_critical_evidence(tmp_path: Path):
    _, rows = _run(tmp_path, ACP, "mcp", skip="alerts")
    assert {r["subtype"] for r in rows.values()} == {"critical_evidence_partial"}, rows


@pytest.mark.slow
def test_the_command_example_passes_the_alert_cases_from_the_files(tmp_path: Path):
    _, rows = _run(tmp_path, COMMAND, "files")
    got = {c: (r["verdict"], r["subtype"]) for c, r in rows.items()}
    assert got == {c: ("pass", "diagnosis_pass") for c in ALERT_CASES}, got
