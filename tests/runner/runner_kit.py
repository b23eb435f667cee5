"""Shared helpers of the runner tests (tests/runner): paths, the CLI's environment, the test
agents under agents/, a small registry case and a store reader. Test helper modules are named
``<area>_kit.py`` (a unique module name: test dirs share one sys.path)."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path
from typing import Any

import duckdb
import orjson
import yaml

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "data" / "registry"
RECORDED = REPO / "data" / "recorded"
AGENTS = Path(__file__).resolve().parent / "agents"
MULTI_AGENT = AGENTS / "multi_agent.py"
PY = sys.executable


def cli_env() -> dict[str, str]:
    """The test process's environment without RCAEVAL_* overrides."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RCAEVAL_")}
    env["PYTHONUNBUFFERED"] = "1"
    return env


def multi_agent_spec() -> str:
    return f"command:{shlex.quote(PY)} {shlex.quote(str(MULTI_AGENT))}"


def query(db: Path, sql: str, params: Any = None) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        con.execute("SET TimeZone = 'UTC'")
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


PANIC_INCIDENT: dict[str, Any] = {
    "topology.json": {"cluster_id": "prod-tidb-017", "product": "tidb", "components": [
        {"name": "tikv", "instance": "tikv-1", "role": "storage"},
        {"name": "tikv", "instance": "tikv-2", "role": "storage"}]},
    "ticket.json": {"ticket_id": "INC-1", "source": "pagerduty", "summary": "p99 latency",
                    "alerts": [{"name": "p99", "state": "firing"}]},
    "logs/tikv-2.log": "2026-10-03T14:05:00Z INFO [tikv] heartbeat ok\n"
                       "2026-10-03T14:06:00Z FATAL [tikv] [panic] corrupted raft entry\n",
    "logs/tikv-1.log": "2026-10-03T14:05:00Z INFO [tikv] heartbeat ok\n",
    "metrics.json": {"series": [{"id": "M-restart-tikv-2", "name": "tikv_restart_total",
                                "labels": {"instance": "tikv-2"},
                                "points": [["2026-10-03T14:05:00Z", 0],
                                           ["2026-10-03T14:07:00Z", 2]]}]},
    "slow_queries.json": {"queries": [{"id": "Q-1", "kind": "slow_query", "sql_text": "SELECT 1",
                                       "instance": "tidb-0", "max_latency_ms": 900}]},
    "events.json": {"events": [{"id": "EV-1", "ts": "2026-10-03T14:06:10Z", "type": "Warning",
                                "object": "pod/tikv-2", "reason": "BackOff",
                                "message": "Back-off restarting failed container"}]},
    "component_health.json": {"components": [
        {"name": "tikv", "instance": "tikv-2", "status": "CrashLoopBackOff", "restarts": 2,
         "last_termination_reason": "panic: corrupted raft entry"}]},
}


def write_case(
    root: Path,
    case_id: str = "case-a",
    *,
    incident: dict[str, Any] | None = None,
    followups: list[str] | None = None,
    secret: str = "",
) -> tuple[dict[str, Any], Path]:
    """A registry-style case dir: case.yaml, judge.yaml, expected.md and incident/."""
    case_dir = root / "cases" / case_id
    case_dir.mkdir(parents=True)
    case = {
        "case_id": case_id,
        "title": f"title {secret}".strip(),
        "case_type": "known",
        "tags": ["storage", secret] if secret else ["storage"],
        "prompt": {"text": "Alert: p99 latency on cluster prod-tidb-017. Find the root cause."},
        "environment": {"cluster_id": "prod-tidb-017", "product": "tidb"},
        "time_window": {"start": "2026-10-03T14:00:00Z", "end": "2026-10-03T15:00:00Z",
                        "tolerance_s": 600},
        "followup": [{"text": t} for t in (followups or [])],
    }
    if incident is not None:
        case["incident_data"] = "incident"
        for rel, content in incident.items():
            p = case_dir / "incident" / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, str):
                p.write_text(content)
            else:
                p.write_bytes(orjson.dumps(content))
    (case_dir / "case.yaml").write_text(yaml.safe_dump(case))
    (case_dir / "judge.yaml").write_text(yaml.safe_dump({
        "case_id": case_id,
        "ground_truth": {"root_cause": {"family": "storage_node_panic",
                                        "summary": f"ground truth {secret}"}}}))
    (case_dir / "expected.md").write_text(f"# Expected\n\nThe answer is {secret}.\n")
    return case, case_dir
