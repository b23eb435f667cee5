"""get_alerts: the incident's alert-rule and gate-check evaluations (incident/alerts.json),
filtered and paged like the other tools, recorded into evidences/gate_checks.json - in
process and through a real MCP server over stdio."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest
from tools_kit import PANIC_CASE, run_scripted

from rcaeval.errors import InputError
from rcaeval.tools import IncidentTools, ToolFailed, ToolInputError, client_caller, load_case_data

CHECKS = [
    {"name": "infra_healthy", "status": "pass", "detail": "all pods running",
     "ts": "2026-10-03T14:10:00Z"},
    {"id": "AL-7", "name": "restarts", "status": "fail", "component": "tikv",
     "instance": "tikv-2", "detail": "tikv-2 restarted 4 times", "ts": "2026-10-03T14:20:00Z"},
    {"name": "disk_usage", "status": "warn", "detail": "tikv-0 disk 81% used"},
]


def _case(tmp: Path, checks: object = None) -> Path:
    case = tmp / "case"
    shutil.copytree(PANIC_CASE, case)
    (case / "incident/alerts.json").write_bytes(orjson.dumps(
        {"checks": CHECKS} if checks is None else checks))
    return case


def _recorded(bundle: Path) -> list[dict]:
    return orjson.loads((bundle / "evidences/gate_checks.json").read_bytes())["checks"]


def test_alerts_are_served_failing_first_and_recorded(tmp_path: Path):
    tools = IncidentTools(load_case_data(_case(tmp_path)), tmp_path / "b")
    out = tools.get_alerts()
    assert [c["id"] for c in out["checks"]] == ["AL-7", "G-0003", "G-0001"]
    assert out["counts"] == {"pass": 1, "fail": 1, "warn": 1} and out["total"] == 3
    assert [c["id"] for c in _recorded(tmp_path / "b")] == ["AL-7", "G-0003", "G-0001"]
    tele = [orjson.loads(x) for x in (tmp_path / "b/.opencode/telemetry.log").read_text()
            .splitlines()]
    call = next(t for t in tele if t["event"] == "tool.call")
    assert call["tool"] == "get_alerts" and call["returned"] == 3
    assert "evidence_collection.started" in {t["event"] for t in tele}


def test_filters_and_paging(tmp_path: Path):
    b = tmp_path / "b"
    tools = IncidentTools(load_case_data(_case(tmp_path)), b)
    assert [c["name"] for c in tools.get_alerts(status="fail")["checks"]] == ["restarts"]
    assert [c["name"] for c in tools.get_alerts(name_contains="DISK")["checks"]] == [
        "disk_usage"]
    assert [c["name"] for c in tools.get_alerts(component="tikv-2")["checks"]] == ["restarts"]
    # a time range keeps the checks evaluated inside it (checks without ts are left out)
    got = tools.get_alerts(start="2026-10-03T14:15:00Z", end="2026-10-03T15:00:00Z")
    assert [c["name"] for c in got["checks"]] == ["restarts"]
    first = tools.get_alerts(limit=2)
    assert len(first["checks"]) == 2 and first["next_cursor"] == "o2"
    rest = tools.get_alerts(limit=2, cursor=first["next_cursor"])
    assert [c["name"] for c in rest["checks"]] == ["infra_healthy"] and rest["next_cursor"] is None
    # what was returned so far is recorded, merged by id
    assert sorted(c["name"] for c in _recorded(b)) == ["disk_usage", "infra_healthy", "restarts"]


def test_bad_arguments_say_how_to_ask(tmp_path: Path):
    tools = IncidentTools(load_case_data(_case(tmp_path)), tmp_path / "b")
    with pytest.raises(ToolInputError, match="status must be one of pass, fail, warn"):
        tools.get_alerts(status="firing")
    with pytest.raises(ToolInputError, match="limit must be between 1 and 200"):
        tools.get_alerts(limit=0)
    with pytest.raises(ToolInputError, match="ISO-8601"):
        tools.get_alerts(start="yesterday")


def test_an_incident_without_alerts_answers_empty(tmp_path: Path):
    tools = IncidentTools(load_case_data(_case(tmp_path, {"checks": []})), tmp_path / "b")
    out = tools.get_alerts()
    assert out["checks"] == [] and "no alert-rule" in out["note"]
    assert _recorded(tmp_path / "b") == []


@pytest.mark.parametrize(("doc", "field"), [
    ({"checks": [{"name": "x", "status": "fail"}]}, "checks[0].detail"),
    ({"checks": [{"name": "x", "status": "firing", "detail": "d"}]}, "checks[0].status"),
    ({"alerts": []}, "checks"),
])
def test_malformed_alerts_json_is_an_input_error(tmp_path: Path, doc: dict, field: str):
    case = _case(tmp_path, doc)
    with pytest.raises(InputError) as exc:
        load_case_data(case)
    assert exc.value.field == field and str(exc.value.file).endswith("alerts.json")
    from rcaeval.cli import main

    assert main(["tools", "serve", "--case-dir", str(case), "--bundle-dir",
                 str(tmp_path / "b")]) == 3


def test_an_alerting_outage_is_a_collection_error(tmp_path: Path):
    case = _case(tmp_path)
    (case / "incident/tool_status.json").write_bytes(orjson.dumps({"unavailable": ["alerts"]}))
    tools = IncidentTools(load_case_data(case), tmp_path / "b")
    with pytest.raises(ToolInputError, match="alerting backend is unavailable"):
        tools.get_alerts()
    errors = orjson.loads((tmp_path / "b/evidences/collection_errors.json").read_bytes())
    assert [e["channel"] for e in errors["errors"]] == ["alerts"]


def test_get_alerts_through_the_mcp_server(tmp_path: Path):
    case, bundle = _case(tmp_path), tmp_path / "bundle"

    async def script(client):
        call = client_caller(client)
        tools = {t.name: t for t in (await client.list_tools()).tools}
        schema = tools["get_alerts"].input_schema["properties"]
        failing = await call("get_alerts", {"status": "fail"})
        try:
            await call("get_alerts", {"limit": 500})
            refused = ""
        except ToolFailed as exc:
            refused = str(exc)
        return schema, failing, refused
    schema, failing, refused = run_scripted(case, bundle, script)
    assert {"status", "name_contains", "component", "start", "end", "limit", "cursor"} <= set(
        schema)
    assert [c["id"] for c in failing["checks"]] == ["AL-7"]
    assert "limit must be between 1 and 200" in refused
    assert [c["id"] for c in _recorded(bundle)] == ["AL-7"]
    tele = (bundle / ".opencode/telemetry.log").read_text()
    assert '"tool":"get_alerts"' in tele and '"event":"tool.error"' in tele
