"""Sealed evidence, end to end through the runner (``run_suite``, sandboxed as ``rcaeval run``
runs agents): the runner hosts the case's tool server with a per-case seal key the agent never
sees; hostile agents that forge a log line, edit a returned metric value or write the alerts
file by hand are caught by the judge (evidence.unsealed_records,
evidence.contradicts_incident_data; the critical_evidence bucket fails), an honest agent stays
sealed and clean, and an agent writing its own bundle (``--tools files``) is cross-checked
against the incident data only."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from tools_kit import REGISTRY

import rcaeval.store as st
from rcaeval._seal import RUNNER_SEAL, SEAL_FILE, SEALED_FILES, parse_key, records, seal_state
from rcaeval.runner import run_suite

CASE = "tikv-panic-restart-001"
AGENT = Path(__file__).resolve().parent / "agents" / "tamper_agent.py"


def _run(tmp_path: Path, mode: str, tools: str = "mcp", reports: bool = False
         ) -> tuple[dict, Path, st.Store]:
    store = st.connect(tmp_path / "s.duckdb")
    spec = f"command:{{python}} {AGENT}" + (" {mcp_config}" if tools != "files" else "")
    summary = run_suite(store, "smoke", spec, registry_root=REGISTRY, audit_root=tmp_path / "a",
                        workspace_root=tmp_path / "ws", case_ids=[CASE], progress=False,
                        reports=reports, tools=tools, agent_env={"RCAEVAL_TAMPER": mode})
    row = {**summary.frame().row(0, named=True), "run_id": summary.run_id}
    return row, tmp_path / "a" / summary.run_id / CASE, store


def _facts(store: st.Store, row: dict) -> dict[str, bool]:
    df = store.sql("SELECT fact, value FROM eval_fact WHERE run_id = ? AND case_id = ? AND "
                   "fact IN ('evidence.unsealed_records', 'evidence.contradicts_incident_data')",
                   params=[row["run_id"], CASE])
    return dict(zip(df["fact"].to_list(), df["value"].to_list(), strict=True))


def _bucket(store: st.Store, row: dict, bucket: str) -> tuple[str, str]:
    df = store.sql("SELECT status, reason FROM eval_bucket WHERE run_id = ? AND case_id = ? "
                   "AND bucket = ?", params=[row["run_id"], CASE, bucket])
    return df["status"][0], df["reason"][0]


@pytest.mark.slow
def test_honest_agent_through_the_tools_is_sealed_and_clean(tmp_path: Path):
    row, audit, store = _run(tmp_path, "honest", reports=True)
    assert (row["verdict"], row["subtype"]) == ("pass", "diagnosis_pass"), row
    assert _facts(store, row) == {"evidence.unsealed_records": False,
                                  "evidence.contradicts_incident_data": False}
    key = parse_key(orjson.loads((audit / RUNNER_SEAL).read_bytes()))
    assert key is not None
    seals = orjson.loads((audit / SEAL_FILE).read_bytes())["seals"]
    states = {seal_state(key, seals, f, rid, rec)
              for f in SEALED_FILES if (audit / f).is_file()
              for rid, rec in records(f, orjson.loads((audit / f).read_bytes()))}
    assert states == {"sealed"}
    # the key reached the agent nowhere: not its environment, not a workspace file
    seen = (audit / ".rcaeval" / "agent-env.json").read_bytes()
    assert key.hex().encode() not in seen and b"RCAEVAL_SEAL_KEY" not in seen
    for path in audit.rglob("*"):
        if path.is_file() and path.name != RUNNER_SEAL:
            assert key.hex().encode() not in path.read_bytes(), path
    files = [f["path"] for f in orjson.loads((audit / "manifest.json").read_bytes())["files"]]
    assert RUNNER_SEAL not in files  # runner-side: never a mirrored workspace file
    n = sum(1 for f in SEALED_FILES if (audit / f).is_file()
            for _ in records(f, orjson.loads((audit / f).read_bytes())))
    detail = (audit.parent / "report_detail.txt").read_text()
    assert f"sealed by the hosted tools: {n}/{n} records sealed; incident data: " in detail
    assert "1 of 1 cases sealed by the hosted tools" in (audit.parent / "report.txt").read_text()


@pytest.mark.slow
@pytest.mark.parametrize(("mode", "unsealed", "detail"), [
    ("forge_log", True, "L-tikv-2-99999: no seal"),
    ("edit_metric", True, "its seal does not match"),
    ("hand_alerts", True, "G-0001"),
])
def test_tampering_after_the_tools_returned_is_caught(tmp_path: Path, mode: str,
                                                      unsealed: bool, detail: str):
    row, _audit, store = _run(tmp_path, mode)
    assert (row["verdict"], row["subtype"]) == ("fail", "critical_evidence_fail"), row
    assert _facts(store, row) == {"evidence.unsealed_records": unsealed,
                                  "evidence.contradicts_incident_data": True}
    status, reason = _bucket(store, row, "critical_evidence")
    assert status == "fail" and reason.startswith("forged evidence: ") and detail in reason, \
        reason


@pytest.mark.slow
def test_an_agent_writing_its_own_bundle_is_cross_checked_against_the_incident(tmp_path: Path):
    row, audit, store = _run(tmp_path, "files_forge", tools="files", reports=True)
    assert not (audit / RUNNER_SEAL).exists()  # no tools, no key: nothing sealed
    assert _facts(store, row) == {"evidence.unsealed_records": False,
                                  "evidence.contradicts_incident_data": True}
    status, reason = _bucket(store, row, "critical_evidence")
    assert status == "fail" and "the text is not in the incident's logs" in reason, reason
    assert row["verdict"] == "fail", row
    # the reports and explain say what was (and was not) checked
    report = (audit.parent / "report.txt").read_text()
    assert "0 of 1 cases sealed by the hosted tools, 1 cross-checked against the incident " \
        "data only" in report, report
    detail = (audit.parent / "report_detail.txt").read_text()
    assert "not sealed (no hosted tool server: --tools files or a bundle of its own): " \
        "cross-checked against the incident data only" in detail, detail
    assert "E-1: the text is not in the incident's logs" in detail
    store.close()
    out = subprocess.run([sys.executable, "-m", "rcaeval", "explain", row["run_id"], CASE,
                          "--db", str(tmp_path / "s.duckdb")], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    text = " ".join(out.stdout.split())
    assert "evidence: not sealed" in text and "forged evidence: 1 record(s)" in text, text
