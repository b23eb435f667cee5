"""End to end: a scripted MCP client (the SDK's client, no LLM) investigates a sample case
through `rcaeval tools serve` over stdio; the bundle the server recorded is judged, and the
verdict reflects what the client looked at."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from tools_kit import PANIC_CASE, judge_bundle, run_scripted

from rcaeval.examples._mcp import client_caller, investigate


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

    row = judge_bundle(tmp_path, bundle, PANIC_CASE.name)
    assert row["verdict"] == "pass", row
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
