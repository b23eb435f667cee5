from __future__ import annotations

import math
from datetime import UTC, datetime

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from rcaeval.extract import (
    flatten_events,
    flatten_json,
    flatten_log_text,
    flatten_logs_json,
    flatten_metrics,
    flatten_patch,
    flatten_queries,
    flatten_telemetry,
    parse_log_line,
)


def _by_path(doc: object) -> dict[str, dict]:
    return {r["path"]: r for r in flatten_json(doc, "f.json").to_pylist()}


def test_json_paths_for_nested_arrays_and_objects() -> None:
    doc = {"series": [{"id": "M-1", "points": [["t0", 1.5], ["t1", 2]]}], "ok": True,
           "odd key": None, "tikv-2": "x"}
    rows = _by_path(doc)
    assert rows["$"]["type"] == "object" and rows["$"]["length"] == 4
    assert rows["$"]["parent"] is None and rows["$"]["key"] is None
    assert rows["$.series"]["length"] == 1
    p = rows["$.series[0].points[1][1]"]
    assert (p["type"], p["value_text"], p["value_num"]) == ("number", "2", 2.0)
    assert (p["parent"], p["key"]) == ("$.series[0].points[1]", "1")
    assert rows["$.series[0].points[0][1]"]["value_num"] == 1.5
    assert rows["$.series[0].points"]["type"] == "array"
    assert rows["$.series[0].id"]["value_text"] == "M-1"
    assert rows["$.ok"]["type"] == "boolean" and rows["$.ok"]["value_text"] == "true"
    assert rows['$["odd key"]']["type"] == "null"
    assert rows["$.tikv-2"]["key"] == "tikv-2"
    assert len(rows) == 14  # every value, containers included


def test_json_document_order_and_scalar_root() -> None:
    paths = flatten_json({"b": [1, {"c": 2}], "a": 3}, "f").column("path").to_pylist()
    assert paths == ["$", "$.b", "$.b[0]", "$.b[1]", "$.b[1].c", "$.a"]
    assert flatten_json("x", "f").to_pylist()[0]["value_text"] == "x"


def test_json_deep_nesting_is_not_recursive() -> None:
    doc: object = 1
    for _ in range(5000):
        doc = [doc]
    t = flatten_json(orjson.loads(orjson.dumps([[[1]]])), "f")
    assert t.num_rows == 4
    assert flatten_json(doc, "f").num_rows == 5001


def test_log_line_timestamps_and_levels() -> None:
    ts, level, comp = parse_log_line("2026-10-03T14:05:12.345Z ERROR [tikv] region miss")
    assert ts == datetime(2026, 10, 3, 14, 5, 12, 345000, tzinfo=UTC)
    assert (level, comp) == ("ERROR", "tikv")
    ts, level, comp = parse_log_line(
        '[2026/10/03 14:05:12.345 +08:00] [WARN] [server.go:12] ["slow"]')
    assert ts == datetime(2026, 10, 3, 6, 5, 12, 345000, tzinfo=UTC)
    assert (level, comp) == ("WARN", None)
    ts, level, _ = parse_log_line("2026-10-03 14:05:12,500 [info] started")
    assert ts == datetime(2026, 10, 3, 14, 5, 12, 500000, tzinfo=UTC) and level == "INFO"
    assert parse_log_line("no timestamp, error inside") == (None, None, None)
    assert parse_log_line("FATAL boom")[1] == "FATAL"


def test_log_text_rows_keep_line_numbers() -> None:
    t = flatten_log_text("first INFO line\n\n2026-10-03T14:00:00Z PANIC [pd] x\r\n", "logs/a.log")
    rows = t.to_pylist()
    assert [r["line_no"] for r in rows] == [1, 3]
    assert rows[1]["level"] == "PANIC" and rows[1]["text"] == "2026-10-03T14:00:00Z PANIC [pd] x"
    assert rows[0]["ts"] is None and rows[0]["file"] == "logs/a.log"


def test_logs_json_entries() -> None:
    notes: list[str] = []
    t = flatten_logs_json({"entries": [
        {"id": "L-1", "ts": "2026-10-03T14:05:30", "level": "fatal", "component": "tikv",
         "instance": "tikv-2", "message": "[panic] boom"}, "junk"]}, notes=notes)
    rows = t.to_pylist()
    assert len(rows) == 1
    r = rows[0]
    assert (r["line_no"], r["entry_id"], r["level"], r["instance"], r["text"]) == (
        1, "L-1", "FATAL", "tikv-2", "[panic] boom")
    assert r["ts"] == datetime(2026, 10, 3, 14, 5, 30, tzinfo=UTC)  # naive ⇒ UTC
    assert notes == ["skipped 1 entries that are not objects"]


