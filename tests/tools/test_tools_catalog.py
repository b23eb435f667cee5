"""The tool -> bundle files table (rcaeval.tools.TOOL_OUTPUTS) is what the tools do: the
server serves exactly its tools, each call writes only the files its row names (plus the
files every call writes) and adds the milestones its row names."""

from __future__ import annotations

import asyncio
from pathlib import Path

import orjson
import pytest
from tools_kit import PANIC_CASE

from rcaeval._vocab import EVIDENCE_CHANNELS
from rcaeval.bundle import MILESTONES
from rcaeval.tools import (
    ALWAYS_WRITTEN,
    OUTAGE_CHANNELS,
    TOOL_OUTPUTS,
    IncidentTools,
    build_server,
    load_case_data,
    tool_output,
    tools_of_channel,
    tools_writing,
)

# one call per tool that returns data, so that what it writes can be seen
CALLS = {
    "get_ticket": {},
    "get_topology": {},
    "get_guardrails": {},
    "list_metrics": {},
    "query_metrics": {"name": "tikv_restart_total"},
    "search_logs": {"pattern": "panic"},
    "list_events": {},
    "get_component_health": {},
    "get_slow_queries": {},
    "get_alerts": {},
    "search_traces": {},
    "get_evidence_summary": {},
}


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def _events(root: Path) -> list[str]:
    path = root / ".opencode/telemetry.log"
    return [orjson.loads(x)["event"] for x in path.read_text().splitlines()] if path.exists() \
        else []


def test_the_server_serves_exactly_the_tools_of_the_table(tmp_path: Path):
    tools = IncidentTools(load_case_data(PANIC_CASE), tmp_path / "b")
    served = [t.name for t in asyncio.run(build_server(tools).list_tools())]
    assert served == [row.tool for row in TOOL_OUTPUTS]


def test_rows_name_known_channels_and_milestones():
    for row in TOOL_OUTPUTS:
        assert row.channel is None or row.channel in EVIDENCE_CHANNELS, row
        assert set(row.milestones) <= set(MILESTONES), row
    assert set(CALLS) | {"submit_report"} == {row.tool for row in TOOL_OUTPUTS}


def test_each_call_writes_what_its_row_says(tmp_path: Path):
    tools = IncidentTools(load_case_data(PANIC_CASE), tmp_path / "b")
    root = tools.writer.root
    before = _files(root)
    assert set(ALWAYS_WRITTEN) - {".opencode/telemetry.log"} <= before  # from the start
    for tool, args in CALLS.items():
        row = tool_output(tool)
        old_files, old_events = _files(root), len(_events(root))
        getattr(tools, tool)(**args)
        new = _files(root) - old_files
        assert new <= set(row.writes) | set(ALWAYS_WRITTEN), (tool, new)
        assert set(row.writes) <= _files(root), (tool, set(row.writes) - _files(root))
        added = _events(root)[old_events:]
        assert set(row.milestones) <= set(added), (tool, added)
    ids = orjson.loads((root / "evidences/logs.json").read_bytes())["entries"]
    tools.submit_report("tikv-2 panicked", [{"claim": "panic", "refs": [
        {"type": "log", "id": ids[0]["id"]}]}])
    assert set(tool_output("submit_report").writes) <= _files(root)


def test_every_outage_channel_names_its_backend():
    from rcaeval.tools._tools import _CHANNEL_BACKENDS

    assert set(_CHANNEL_BACKENDS) == set(OUTAGE_CHANNELS)


def test_lookups():
    assert [r.tool for r in tools_writing("gate_checks.json")] == ["get_alerts"]
    assert [r.tool for r in tools_writing("evidences/gate_checks.json")] == ["get_alerts"]
    assert [r.tool for r in tools_writing("events.json")] == ["list_events"]
    assert tools_writing("workload.json") == []
    assert [r.tool for r in tools_writing("collection_errors.json")] == [
        "list_metrics", "query_metrics", "search_logs", "list_events", "get_slow_queries",
        "get_alerts", "search_traces"]
    assert [r.tool for r in tools_writing("traces.json")] == ["search_traces"]
    assert [r.tool for r in tools_of_channel("logs")] == ["search_logs"]
    assert [r.tool for r in tools_of_channel("alerts")] == ["get_alerts"]
    with pytest.raises(KeyError, match="get_ticket"):
        tool_output("get_alert")
