"""queries/judge/trajectory.sql on hand-built raw rows (the healthy run of tests/judge's
judge_kit): what counts as a step, a failed and a repeated call, which call first returned cited
evidence, how usage is read, and the opt-in budget step of the verdict."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from judge_kit import CASE, RUN, db, healthy_rows, judge_rows, judge_spec, verdict  # noqa: F401

T0 = datetime(2026, 10, 3, 14, 10, tzinfo=UTC)


def _line(i: int, event: str, tool: str | None = None, **extra) -> dict:
    doc = {"ts": (T0 + timedelta(seconds=5 * i)).isoformat(), "event": event,
           **({"tool": tool} if tool else {}), **extra}
    return {"run_id": RUN, "case_id": CASE, "line_no": i + 1, "ts": T0 + timedelta(seconds=5 * i),
            "event": event, "tool": tool, "status": "error" if event == "tool.error" else "ok",
            "detail": None, "text": json.dumps(doc)}


CALLS = [  # (event, tool, extra)
    ("diagnosis_run.initialized", "get_ticket", {}),
    ("tool.call", "get_ticket", {"args": {}, "returned": 0, "ids": []}),
    ("tool.error", "search_logs", {"args": {"min_level": "LOUD"}, "channel": "logs"}),
    ("tool.call", "query_metrics", {"args": {"name": "x"}, "ids": ["M-other"],
                                    "channel": "metrics"}),
    ("tool.call", "search_logs", {"args": {"pattern": "panic"}, "ids": ["L-9", "L-1"],
                                  "channel": "logs"}),
    ("tool.call", "search_logs", {"args": {"pattern": "panic"}, "ids": ["L-9", "L-1"],
                                  "channel": "logs"}),
    ("tool.call", "get_ticket", {"args": {}, "ids": []}),
]


def _rows(usage: dict | None = None, duration: float | None = 42.5) -> dict:
    rows = healthy_rows()
    milestones = rows["raw_telemetry"]
    tele = [_line(i, e, t, **x) for i, (e, t, x) in enumerate(CALLS)]
    tele += [_line(len(CALLS) + i, r["event"]) for i, r in enumerate(milestones)]
    rows["raw_telemetry"] = tele
    k = {"run_id": RUN, "case_id": CASE, "file": "manifest.json", "length": None}
    if duration is not None:
        rows["raw_json"].append({**k, "path": "$.duration_s", "type": "number",
                                 "value_text": str(duration), "value_num": duration})
    for key, value in (usage or {}).items():
        rows["raw_json"].append({**k, "path": f"$.usage.{key}",
                                 "type": "number" if isinstance(value, int | float) else "string",
                                 "value_text": str(value),
                                 "value_num": value if isinstance(value, int | float) else None})
    return rows


def _traj(con) -> dict:
    return con.sql("SELECT * FROM j_trajectory").fetchdf().to_dict("records")[0]


def test_steps_failed_repeated_and_the_first_cited_evidence(db):  # noqa: F811
    frames = judge_rows(db, _rows({"input_tokens": 1000, "output_tokens": 250,
                                   "cost_usd": 0.5}))
    t = frames.trajectory.row(0, named=True)
    assert (t["steps"], t["failed_calls"], t["repeated_calls"]) == (6, 1, 2)
    assert (t["tools_used"], t["channels_queried"]) == (3, 2)
    # step 4 (the first successful search_logs) returned L-1, logs.json line 1, which the
    # panic check cited; the failed search_logs call at step 2 did not count
    assert (t["evidence_step"], t["evidence_id"]) == (4, "L-1")
    assert t["evidence_check"] in set(frames.checks.filter(
        frames.checks["bucket"] == "critical_evidence")["check_id"].to_list())
    assert t["evidence_seconds"] == 20.0  # line 5 at +20 s from the first line
    assert (t["input_tokens"], t["output_tokens"], t["total_tokens"]) == (1000, 250, 1250)
    assert (t["cost_usd"], t["wall_seconds"]) == (0.5, 42.5)
    assert (t["efficiency"], t["over_budget"], t["efficiency_reason"]) == (
        "no_budget", [], "no budget declared")
    tools = {r["tool"]: r for r in frames.trajectory_tools.to_dicts()}
    assert [r["tool"] for r in frames.trajectory_tools.to_dicts()] == [
        "get_ticket", "search_logs", "query_metrics"]  # first-call order
    assert (tools["get_ticket"]["calls"], tools["get_ticket"]["repeated_calls"]) == (2, 1)
    assert (tools["search_logs"]["calls"], tools["search_logs"]["failed_calls"],
            tools["search_logs"]["repeated_calls"], tools["search_logs"]["channel"]) \
        == (3, 1, 1, "logs")


def test_no_ids_no_evidence_step_and_bad_usage_is_null(db):  # noqa: F811
    rows = _rows({"input_tokens": 1e300, "output_tokens": -5, "cost_usd": "0.1"},
                 duration=None)
    for r in rows["raw_telemetry"]:
        r["text"] = r["text"].replace('"L-1"', '"L-2"')
    t = judge_rows(db, rows).trajectory.row(0, named=True)
    assert t["evidence_step"] is None and t["evidence_seconds"] is None
    assert t["input_tokens"] is None and t["output_tokens"] is None
    assert t["total_tokens"] is None and t["cost_usd"] is None and t["wall_seconds"] is None


@pytest.mark.parametrize(("budget", "status", "over", "final"), [
    ({"max_steps": 10}, "within_budget", [], ("pass", "diagnosis_pass")),
    ({"max_steps": 5}, "over_budget", ["steps"], ("pass", "diagnosis_pass")),
    ({"max_steps": 5, "max_seconds": 40, "enforce": True}, "over_budget",
     ["steps", "seconds"], ("fail", "over_budget")),
    ({"max_tokens": 100, "enforce": True}, "unmeasured", [], ("pass", "diagnosis_pass")),
])
def test_budgets_report_and_only_an_enforced_one_changes_the_verdict(
        db, budget, status, over, final):  # noqa: F811
    spec = judge_spec(lambda raw: raw.update(efficiency=budget))
    frames = judge_rows(db, _rows(), spec)
    t = frames.trajectory.row(0, named=True)
    assert (t["efficiency"], t["over_budget"]) == (status, over)
    v = verdict(frames)
    assert (v["verdict"], v["subtype"]) == final
    if final[1] == "over_budget":
        assert v["step"] == 12 and v["score"] <= 69
        assert v["reason"] == ("over_budget: steps 6 > max_steps 5; seconds 42.5 > "
                               "max_seconds 40.0 (enforced)")
    else:
        assert v["score"] >= 70