def test_telemetry_keeps_non_json_lines() -> None:
    t = flatten_telemetry(
        '{"ts": "2026-10-03T14:10:00Z", "event": "tool.call", "tool": "q", '
        '"detail": {"n": 1}}\n'
        "plain text line\n\n[1, 2]\n")
    rows = t.to_pylist()
    assert [r["line_no"] for r in rows] == [1, 2, 4]
    assert (rows[0]["event"], rows[0]["tool"], rows[0]["detail"]) == ("tool.call", "q", '{"n":1}')
    assert rows[1]["event"] is None and rows[1]["text"] == "plain text line"
    assert rows[2]["event"] is None and rows[2]["text"] == "[1, 2]"


def test_metrics_points_labels_and_skipped_values() -> None:
    notes: list[str] = []
    t = flatten_metrics({"series": [
        {"id": "M-1", "name": "cpu", "labels": {"instance": "tikv-2", "core": 3},
         "points": [["2026-10-03T14:05:00Z", 0.5], ["2026-10-03T14:06:00Z", "NaN"],
                    {"ts": 1790000000, "value": "2.5"}, ["t", "high"], ["t", True]]},
        {"id": "M-empty", "name": "x", "points": []}]}, notes)
    rows = t.to_pylist()
    got = [(r["series_idx"], r["value"]) for r in rows]
    assert got[0] == (0, 0.5) and got[1][0] == 0 and math.isnan(got[1][1])
    assert got[2:] == [(0, 2.5), (1, None)]
    assert dict(rows[0]["labels"]) == {"instance": "tikv-2", "core": "3"}
    assert rows[2]["ts"] == datetime.fromtimestamp(1790000000, tz=UTC)
    assert rows[3]["series_id"] == "M-empty" and rows[3]["ts"] is None
    assert notes == ["skipped 2 non-numeric metric points",
                     "kept 1 NaN and 0 infinite metric points (never compared with a threshold)"]


def test_prometheus_non_finite_strings_are_kept() -> None:
    notes: list[str] = []
    t = flatten_metrics({"series": [{"id": "M-1", "name": "r", "points": [
        [1, "+Inf"], [2, "-Inf"], [3, "NaN"], [4, "Infinity"], [5, "1e999"], [6, "7"]]}]},
        notes)
    vals = [r["value"] for r in t.to_pylist()]
    assert vals[:2] == [math.inf, -math.inf] and math.isnan(vals[2])
    assert vals[3:] == [math.inf, math.inf, 7.0]
    assert notes == ["kept 1 NaN and 4 infinite metric points (never compared with a threshold)"]


def test_queries_and_events() -> None:
    q = flatten_queries({"queries": [{"id": "Q-1", "exec_count": "12", "avg_latency_ms": 3,
                                      "kind": "kill", "extra": 1}]}).to_pylist()[0]
    assert (q["idx"], q["query_id"], q["exec_count"], q["avg_latency_ms"], q["kind"]) == (
        0, "Q-1", 12, 3.0, "kill")
    ev = flatten_events({"events": [{"id": "EV-1", "ts": "2026-10-03T14:06:00+02:00"}]},
                        "events.json").to_pylist()[0]
    assert (ev["source"], ev["event_id"]) == ("events.json", "EV-1")
    assert ev["ts"] == datetime(2026, 10, 3, 12, 6, tzinfo=UTC)
    assert flatten_events([{"id": "EV-R"}], "report").to_pylist()[0]["source"] == "report"


def test_patch_shape_problems() -> None:
    items, refs = flatten_patch({"items": [
        {"id": "A1", "claim": "c", "role": "key", "refs": [{"type": "log", "id": "L-1"}]},
        {"id": "", "claim": "c", "role": "primary", "refs": [{"type": "file", "id": ""}, 7]},
        {"id": "A3", "claim": "c", "role": "supporting"},
        "not an item",
        {"id": "A5", "claim": "c", "role": "supporting",
         "refs": [{"type": "log", "id": "../../etc/passwd"}]},
    ]})
    it = items.to_pylist()
    assert [r["shape_ok"] for r in it] == [True, False, False, False, True]
    assert it[0]["problem"] is None
    p1 = it[1]["problem"]
    assert "id must be a non-empty string" in p1 and "role must be one of" in p1
    assert "refs[0].type" in p1 and "refs[0].id" in p1 and "refs[1] is not an object" in p1
    assert it[2]["problem"] == "refs must be a list"
    assert it[3]["problem"] == "item is not an object"
    rf = refs.to_pylist()
    assert [(r["item_idx"], r["ref_idx"], r["ref_type"], r["ref_id"]) for r in rf] == [
        (0, 0, "log", "L-1"), (1, 0, "file", ""), (1, 1, None, "7"),
        (4, 0, "log", "../../etc/passwd")]


