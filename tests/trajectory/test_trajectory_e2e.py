"""Trajectory and efficiency through the real path: a command agent (tests/trajectory/agents/
traj_agent.py) starts the incident tools from the MCP config the runner generated, makes a
known sequence of calls (a repeated call, a failed call), reports usage, and run_suite judges
it. The stored rows, report.txt and the results JSON must agree with the telemetry the tool
server recorded, counted here independently; re-judging from the store and from the audit
gives the same rows and a byte-identical judgment.json."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import orjson
import pytest
import yaml

import rcaeval.store as st
from rcaeval.judge import judge_audit, rejudge_store
from rcaeval.report import run_results
from rcaeval.runner import run_suite

REPO = Path(__file__).resolve().parents[2]
CASE = "tikv-panic-restart-001"
AGENT = Path(__file__).resolve().parent / "agents" / "traj_agent.py"
SPEC = f"command:{{python}} {AGENT} {{mcp_config}}"
USAGE = {"input_tokens": 1200, "output_tokens": 300, "cost_usd": 0.02}


def _registry(tmp: Path, budget: dict | None) -> Path:
    reg = tmp / "registry"
    shutil.copytree(REPO / "data" / "registry", reg)
    if budget is not None:
        path = reg / "cases" / CASE / "judge.yaml"
        doc = yaml.safe_load(path.read_text())
        doc["efficiency"] = budget
        path.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))
    return reg


def _run(tmp: Path, budget: dict | None, prefix: str):
    reg = _registry(tmp, budget)
    store = st.connect(tmp / "s.duckdb")
    summary = run_suite(store, "smoke", SPEC, registry_root=reg, audit_root=tmp / "a",
                        workspace_root=tmp / "ws", case_ids=[CASE], progress=False,
                        reports=True, tools="mcp",
                        agent_env={"TRAJ_PREFIX": prefix, "TRAJ_USAGE": json.dumps(USAGE)})
    return store, reg, summary


def _calls(audit: Path) -> list[dict]:
    lines = [orjson.loads(x) for x in (audit / ".opencode/telemetry.log").read_text()
             .splitlines() if x.strip()]
    return [x for x in lines if x.get("event") in ("tool.call", "tool.error")]


def _cited_ids(audit: Path) -> dict[str, str]:
    """{record id: check id} of every passing critical-evidence check's witness."""
    packet = json.loads((audit / "judgment.json").read_text())
    ce = next(b for b in packet["buckets"] if b["bucket"] == "critical_evidence")
    out = {}
    for chk in ce["checks"]:
        ev = chk["evidence"]
        if not chk["passed"] or not ev:
            continue
        doc = json.loads((audit / ev["file"]).read_text())
        if ev["file"].endswith("logs.json") and ev["path"] is None:
            out[doc["entries"][ev["line"] - 1]["id"]] = chk["check_id"]
        else:
            head = ev["path"].split(".")[1]
            if "[" not in head:  # a whole list or object ($.components): no record id
                continue
            key, idx = head.split("[")
            rid = doc[key][int(idx.rstrip("]"))].get("id")
            if isinstance(rid, str):  # id-less records (component health) are not matched
                out[rid] = chk["check_id"]
    return out


