"""search_traces: the incident's trace spans (incident/traces.json), filtered and paged like
the other tools, error spans first, recorded into evidences/traces.json - in process and
through a real MCP server over stdio; the bundle lint and the judge's traces channel."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest
from tools_kit import PANIC_CASE, run_scripted

from rcaeval.bundle import lint_bundle
from rcaeval.errors import InputError
from rcaeval.tools import IncidentTools, ToolFailed, ToolInputError, client_caller, load_case_data

TRACE = "5b8efff798038103d269b633813fc60c"


def span(sid: str, service: str, op: str, start: str, dur: float, status: str = "ok",
         **extra: object) -> dict:
    return {"trace_id": TRACE, "span_id": sid, "service": service, "operation": op,
            "start": start, "duration_ms": dur, "status": status, **extra}


SPANS = [
    span("a000000000000001", "frontend", "GET /checkout", "2026-10-03T14:05:00Z", 5200.0),
    span("a000000000000002", "checkout", "POST /charge", "2026-10-03T14:05:00.100Z", 5000.0,
         "error", parent_span_id="a000000000000001",
         status_message="payment-db: connection pool exhausted"),
    span("a000000000000003", "payment", "SELECT payments", "2026-10-03T14:05:00.200Z", 12.5,
         "unset"),
    span("a000000000000004", "frontend", "GET /health", "2026-10-03T14:30:00Z", 1.0,
         id="SP-health"),
]


def _case(tmp: Path, doc: object = None) -> Path:
    case = tmp / "case"
    shutil.copytree(PANIC_CASE, case)
    (case / "incident/traces.json").write_bytes(orjson.dumps(
        {"spans": SPANS} if doc is None else doc))
    return case


def _recorded(bundle: Path) -> list[dict]:
    return orjson.loads((bundle / "evidences/traces.json").read_bytes())["spans"]


def test_spans_are_served_errors_first_then_slowest_and_recorded(tmp_path: Path):
    b = tmp_path / "b"
    tools = IncidentTools(load_case_data(_case(tmp_path)), b)
    out = tools.search_traces()
    ids = [s["id"] for s in out["spans"]]
    assert ids == [f"T-{TRACE}-a000000000000002", f"T-{TRACE}-a000000000000001",
                   f"T-{TRACE}-a000000000000003", "SP-health"]
    assert out["counts"] == {"error": 1, "ok": 2, "unset": 1} and out["total"] == 4
    assert [s["id"] for s in _recorded(b)] == ids
    tele = [orjson.loads(x) for x in (b / ".opencode/telemetry.log").read_text().splitlines()]
    call = next(t for t in tele if t["event"] == "tool.call")
    assert call["tool"] == "search_traces" and call["returned"] == 4
    assert "evidence_collection.started" in {t["event"] for t in tele}
    summary = tools.get_evidence_summary()
    assert summary["ids"]["traces"] == ids
    assert not [f for f in lint_bundle(b) if f.rule == "trace_span"]


def test_filters_and_paging(tmp_path: Path):
    b = tmp_path / "b"
    tools = IncidentTools(load_case_data(_case(tmp_path)), b)
    assert [s["span_id"] for s in tools.search_traces(service="CHECKOUT")["spans"]] == [
        "a000000000000002"]
    assert [s["service"] for s in tools.search_traces(operation="charge")["spans"]] == [
        "checkout"]
    assert [s["span_id"] for s in tools.search_traces(status="unset")["spans"]] == [
        "a000000000000003"]
    assert tools.search_traces(min_duration_ms=5000)["total"] == 2
    assert tools.search_traces(trace_id=TRACE.upper())["total"] == 4
    got = tools.search_traces(start="2026-10-03T14:10:00Z", end="2026-10-03T15:00:00Z")
    assert [s["id"] for s in got["spans"]] == ["SP-health"]
    first = tools.search_traces(limit=3)
    assert len(first["spans"]) == 3 and first["next_cursor"] == "o3"
    rest = tools.search_traces(limit=3, cursor=first["next_cursor"])
    assert [s["id"] for s in rest["spans"]] == ["SP-health"] and rest["next_cursor"] is None
    none = tools.search_traces(service="nope")
    assert none["total"] == 0 and none["known"]["services"] == ["checkout", "frontend",
                                                               "payment"]
    empty = tools.search_traces(start="2027-01-01T00:00:00Z")
    assert "nothing in this range" in empty["note"]


@pytest.mark.parametrize("kwargs, needle", [
    ({"status": "failed"}, "status must be one of error, ok, unset"),
    ({"min_duration_ms": -1.0}, "min_duration_ms must be a number >= 0"),
    ({"limit": 0}, "limit must be between 1 and 200"),
    ({"start": "yesterday"}, "ISO-8601"),
    ({"cursor": "o99"}, "bad cursor"),
])
def test_bad_arguments_are_refused_and_recorded(tmp_path: Path, kwargs: dict, needle: str):
    b = tmp_path / "b"
    tools = IncidentTools(load_case_data(_case(tmp_path)), b)
    with pytest.raises(ToolInputError, match=needle):
        tools.search_traces(**kwargs)
    tele = (b / ".opencode/telemetry.log").read_text()
    assert '"tool.error"' in tele and not (b / "evidences/traces.json").exists()


def test_a_case_without_traces_says_so_and_an_outage_is_missing_data(tmp_path: Path):
    tools = IncidentTools(load_case_data(PANIC_CASE), tmp_path / "b")
    out = tools.search_traces()
    assert out["spans"] == [] and out["note"] == "this incident has no trace spans"
    case = _case(tmp_path)
    (case / "incident/tool_status.json").write_text('{"unavailable": ["traces"]}')
    down = IncidentTools(load_case_data(case), tmp_path / "b2")
    with pytest.raises(ToolInputError, match="tracing backend is unavailable"):
        down.search_traces()
    errors = orjson.loads((tmp_path / "b2/evidences/collection_errors.json").read_bytes())
    assert errors["errors"][0]["channel"] == "traces"


@pytest.mark.parametrize("bad, field", [
    ({"spans": {}}, "spans"),
    ({"spans": [{**SPANS[0], "service": ""}]}, "spans[0].service"),
    ({"spans": [SPANS[0], {**SPANS[1], "status": "failed"}]}, "spans[1].status"),
    ({"spans": [{**SPANS[0], "start": "14:05"}]}, "spans[0].start"),
    ({"spans": [{**SPANS[0], "duration_ms": "5"}]}, "spans[0].duration_ms"),
    ({"spans": [{k: v for k, v in SPANS[0].items() if k != "trace_id"}]}, "spans[0].trace_id"),
])
def test_a_bad_traces_file_names_the_file_and_the_field(tmp_path: Path, bad: dict, field: str):
    with pytest.raises(InputError) as err:
        load_case_data(_case(tmp_path, bad))
    assert err.value.field == field and err.value.file.endswith("incident/traces.json")


def test_the_lint_flags_a_span_the_judge_cannot_use(tmp_path: Path):
    b = tmp_path / "b"
    IncidentTools(load_case_data(_case(tmp_path)), b).search_traces()
    doc = orjson.loads((b / "evidences/traces.json").read_bytes())
    doc["spans"][0].pop("service")
    doc["spans"][1]["status"] = "broken"
    (b / "evidences/traces.json").write_bytes(orjson.dumps(doc))
    found = [(f.severity, f.file) for f in lint_bundle(b) if f.rule == "trace_span"]
    assert found == [("error", "evidences/traces.json [spans[0]]"),
                     ("warning", "evidences/traces.json [spans[1]]")]


def test_search_traces_over_mcp_stdio(tmp_path: Path):
    case, b = _case(tmp_path), tmp_path / "b"

    async def script(client):
        names = {t.name for t in (await client.list_tools()).tools}
        call = client_caller(client)
        first = await call("search_traces", {"status": "error"})
        try:
            await call("search_traces", {"min_duration_ms": -3})
            refused = None
        except ToolFailed as exc:
            refused = str(exc)
        return names, first, refused

    names, first, refused = run_scripted(case, b, script)
    assert "search_traces" in names
    assert [s["status_message"] for s in first["spans"]] == [
        "payment-db: connection pool exhausted"]
    assert refused and "min_duration_ms" in refused
    assert [s["span_id"] for s in _recorded(b)] == ["a000000000000002"]


def test_ids_of_any_form_get_a_safe_default_evidence_id(tmp_path: Path):
    odd = span("21030300016145905763", "bank", "transfer", "2026-10-03T14:05:00Z", 3.0,
               "error", trace_id="369-bcou-dle-way1-c514cf30-43410@0824-2f0e47a816 x")
    b = tmp_path / "b"
    out = IncidentTools(load_case_data(_case(tmp_path, {"spans": [odd]})), b).search_traces()
    assert [s["id"] for s in out["spans"]] == [
        "T-369-bcou-dle-way1-c514cf30-43410@0824-2f0e47a816_x-21030300016145905763"]
    assert _recorded(b)[0]["trace_id"] == odd["trace_id"]


def test_example_agent_searches_traces_only_when_the_case_has_them(tmp_path: Path):
    """get_ticket lists the channels holding data; the example agent's investigation
    (rcaeval.examples._mcp.investigate) searches error spans when traces is one of them."""
    from rcaeval.examples._mcp import investigate

    traces_case = (Path(__file__).resolve().parents[1] / "prove" / "traces_registry" / "cases"
                   / "checkout-db-pool-001")
    for case, expect in ((traces_case, True), (PANIC_CASE, False)):
        bundle = tmp_path / case.name

        async def script(client):
            call = client_caller(client)
            channels = (await call("get_ticket", {}))["channels"]
            await investigate(call)
            return channels
        channels = run_scripted(case, bundle, script)
        assert ("traces" in channels) is expect
        tele = [orjson.loads(x) for x in (bundle / ".opencode/telemetry.log").read_text()
                .splitlines()]
        tools = [t.get("tool") for t in tele if t.get("event") == "tool.call"]
        assert ("search_traces" in tools) is expect
        if expect:
            spans = orjson.loads((bundle / "evidences/traces.json").read_bytes())["spans"]
            assert spans and all(s["status"] == "error" for s in spans)