def test_patch_without_items_list() -> None:
    notes: list[str] = []
    items, refs = flatten_patch([{"id": "A1"}], notes)
    assert items.num_rows == 0 and refs.num_rows == 0
    assert notes == ["patch is not an object with an 'items' list"]


def _rebuild(rows: list[dict]) -> object:
    """Reassemble a document from its raw_json rows (document order: parents first)."""
    values: dict[str, object] = {}
    for r in rows:
        t = r["type"]
        if t == "object":
            v: object = {}
        elif t == "array":
            v = []
        elif t == "number":
            v = orjson.loads(r["value_text"])
        elif t == "boolean":
            v = r["value_text"] == "true"
        elif t == "null":
            v = None
        else:
            v = r["value_text"]
        values[r["path"]] = v
        if r["parent"] is not None:
            parent = values[r["parent"]]
            if isinstance(parent, list):
                assert int(r["key"]) == len(parent)
                parent.append(v)
            else:
                parent[r["key"]] = v
    return values["$"]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=6), kids,
                                                              max_size=4),
    max_leaves=30,
)


@settings(max_examples=150, deadline=None)
@given(json_values)
def test_json_rows_reassemble_the_document(doc: object) -> None:
    rows = flatten_json(doc, "f").to_pylist()
    assert _rebuild(rows) == doc
    assert len({r["path"] for r in rows}) == len(rows)  # paths are unique
    assert all(r["length"] is not None for r in rows if r["type"] in ("object", "array"))


# ---- elided bulk containers (docs/extract.md "raw_json") ----

def test_bulk_paths_name_metric_points_and_log_entries_only() -> None:
    from rcaeval.extract._jsonflat import bulk_paths

    metrics = {"series": [{"id": "a", "points": [["t", 1.0]]}, "junk", {"id": "b"},
                          {"points": []}]}
    assert bulk_paths("metrics", metrics) == {"$.series[0].points", "$.series[3].points"}
    assert bulk_paths("logs", {"entries": [{"message": "x"}]}) == {"$.entries"}
    assert bulk_paths("logs", {"entries": "not a list"}) == frozenset()
    assert bulk_paths("metrics", [1, 2]) == frozenset()
    assert bulk_paths("queries", {"series": [{"points": []}]}) == frozenset()


def test_an_elided_container_keeps_its_row_and_its_text() -> None:
    doc = {"series": [{"id": "M-1", "points": [["t0", 1.5], {"ts": "t1", "v": 2}]}]}
    rows = {r["path"]: r for r in
            flatten_json(doc, "f", elide=frozenset({"$.series[0].points"})).to_pylist()}
    assert set(rows) == {"$", "$.series", "$.series[0]", "$.series[0].id",
                         "$.series[0].points"}
    pts = rows["$.series[0].points"]
    assert (pts["type"], pts["length"], pts["value_text"]) == ("array", 2, None)
    assert orjson.loads(pts["elided_json"]) == doc["series"][0]["points"]
    assert all(r["elided_json"] is None for p, r in rows.items() if p != "$.series[0].points")


def _containers(doc: object, path: str = "$") -> list[str]:
    from rcaeval.extract._jsonflat import child_path

    out = []
    if isinstance(doc, dict | list):
        if path != "$":
            out.append(path)
        items = doc.items() if isinstance(doc, dict) else enumerate(doc)
        for k, v in items:
            out.extend(_containers(v, child_path(path, k)))
    return out


@settings(max_examples=150, deadline=None)
@given(json_values, st.data())
def test_elided_rows_rebuild_exactly_what_flattening_writes(doc: object, data) -> None:
    """Eliding any set of containers, then rebuilding them (rcaeval.extract.elided_table),
    gives back every row flattening without elision writes, value for value."""
    from rcaeval.extract import elided_table

    containers = _containers(doc)
    elide = frozenset(data.draw(st.lists(st.sampled_from(containers), unique=True))
                      if containers else [])
    full = flatten_json(doc, "f").to_pylist()
    kept = flatten_json(doc, "f", elide=elide).to_pylist()
    elided = [r for r in kept if r["elided_json"] is not None]
    assert {r["path"] for r in elided} <= elide
    rebuilt = elided_table([("run", "case", "f", r["path"], r["elided_json"])
                            for r in elided]).to_pylist()
    assert all(r["run_id"] == "run" and r["case_id"] == "case" for r in rebuilt)
    got = [{k: v for k, v in r.items() if k not in ("run_id", "case_id", "elided_json")}
           for r in kept + rebuilt]
    want = [{k: v for k, v in r.items() if k != "elided_json"} for r in full]
    assert sorted(got, key=lambda r: r["path"]) == sorted(want, key=lambda r: r["path"])
