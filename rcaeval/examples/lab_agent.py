"""Reference agents of the incident lab (no LLM): real command agents speaking MCP to the
live tools the runner hands them (``$RCAEVAL_MCP_CONFIG``), one behaviour each::

    --agent 'command:{python} -m rcaeval.examples.lab_agent --behaviour oracle'

``oracle``  reads the context (ticket, topology, guardrails, health, alerts), recognises the
            scenario by the alert that fired, makes the scenario's ``oracle`` evidence calls,
            applies its mitigation with gate 3's guardrails (the read-only verification, the
            impact, the approval) and reports the root cause citing what it collected:
            diagnosed and mitigated (``resolved``).
``lazy``    reads the context and reports the alert, acting on nothing (``not_attempted``).
``wrong``   acts, but on the wrong thing (``analyze_table pgbench_history``), and blames the
            wrong cause (``not_resolved``).
``unsafe``  restarts the service without a verification (``unsafe``: refused by gate 3).

Each prints its Markdown answer on stdout; the tool server records the bundle.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from typing import Any

import yaml

from rcaeval.lab import OracleTarget, Scenario, scenario_paths

BEHAVIOURS = ("oracle", "lazy", "wrong", "unsafe")
REF_TYPES = {"series": "metric", "rows": "query", "queries": "query", "entries": "log",
             "events": "event"}


def _server_params() -> Any:
    from mcp import StdioServerParameters

    path = os.environ.get("RCAEVAL_MCP_CONFIG")
    if not path:
        raise SystemExit("rcaeval.examples.lab_agent: no $RCAEVAL_MCP_CONFIG (run it with "
                         "--tools mcp)")
    with open(path, encoding="utf-8") as fh:
        server = json.load(fh)["mcpServers"]["rcaeval"]
    return StdioServerParameters(command=server["command"], args=server["args"],
                                 env={**os.environ, **(server.get("env") or {})})


def scenario_for(ticket: dict[str, Any]) -> Scenario | None:
    """The shipped scenario whose expected alert the ticket lists as firing (the files are
    parsed, not checked against queries/, which the agent's sandbox does not hold)."""
    firing = {a.get("name") for a in (ticket.get("ticket") or {}).get("alerts") or []}
    for path in scenario_paths():
        sc = Scenario.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
        if sc.expected_alert.name in firing:
            return sc
    return None


def resolve_target(target: str | OracleTarget, results: list[dict[str, Any]]) -> str:
    """A literal target, or the values an :class:`OracleTarget` reads from a result."""
    if isinstance(target, str):
        return target
    rows = [r for r in results[target.step].get(target.rows) or []
            if all(needle in str(r.get(k, "")) for k, needle in target.where.items())]
    if target.order_by:
        rows.sort(key=lambda r: r.get(target.order_by) or 0, reverse=target.descending)
    values: list[str] = []
    for row in rows:
        val = row.get(target.field)
        for v in val if isinstance(val, list) else [val]:
            if v is not None and str(v) not in values:
                values.append(str(v))
    return ",".join(values[:1] if target.first else values)


def _refs(results: list[dict[str, Any]]) -> list[dict[str, str]]:
    refs = []
    for res in results:
        for key, kind in REF_TYPES.items():
            for row in (res.get(key) or [])[:5]:
                if isinstance(row, dict) and row.get("id"):
                    refs.append({"type": kind, "id": str(row["id"])})
    return refs[:20]


async def run(behaviour: str) -> str:
    from mcp import Client

    from rcaeval.tools import client_caller

    async with Client(_server_params()) as client:
        call = client_caller(client)
        ticket = await call("get_ticket", {})
        await call("get_topology", {})
        await call("get_guardrails", {})
        context = [await call("get_component_health", {}),
                   await call("get_alerts", {"status": "fail"})]
        sc = scenario_for(ticket)
        alert = sc.expected_alert.name if sc else "the alert"
        results: list[dict[str, Any]] = []
        action: dict[str, Any] | None = None
        if behaviour == "oracle" and sc is not None and sc.oracle is not None:
            for step in sc.oracle.evidence:
                results.append(await call(step.tool, dict(step.args)))
            if sc.oracle.action is not None:
                act = sc.oracle.action
                action = {"action": act.action,
                          "target": resolve_target(act.target, results),
                          "approved": True, "verification": act.verification,
                          "impact_rollback": act.impact_rollback}
            root = sc.oracle.root_cause
            family, component = sc.ground_truth.family, sc.ground_truth.component
        elif behaviour == "wrong":
            results.append(await call("get_slow_queries", {}))
            action = {"action": "analyze_table", "target": "pgbench_history",
                      "impact_rollback": "ANALYZE only refreshes statistics."}
            root = ("Stale planner statistics of pgbench_history make the planner pick bad "
                    "plans (CPU saturation of the host).")
            family, component = "stale_statistics", "postgresql"
        elif behaviour == "unsafe":
            action = {"action": "restart_service", "target": "service", "approved": True,
                      "impact_rollback": "The service is down for a second."}
            root = f"The service misbehaves ({alert}); restarting it clears the state."
            family, component = "service_fault", "service"
        else:
            root = f"{alert} fired; the cause is not determined."
            family, component = "unknown", "postgresql"
        done = await call("apply_action", action) if action else None
        refs = _refs(results) or _refs(context)
        await call("get_evidence_summary", {})
        await call("submit_report", {
            "root_cause": {"summary": root, "family": family, "component": component},
            "findings": [{"claim": root, "refs": refs, "role": "key"}] if refs else [],
            "actions": [f"{action['action']} {action['target']}"] if action else [],
            "answer_markdown": _answer(root, action, done)})
        return _answer(root, action, done)


def _answer(root: str, action: dict[str, Any] | None, done: dict[str, Any] | None) -> str:
    lines = ["## Root cause", "", f"Root cause: {root}", ""]
    if action:
        lines += ["## Mitigation", "",
                  f"{action['action']} {action['target']}: {(done or {}).get('status', '-')}",
                  ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m rcaeval.examples.lab_agent", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--behaviour", choices=BEHAVIOURS, default="oracle")
    args = ap.parse_args(argv)
    sys.stdin.read()  # the prompt (the behaviour is fixed)
    sys.stdout.write(asyncio.run(run(args.behaviour)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
