"""The incident tools' behaviour without MCP: bounded, paged results, clear errors for bad
input, and what each call records into the bundle."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from tools_kit import PANIC_CASE

from rcaeval.errors import InputError
from rcaeval.tools import IncidentTools, ToolInputError, load_case_data


@pytest.fixture
def tools(tmp_path: Path) -> IncidentTools:
    return IncidentTools(load_case_data(PANIC_CASE), tmp_path / "b")


def _tele(tools: IncidentTools) -> list[dict]:
    path = tools.writer.root / ".opencode/telemetry.log"
    return [orjson.loads(x) for x in path.read_text().splitlines()]


def test_case_data_reads_only_run_visible_fields():
    data = load_case_data(PANIC_CASE)
    assert data.cluster_id == "prod-tidb-017"
    assert (data.window_start, data.window_end) == ("2026-10-03T14:00:00Z",
                                                    "2026-10-03T15:00:00Z")
    assert data.logs[0].id.startswith("L-") and len({ln.id for ln in data.logs}) == len(data.logs)
    assert not hasattr(data, "ground_truth")


def test_logs_are_paged_and_recorded_by_id(tools: IncidentTools):
    first = tools.search_logs(component="tikv", limit=5)
    assert len(first["entries"]) == 5 and first["total"] > 5 and first["next_cursor"]
    second = tools.search_logs(component="tikv", limit=5, cursor=first["next_cursor"])
    ids = [e["id"] for e in first["entries"] + second["entries"]]
    assert len(set(ids)) == 10
    logs = orjson.loads((tools.writer.root / "evidences/logs.json").read_bytes())
    assert [e["id"] for e in logs["entries"]] == ids  # exactly what was returned
    again = tools.search_logs(component="tikv", limit=5)  # same lines, same ids, no duplicates
    assert [e["id"] for e in again["entries"]] == ids[:5]
    assert len(orjson.loads((tools.writer.root / "evidences/logs.json").read_bytes())
               ["entries"]) == 10
    calls = [t for t in _tele(tools) if t["event"] == "tool.call"]
    assert calls[0]["args"] == {"component": "tikv", "limit": 5} and calls[0]["ids"] == ids[:5]


def test_time_ranges(tools: IncidentTools):
    with pytest.raises(ToolInputError, match="after end"):
        tools.search_logs(start="2026-10-03T15:00:00Z", end="2026-10-03T14:00:00Z")
    with pytest.raises(ToolInputError, match="ISO-8601"):
        tools.query_metrics("tikv_restart_total", start="yesterday")
    out = tools.search_logs(start="2030-01-01T00:00:00Z")
    assert out["entries"] == [] and "incident data covers" in out["note"]
    inside = tools.query_metrics("tikv_restart_total", {"instance": "tikv-2"},
                                 start="2026-10-03T14:05:00Z", end="2026-10-03T14:10:00Z")
    pts = inside["series"][0]["points"]
    assert pts and all("14:05:00" <= p[0][11:19] <= "14:10:00" for p in pts)
    errors = [t for t in _tele(tools) if t["event"] == "tool.error"]
    assert len(errors) == 2 and errors[0]["tool"] == "search_logs"


def test_bad_arguments_say_how_to_ask(tools: IncidentTools):
    with pytest.raises(ToolInputError, match="did you mean tikv_restart_total"):
        tools.query_metrics("tikv_restart_totl")
    with pytest.raises(ToolInputError, match="label values: instance=tikv-0"):
        tools.query_metrics("tikv_restart_total", {"instance": "tikv-9"})
    with pytest.raises(ToolInputError, match="not a valid regular expression"):
        tools.search_logs(pattern="(unclosed")
    with pytest.raises(ToolInputError, match="limit must be between 1 and 200"):
        tools.search_logs(limit=5000)
    with pytest.raises(ToolInputError, match="bad cursor"):
        tools.search_logs(cursor="o999999")
    with pytest.raises(ToolInputError, match="min_level must be one of"):
        tools.search_logs(min_level="LOUD")


def test_metric_points_are_bounded(tools: IncidentTools):
    out = tools.query_metrics("tikv_restart_total", {"instance": "tikv-2"}, max_points=5)
    s = out["series"][0]
    assert len(s["points"]) == 5 and s["truncated"] is True
    full = load_case_data(PANIC_CASE).series
    last = [x for x in full if x["id"] == s["id"]][0]["points"][-1]
    assert s["points"][-1] == last
    with pytest.raises(ToolInputError, match="max_points"):
        tools.query_metrics("tikv_restart_total", max_points=10**6)


def test_milestones_follow_the_calls(tools: IncidentTools):
    tools.get_ticket()
    tools.get_topology()
    tools.get_guardrails()
    tools.list_events()
    names = [t["event"] for t in _tele(tools)]
    assert names[0] == "diagnosis_run.initialized"
    for m in ("ticket_context.loaded", "architecture_context.loaded", "guardrails.loaded",
              "evidence_collection.started", "events_query.attempted"):
        assert m in names
    assert "evidence_collection.completed" not in names  # only a submitted report completes
    root = tools.writer.root
    assert (root / "evidences/cluster_meta.json").is_file()
    assert orjson.loads((root / "evidences/ticket_context.json").read_bytes())["ticket_id"]


def test_submit_report_refuses_uncollected_ids(tools: IncidentTools):
    tools.search_logs(pattern="TiKV panic", limit=1)
    with pytest.raises(ToolInputError, match="log:L-tikv-2-99999"):
        tools.submit_report("tikv-2 panicked", [{"claim": "panic", "refs": [
            {"type": "log", "id": "L-tikv-2-99999"}]}])
    assert not (tools.writer.root / "output.txt").exists()  # nothing written on a refusal
    lid = orjson.loads((tools.writer.root / "evidences/logs.json").read_bytes())[
        "entries"][0]["id"]
    res = tools.submit_report("The root cause is a TiKV panic on tikv-2.", [
        {"claim": "tikv-2 panicked", "refs": [{"type": "log", "id": lid}]}],
        ruled_out=["A hotspot was ruled out."], actions=["Drain tikv-2."])
    assert res["status"] == "submitted" and "never queried: metrics, queries, events" in \
        res["warnings"][0]
    out = (tools.writer.root / "output.txt").read_text()
    assert out.startswith("## Root cause") and lid in out
    patch = orjson.loads((tools.writer.root / "analysis_patch.json").read_bytes())
    assert patch["items"] == [{"id": "A1", "claim": "tikv-2 panicked", "role": "key",
                               "refs": [{"type": "log", "id": lid}]}]


def test_bad_case_dir_is_an_input_error(tmp_path: Path):
    with pytest.raises(InputError, match="no incident/"):
        load_case_data(tmp_path)
    (tmp_path / "incident").mkdir()
    (tmp_path / "incident/metrics.json").write_text("{not json")
    with pytest.raises(InputError, match="metrics.json is not valid JSON"):
        load_case_data(tmp_path)