@pytest.mark.slow
def test_trajectory_rows_reports_and_rejudge(tmp_path: Path):
    store, reg, summary = _run(tmp_path, {"max_steps": 100, "max_tokens": 1000},
                               "ticket,badlevel")
    audit = tmp_path / "a" / summary.run_id / CASE
    calls = _calls(audit)
    row = store.sql("SELECT * FROM eval_trajectory").to_dicts()
    assert len(row) == 1
    row = row[0]
    # counted from the tool server's own log
    assert row["steps"] == len(calls)
    assert row["failed_calls"] == sum(c["event"] == "tool.error" for c in calls) >= 1
    seen, repeated = set(), 0
    for c in calls:
        key = (c["tool"], json.dumps(c.get("args", {}), sort_keys=True))
        repeated += key in seen
        seen.add(key)
    assert row["repeated_calls"] == repeated >= 2  # get_ticket three times
    assert row["tools_used"] == len({c["tool"] for c in calls})
    cited = _cited_ids(audit)
    assert cited, "the reference investigation passes critical evidence"
    first = next(i for i, c in enumerate(calls, 1)
                 if c["event"] == "tool.call" and set(c.get("ids", [])) & set(cited))
    assert row["evidence_step"] == first
    assert row["evidence_id"] in set(calls[first - 1]["ids"]) & set(cited)
    assert row["evidence_check"] == cited[row["evidence_id"]]
    assert 0 <= row["evidence_seconds"] <= row["calls_seconds"]
    turns = len(list((audit / ".rcaeval").glob("usage-turn-*.json")))  # one report a turn
    assert turns >= 1
    assert (row["input_tokens"], row["output_tokens"], row["total_tokens"]) \
        == (1200 * turns, 300 * turns, 1500 * turns)
    assert row["cost_usd"] == pytest.approx(0.02 * turns)
    assert row["wall_seconds"] > 0
    # budgets: tokens over, not enforced -> the verdict stands
    assert (row["efficiency"], row["over_budget"]) == ("over_budget", ["tokens"])
    assert row["efficiency_reason"] == (f"steps {len(calls)} <= max_steps 100; tokens "
                                        f"{1500 * turns} > max_tokens 1000")
    verdict = store.sql("SELECT verdict, subtype FROM eval_judgment").row(0)
    assert verdict == ("pass", "diagnosis_pass")
    per_tool = {r["tool"]: r for r in store.sql("SELECT * FROM eval_trajectory_tool").to_dicts()}
    tickets = sum(c["tool"] == "get_ticket" for c in calls)
    assert tickets >= 2  # the prefix's and the investigation's
    assert (per_tool["get_ticket"]["calls"], per_tool["get_ticket"]["repeated_calls"]) \
        == (tickets, tickets - 1)
    assert per_tool["search_logs"]["failed_calls"] == sum(
        c["tool"] == "search_logs" and c["event"] == "tool.error" for c in calls) >= 1
    assert per_tool["search_logs"]["channel"] == "logs"
    assert per_tool["get_ticket"]["channel"] is None

    # the packet, report.txt and the results JSON say the same
    packet = json.loads((audit / "judgment.json").read_text())
    assert packet["trajectory"]["steps"] == len(calls)
    assert packet["trajectory"]["evidence_step"] == first
    assert packet["efficiency"]["over_budget"] == ["tokens"]
    report = (tmp_path / "a" / summary.run_id / "report.txt").read_text()
    assert re.search(rf"^trajectory: +{len(calls)} steps over 1 cases \(median {len(calls)}\), "
                     rf"{row['failed_calls']} failed, {repeated} repeated$", report, re.M)
    assert re.search(rf"^time to evidence: +1 of 1 cases reached cited evidence through a tool "
                     rf"call; median step {first},", report, re.M)
    assert re.search(r"^efficiency: +1 budgeted cases: 0 within_budget, 1 over_budget, "
                     rf"0 unmeasured; {CASE}: steps", report, re.M)
    assert re.search(rf"^  {CASE} +{len(calls)} +{row['failed_calls']} +{repeated} +{first} ",
                     report, re.M)
    doc = run_results(store, [summary])
    attempt = doc["cases"][0]["attempts"][0]
    assert attempt["trajectory"]["steps"] == len(calls)
    assert attempt["trajectory"]["evidence_step"] == first
    assert attempt["trajectory"]["channels"]["logs"] == per_tool["search_logs"]["calls"]
    assert attempt["efficiency"]["status"] == "over_budget"
    assert doc["summary"]["trajectory"]["over_budget"] == [CASE]
    assert doc["summary"]["trajectory"]["evidence_reached"] == 1

    # deterministic: from the store and from the audit dir, the same rows and packet bytes
    before = store.sql("SELECT * FROM eval_trajectory").to_dicts()
    tools_before = store.sql("SELECT * FROM eval_trajectory_tool ORDER BY tool").to_dicts()
    packet_bytes = (audit / "judgment.json").read_bytes()
    rejudge_store(store, reg, run_id=summary.run_id, out_dir=tmp_path / "re")
    assert store.sql("SELECT * FROM eval_trajectory").to_dicts() == before
    assert store.sql("SELECT * FROM eval_trajectory_tool ORDER BY tool").to_dicts() == tools_before
    assert (tmp_path / "re" / summary.run_id / CASE / "judgment.json").read_bytes() \
        == packet_bytes
    fresh = st.connect(tmp_path / "fresh.duckdb")
    judge_audit(fresh, tmp_path / "a", reg, out_dir=tmp_path / "again")
    assert fresh.sql("SELECT * FROM eval_trajectory").to_dicts() == before
    assert (tmp_path / "again" / summary.run_id / CASE / "judgment.json").read_bytes() \
        == packet_bytes


@pytest.mark.slow
def test_an_enforced_budget_fails_a_passing_case(tmp_path: Path):
    store, _, summary = _run(tmp_path, {"max_steps": 3, "enforce": True}, "")
    row = store.sql("SELECT * FROM eval_trajectory").row(0, named=True)
    assert row["steps"] > 3 and row["budget_enforced"]
    assert (row["efficiency"], row["over_budget"]) == ("over_budget", ["steps"])
    j = store.sql("SELECT verdict, subtype, score, reason, judgment_json FROM eval_judgment"
                  ).row(0, named=True)
    assert (j["verdict"], j["subtype"]) == ("fail", "over_budget")
    assert j["score"] <= 69
    assert j["reason"] == f"over_budget: steps {row['steps']} > max_steps 3 (enforced)"
    packet = json.loads(j["judgment_json"])
    assert packet["precedence_step"] == 12 and packet["efficiency"]["enforced"] is True
    assert summary.frame().row(0, named=True)["verdict"] == "fail"
