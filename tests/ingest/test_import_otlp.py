"""rcaeval import otlp: OpenTelemetry OTLP JSON traces (one request per file, or JSON Lines as
the collector's file exporter writes) into incident/traces.json, served by search_traces;
bad input names the file, the line and the field and leaves the incident dir untouched."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from ingest_kit import DATA, case_copy, rcaeval, snapshot

from rcaeval.errors import InputError
from rcaeval.ingest import import_otlp, incident_update, otlp_spans, parse_window
from rcaeval.tools import IncidentTools, load_case_data

SRC = DATA / "otlp_checkout.json"
TRACE = "5b8efff798038103d269b633813fc60c"


def _doc() -> dict:
    return orjson.loads(SRC.read_bytes())


def _jsonl(tmp: Path, docs: list[object], raw_lines: tuple[str, ...] = ()) -> Path:
    path = tmp / "traces.jsonl"
    lines = [orjson.dumps(d).decode() for d in docs] + list(raw_lines)
    path.write_text("\n".join(lines) + "\n")
    return path


def test_spans_are_mapped_from_the_otlp_encoding():
    spans = {s["span_id"]: s for s in otlp_spans(SRC)}
    root, db, other = spans["eee19b7ec3c1b174"], spans["eee19b7ec3c1b175"], spans[
        "aaa19b7ec3c1b100"]
    assert root == {
        "id": f"T-{TRACE}-eee19b7ec3c1b174", "trace_id": TRACE, "span_id": "eee19b7ec3c1b174",
        "parent_span_id": None, "service": "checkout", "operation": "POST /api/checkout",
        "kind": "server", "start": "2026-10-03T14:05:00Z", "duration_ms": 5250.0,
        "status": "error", "status_message": "charge failed",
        "attributes": {"http.request.method": "POST", "http.response.status_code": "500"},
        "resource": {"service.name": "checkout", "k8s.pod.name": "checkout-7f9c6-x2kq"}}
    assert db["parent_span_id"] == "eee19b7ec3c1b174" and db["kind"] == "client"
    assert db["start"] == "2026-10-03T14:05:00.100000Z" and db["duration_ms"] == 5000.0
    assert db["events"] == [{"name": "exception", "ts": "2026-10-03T14:05:05.100000Z",
                             "attributes": {
                                 "exception.type": "org.postgresql.util.PSQLException",
                                 "exception.message":
                                     "FATAL: remaining connection slots are reserved"}}]
    assert other["service"] == "frontend" and other["kind"] == "server"
    assert other["status"] == "unset" and "status_message" not in other


def test_import_into_a_case_is_served_by_search_traces_and_is_idempotent(tmp_path: Path):
    case = case_copy(tmp_path)
    lines = _jsonl(tmp_path, [{"resourceSpans": [rs]} for rs in _doc()["resourceSpans"]])
    done = rcaeval("import", "otlp", str(lines), "--out", str(case))
    assert done.returncode == 0, done.stderr
    assert "imported 3 span(s) (2 with status error)" in done.stdout
    first = (case / "incident/traces.json").read_bytes()
    assert rcaeval("import", "otlp", str(SRC), "--out", str(case / "incident")).returncode == 0
    assert (case / "incident/traces.json").read_bytes() == first  # merged by id
    tools = IncidentTools(load_case_data(case), tmp_path / "bundle")
    out = tools.search_traces()
    assert [s["status"] for s in out["spans"]] == ["error", "error", "unset"]
    assert out["spans"][0]["operation"] == "POST /api/checkout"  # errors first, slowest first
    assert tools.search_traces(service="frontend")["total"] == 1
    assert (case / "incident/logs/tikv-2.log").is_file()  # the rest of the incident is kept


def test_a_window_keeps_the_spans_that_start_inside_it(tmp_path: Path):
    inc = tmp_path / "incident"
    with incident_update(inc) as work:
        got = import_otlp(work, [SRC], parse_window(
            "2026-10-03T14:05:00Z..2026-10-03T14:10:00Z"))
    assert got == {"spans": 2, "errors": 2, "total": 2}


def _bad_lines(tmp: Path) -> Path:
    return _jsonl(tmp, [_doc()], ('{"resourceSpans": [',))


def _mutated(tmp: Path, fn) -> Path:
    doc = _doc()
    fn(doc["resourceSpans"][0]["scopeSpans"][0]["spans"][1])
    path = tmp / "bad.json"
    path.write_bytes(orjson.dumps(doc))
    return path


SPAN1 = "resourceSpans[0].scopeSpans[0].spans[1]"


@pytest.mark.parametrize("make, line, field, needle", [
    (_bad_lines, 2, None, "not a JSON document"),
    (lambda t: _mutated(t, lambda s: s.update(traceId="5b8e-not-hex")), None,
     f"{SPAN1}.traceId", "16-byte id as 32 hex digits"),
    (lambda t: _mutated(t, lambda s: s.update(startTimeUnixNano="2026-10-03T14:05:00Z")),
     None, f"{SPAN1}.startTimeUnixNano", "decimal integer string"),
    (lambda t: _mutated(t, lambda s: s.pop("endTimeUnixNano")), None,
     f"{SPAN1}.endTimeUnixNano", "start and end times"),
    (lambda t: _mutated(t, lambda s: s.update(endTimeUnixNano="1")), None,
     f"{SPAN1}.endTimeUnixNano", "ends before it starts"),
    (lambda t: _mutated(t, lambda s: s.update(status={"code": 7})), None,
     f"{SPAN1}.status.code", "unknown value 7"),
    (lambda t: _jsonl(t, [_doc(), {"resource_spans": []}]), 2, "resourceSpans",
     "expected an OTLP traces document"),
])
def test_bad_input_names_file_line_and_field_and_changes_nothing(
        tmp_path: Path, make, line, field, needle):
    case = case_copy(tmp_path)
    src = make(tmp_path)
    before = snapshot(case / "incident")
    with pytest.raises(InputError, match=needle) as err:
        with incident_update(case / "incident") as work:
            import_otlp(work, [SRC, src])
    assert err.value.file == str(src) and err.value.line == line and err.value.field == field
    assert snapshot(case / "incident") == before


def test_the_cli_exits_3_on_a_window_with_no_data(tmp_path: Path):
    case = case_copy(tmp_path)
    before = snapshot(case / "incident")
    done = rcaeval("import", "otlp", str(SRC), "--out", str(case),
                   "--window", "2027-01-01T00:00:00Z..2027-01-02T00:00:00Z")
    assert done.returncode == 3
    assert f"{SRC}: no span in the window 2027-01-01T00:00:00Z..2027-01-02T00:00:00Z" in (
        done.stderr + done.stdout)
    assert snapshot(case / "incident") == before
    bad = rcaeval("import", "otlp", str(SRC), "--out", str(case), "--window", "last hour")
    assert bad.returncode == 3 and "--window" in bad.stderr + bad.stdout
