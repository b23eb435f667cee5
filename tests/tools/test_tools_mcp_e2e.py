"""End to end: a scripted MCP client (the SDK's client, no LLM) investigates a sample case
through `rcaeval tools serve` over stdio; the bundle the server recorded is judged, and the
verdict reflects what the client looked at."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from tools_kit import PANIC_CASE, judge_bundle, run_scripted

from rcaeval.examples._mcp import investigate
from rcaeval.tools import client_caller


def _lint(bundle: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rcaeval", "bundle", "lint", str(bundle),
                           "--case", str(PANIC_CASE), *args], capture_output=True, text=True,
                          timeout=120)


def _investigate(skip: tuple[str, ...] = ()):
    async def script(client):
        return await investigate(client_caller(client), skip=skip)
    return script


@pytest.mark.slow
def test_thorough_investigation_passes(tmp_path: Path):
    bundle = tmp_path / "bundle"
    diag = run_scripted(PANIC_CASE, bundle, _investigate())
    assert diag.kind == "panic"
    tele = [orjson.loads(x) for x in (bundle / ".opencode/telemetry.log").read_text().splitlines()]
    events = {t["event"] for t in tele}
    assert {"diagnosis_run.initialized", "architecture_context.loaded", "guardrails.loaded",
            "ticket_context.loaded", "log_query.completed", "metric_query.completed",
            "events_query.attempted", "summary.read", "evidence_collection.completed",
            "final_answer.emitted"} <= events
    calls = [t for t in tele if t["event"] == "tool.call"]
    assert calls[0]["tool"] == "get_ticket" and calls[-1]["tool"] == "submit_report"
    logs = orjson.loads((bundle / "evidences/logs.json").read_bytes())["entries"]
    assert any("TiKV panic" in e["message"] for e in logs)
    assert all(e["id"].startswith("L-") for e in logs)
    patch = orjson.loads((bundle / "analysis_patch.json").read_bytes())
    assert patch["items"][0]["refs"]

    # docs/tools.md: a standalone server's bundle lacks only the runner's manifest.json
    lint = _lint(bundle, "--json")
    assert lint.returncode == 3, lint.stdout + lint.stderr
    findings = [orjson.loads(x) for x in lint.stdout.splitlines() if x.strip()]
    assert [f["rule"] for f in findings if f["severity"] == "error"] == ["manifest_present"]
    row = judge_bundle(tmp_path, bundle, PANIC_CASE.name)  # adds a manifest, as the runner
    assert row["verdict"] == "pass", row
    audit = tmp_path / "audit" / "tools-e2e" / PANIC_CASE.name
    lint = _lint(audit)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    assert row["buckets"]["evidence_collection"] == "pass"
    assert row["buckets"]["critical_evidence"] == "pass"


@pytest.mark.slow
def test_skipping_logs_is_evidence_partial(tmp_path: Path):
    bundle = tmp_path / "bundle"
    run_scripted(PANIC_CASE, bundle, _investigate(skip=("logs",)))
    logs = orjson.loads((bundle / "evidences/logs.json").read_bytes())
    assert logs["entries"] == []  # the core file exists, holding what was looked at: nothing
    report = orjson.loads((bundle / "evidences/workspace_evidence_report.json").read_bytes())
    assert report["channels"]["logs"]["attempted"] is False

    row = judge_bundle(tmp_path, bundle, PANIC_CASE.name)
    assert row["verdict"] == "fail"
    assert row["subtype"] == "evidence_collection_partial"
    assert row["buckets"]["evidence_collection"] == "partial"
    assert row["buckets"]["critical_evidence"] == "partial"  # the panic log was never seen


@pytest.mark.parametrize("case", ["tooldeg-events-api-io-stall-001"])
def test_unavailable_channel_is_a_collection_error(tmp_path: Path, case: str):
    bundle = tmp_path / "bundle"
    case_dir = PANIC_CASE.parent / case
    run_scripted(case_dir, bundle, _investigate())
    errors = orjson.loads((bundle / "evidences/collection_errors.json").read_bytes())["errors"]
    assert [e["channel"] for e in errors] == ["events"]
    report = orjson.loads((bundle / "evidences/workspace_evidence_report.json").read_bytes())
    assert report["channels"]["events"] == {"attempted": True, "status": "error", "count": 0}
    tele = (bundle / ".opencode/telemetry.log").read_text()
    assert '"event":"events_query.attempted"' in tele and '"event":"tool.error"' in tele


def test_submit_report_without_findings_still_writes_the_patch(tmp_path: Path):
    """Over MCP: a report with findings, then one with `findings: []` (the documented shape:
    root_cause a string, findings[].refs a list of {type, id}); the second replaces the
    first's patch with an empty one instead of leaving it behind."""
    bundle = tmp_path / "bundle"

    async def script(client):
        call = client_caller(client)
        logs = await call("search_logs", {"pattern": "TiKV panic", "limit": 1})
        lid = logs["entries"][0]["id"]
        first = await call("submit_report", {
            "root_cause": "tikv-2 panicked on a corrupted raft entry",
            "findings": [{"claim": "tikv-2 panicked", "refs": [{"type": "log", "id": lid}]}]})
        first_patch = orjson.loads((bundle / "analysis_patch.json").read_bytes())
        second = await call("submit_report", {"root_cause": "not sure", "findings": []})
        return lid, first, first_patch, second

    lid, first, first_patch, second = run_scripted(PANIC_CASE, bundle, script)
    assert first["status"] == "submitted"
    assert first_patch["items"][0]["refs"] == [{"type": "log", "id": lid}]
    assert second["status"] == "submitted"
    assert "no key finding cites evidence" in second["warnings"]
    assert orjson.loads((bundle / "analysis_patch.json").read_bytes()) == {"items": []}
    assert (bundle / "output.txt").read_text().startswith("## Root cause\n\nnot sure")
