"""The run-bundle contract's names (docs/bundle-contract.md), for the Python side.

The judge's SQL reads the same names (``queries/facts/*.sql``); this module is where the
bundle SDK, the linter and the incident tools take them from.
"""

from __future__ import annotations

from rcaeval._vocab import BUNDLE_CHANNELS

REPORT = "evidences/workspace_evidence_report.json"
PATCH = "analysis_patch.json"
OUTPUT = "output.txt"
TRANSCRIPT = "transcript.json"
TELEMETRY = ".opencode/telemetry.log"
MANIFEST = "manifest.json"

CHANNELS = BUNDLE_CHANNELS
"""The evidence channels of the report's ``channels`` object (preferred-channel names)."""

CHANNEL_FILES = {
    "metrics": "evidences/metrics.json",
    "queries": "evidences/queries.json",
    "logs": "evidences/logs.json",
    "events": "evidences/events.json",
}
"""Each channel's evidence file. ``metrics``, ``queries`` and ``logs`` (with the report) are
the *core bundle* (``evidence.core_bundle_present``)."""

CORE_FILES = (REPORT, CHANNEL_FILES["metrics"], CHANNEL_FILES["queries"], CHANNEL_FILES["logs"])

LIST_KEYS = {
    "evidences/metrics.json": "series",
    "evidences/queries.json": "queries",
    "evidences/logs.json": "entries",
    "evidences/events.json": "events",
    "evidences/collection_errors.json": "errors",
    "evidences/gate_checks.json": "checks",
    "evidences/component_health.json": "components",
    "evidences/traces.json": "spans",
}
"""Evidence file → the key of its list of records."""

REF_TYPES = {"metric": "metrics", "query": "queries", "log": "logs", "event": "events"}
"""``analysis_patch.json`` ref ``type`` → the channel whose ids it must name."""

QUERY_KINDS = ("slow_query", "top_sql", "plan", "kill")

GATE_CHECKS = "evidences/gate_checks.json"
"""The alerts channel's file: alert-rule and gate-check evaluations (``{"checks": [...]}``)."""

GATE_STATUSES = ("pass", "fail", "warn")
"""A check's ``status``: ``fail`` when the rule fired / the gate failed, ``warn`` when it is
pending or degraded, ``pass`` otherwise."""

TRACES = "evidences/traces.json"
"""The traces channel's file: the trace spans the agent saw (``{"spans": [...]}``)."""

SPAN_STATUSES = ("error", "ok", "unset")
"""A span's ``status``, as OpenTelemetry's status code: ``error`` (STATUS_CODE_ERROR), ``ok``
(STATUS_CODE_OK) or ``unset`` (no status set: the span completed without an error)."""

MILESTONES = (
    "architecture_context.loaded",
    "guardrails.loaded",
    "ticket_context.loaded",
    "diagnosis_run.initialized",
    "evidence_collection.started",
    "evidence_collection.completed",
    "summary.read",
    "log_query.completed",
    "events_query.attempted",
    "metric_query.completed",
    "final_answer.emitted",
    "tool.call",
    "tool.error",
)
"""Telemetry event names the judge knows (docs/bundle-contract.md, ".opencode/telemetry.log")."""

REQUIRED_MILESTONES = {
    "architecture_context.loaded": "workflow.architecture_context_loaded",
    "guardrails.loaded": "workflow.misdiagnosis_guardrails_loaded",
    "diagnosis_run.initialized": "workflow.diagnosis_run_initialized",
    "evidence_collection.completed": "workflow.evidence_collection_completed",
}
"""Milestones behind the default *required* workflow checks → the fact each one sets."""

FAILED_STATUSES = ("error", "failed", "fail", "failure")
"""A telemetry line with one of these ``status`` values does not count as its milestone."""

SUMMARY_FILES = ("evidences/evidence_summary_for_agent.json",
                 "evidences/evidence_summary_for_agent.txt")
