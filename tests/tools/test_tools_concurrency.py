"""Several real tool servers (``python -m rcaeval.tools serve`` over stdio) on one bundle,
called in parallel: every record any server returned is in the bundle, and submit_report on
one server accepts refs the others returned (issue: concurrent servers lost evidence)."""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack
from pathlib import Path

import orjson
from tools_kit import PANIC_CASE, server_params

from rcaeval.tools import client_caller

SERVERS = 3
METRICS = ("tikv_restart_total", "tikv_raftstore_region_leader_count", "tikv_cpu_usage_cores",
           "tidb_query_duration_p99_seconds")
COMPONENTS = ("tikv", "tidb", "pd")


def _calls() -> list[tuple[str, dict]]:
    calls: list[tuple[str, dict]] = []
    for name in METRICS:
        calls.append(("query_metrics", {"name": name}))
        calls.append(("query_metrics", {"name": name, "limit": 1}))
    for comp in COMPONENTS:
        calls.append(("search_logs", {"component": comp, "limit": 5}))
        calls.append(("search_logs", {"component": comp, "limit": 5, "cursor": "o5"}))
    calls += [("get_slow_queries", {"limit": 3}), ("list_events", {"limit": 5}),
              ("get_alerts", {}), ("get_component_health", {})]
    return calls


def _returned(tool: str, res: dict) -> list[tuple[str, str]]:
    key = {"query_metrics": ("metric", "series"), "search_logs": ("log", "entries"),
           "get_slow_queries": ("query", "queries"), "list_events": ("event", "events")}
    if tool not in key:
        return []
    rtype, field = key[tool]
    return [(rtype, r["id"]) for r in res.get(field) or []]


def test_parallel_servers_lose_nothing(tmp_path: Path):
    bundle = tmp_path / "bundle"
    calls = _calls()

    async def main() -> tuple[list[tuple[str, str]], dict]:
        from mcp import Client

        async with AsyncExitStack() as stack:
            clients = [client_caller(await stack.enter_async_context(
                Client(server_params(PANIC_CASE, bundle)))) for _ in range(SERVERS)]
            # every server runs every call, the servers' calls interleaved: each server
            # writes records the others also write, and records only it wrote
            jobs = [(i, tool, args) for i in range(SERVERS)
                    for j, (tool, args) in enumerate(calls) if (j + i) % 2 == 0 or i == 0]
            results = await asyncio.gather(*(clients[i](tool, args) for i, tool, args in jobs))
            returned = [ref for (_i, tool, _a), res in zip(jobs, results, strict=True)
                        for ref in _returned(tool, res)]
            # one finding per type, citing ids returned by some server; submitted on the last
            refs = [{"type": t, "id": rid} for t, rid in sorted(set(returned))]
            report = await clients[-1]("submit_report", {
                "root_cause": "tikv-2 panicked and restarted",
                "findings": [{"claim": "what every server returned", "refs": refs}]})
            return returned, report

    returned, report = asyncio.run(main())
    assert report["status"] == "submitted", report
    files = {"metric": ("evidences/metrics.json", "series"),
             "log": ("evidences/logs.json", "entries"),
             "query": ("evidences/queries.json", "queries"),
             "event": ("evidences/events.json", "events")}
    on_disk = {t: {r["id"] for r in orjson.loads((bundle / f).read_bytes())[k]}
               for t, (f, k) in files.items()}
    missing = sorted({(t, rid) for t, rid in returned if rid not in on_disk[t]})
    assert not missing, f"returned but not in the bundle: {missing}"
    assert {t for t, _ in returned} == set(files)
    patch = orjson.loads((bundle / "analysis_patch.json").read_bytes())
    assert len(patch["items"][0]["refs"]) == len(set(returned))
    # the channels' counts agree with the files (the report was not overwritten by a stale
    # writer either)
    rep = orjson.loads((bundle / "evidences/workspace_evidence_report.json").read_bytes())
    assert {ch: c["count"] for ch, c in rep["channels"].items() if ch != "events"} == {
        "metrics": len(on_disk["metric"]), "logs": len(on_disk["log"]),
        "queries": len(on_disk["query"])}
    gates = orjson.loads((bundle / "evidences/gate_checks.json").read_bytes())["checks"]
    assert {g["id"] for g in gates} >= {"G-0001", "G-0002"}
    tele = [orjson.loads(x) for x in (bundle / ".opencode/telemetry.log").read_bytes()
            .splitlines()]
    assert sum(t["event"] == "tool.call" for t in tele) == sum(
        1 for i in range(SERVERS) for j in range(len(calls)) if (j + i) % 2 == 0 or i == 0) + 1
