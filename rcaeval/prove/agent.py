"""The reference agent of a case proof: a ``command:`` agent driven by a plan, investigating
through the incident tools over MCP like any agent (docs/registry.md, "Prove it").

``{python} -m rcaeval.prove.agent --role oracle|lazy|wrong --plans DIR`` reads
``DIR/<case id>.json`` (written runner-side by :func:`rcaeval.prove.prove`), starts the
tool server named in ``$RCAEVAL_MCP_CONFIG``, sweeps every tool the server lists (paging
through each), makes the plan's targeted calls, reads the evidence summary and submits its
report; ``lazy`` skips the tools the plan names, ``wrong`` answers with the plan's
misdiagnosis. A follow-up turn restates the answer and its key evidence on stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import orjson

from rcaeval.tools import ToolCaller, ToolFailed, client_caller

MAX_PAGES = 50
MAX_REFS = 5
_NO_SWEEP = {"submit_report", "get_evidence_summary"}


def _records(result: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for value in result.values():
        if isinstance(value, list):
            out += [x for x in value if isinstance(x, dict)]
    return out


async def _paged(call: ToolCaller, tool: str, args: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    cursor = None
    for _ in range(MAX_PAGES):
        res = await call(tool, {**args, **({"cursor": cursor} if cursor else {})})
        out += _records(res)
        cursor = res.get("next_cursor")
        if not cursor:
            break
    return out


def _matches(rec: dict[str, Any], spec: dict[str, Any]) -> bool:
    if spec.get("threshold") is not None:
        return any(isinstance(p, list) and len(p) > 1 and isinstance(p[1], (int, float))
                   and p[1] > spec["threshold"] for p in rec.get("points") or [])
    needles = [n.lower() for n in spec.get("match") or []]
    if not needles:
        return True
    text = orjson.dumps(rec).decode().lower()
    return any(n in text for n in needles)


class Investigation:
    def __init__(self, call: ToolCaller, skip: set[str]) -> None:
        self.call = call
        self.skip = skip
        self.unavailable: list[str] = []
        self.findings: list[dict[str, Any]] = []

    async def tool(self, tool: str, args: dict[str, Any]) -> list[dict[str, Any]]:
        if tool in self.skip:
            return []
        try:
            return await _paged(self.call, tool, args)
        except ToolFailed as exc:
            if "unavailable" in str(exc) and tool not in self.unavailable:
                self.unavailable.append(tool)
            return []

    async def sweep(self, tools: list[dict[str, Any]]) -> None:
        """Every tool the server lists that needs no argument, then every metric."""
        for t in tools:
            if t["name"] in _NO_SWEEP or t["required"]:
                continue
            recs = await self.tool(t["name"], {})
            if t["name"] == "list_metrics":
                for name in sorted({str(r.get("name")) for r in recs if r.get("name")}):
                    await self.tool("query_metrics", {"name": name})

    async def targeted(self, calls: list[dict[str, Any]], tools: list[dict[str, Any]]
                       ) -> None:
        """The plan's calls; one whose tool needs arguments the plan cannot give (a file
        only ``query_metrics(name)`` writes) is left to the sweep."""
        required = {t["name"]: t["required"] for t in tools}
        for spec in calls:
            if any(a not in spec["args"] for a in required.get(spec["tool"], [])):
                continue
            recs = await self.tool(spec["tool"], spec["args"])
            ids = [str(r["id"]) for r in recs if r.get("id") and _matches(r, spec)]
            if spec.get("ref") and ids:
                self.findings.append({
                    "claim": f"evidence for {spec['check_id']}",
                    "refs": [{"type": spec["ref"], "id": i} for i in ids[:MAX_REFS]],
                    "role": "key"})


def _answer(plan: dict[str, Any], role: str, inv: Investigation, tool_channels: dict[str, str]
            ) -> tuple[str, str]:
    root = plan["answers"][role]
    novel = plan.get("novel") and role != "wrong"
    lines = ["# Incident analysis", "", "## Root cause", "", root]
    if role != "wrong" and plan.get("mechanism"):
        lines += ["", f"The mechanism: {plan['mechanism']}"]
    lines += ["", "Confidence: medium; this is a provisional hypothesis that is not yet "
              "confirmed." if novel else "Confidence: high."]
    lines += ["", "## Evidence", ""]
    for f in inv.findings:
        lines.append(f"- {f['claim']}: " + ", ".join(r["id"] for r in f["refs"]))
    if not inv.findings:
        lines.append("- (no evidence id to cite)")
    down = sorted({tool_channels.get(t, t) for t in inv.unavailable})
    if down:
        lines += ["", "## Data gaps", ""]
        lines += [f"- The {ch} API was unavailable (HTTP 503): the {ch} data is missing, "
                  "which is not evidence of health." for ch in down]
    lines += ["", "## Recommended actions", "",
              "1. Next steps: confirm the root cause against the cited evidence before "
              "acting, and verify the fix afterwards."]
    return root, "\n".join(lines) + "\n"


async def _run(plan: dict[str, Any], role: str, root: Path) -> None:
    from mcp import Client, StdioServerParameters

    cfg = orjson.loads(Path(os.environ["RCAEVAL_MCP_CONFIG"]).read_bytes())
    srv = cfg["mcpServers"]["rcaeval"]
    params = StdioServerParameters(command=srv["command"], args=list(srv.get("args") or []),
                                   cwd=str(root), env=dict(srv.get("env") or {}))
    async with Client(params) as client:
        listed = await client.list_tools()
        tools = [{"name": t.name, "required": list((t.input_schema or {}).get("required") or [])}
                 for t in listed.tools]
        call = client_caller(client)
        inv = Investigation(call, set(plan.get("skip_tools", {}).get(role) or []))
        for first in ("get_ticket", "get_topology", "get_guardrails"):
            if any(t["name"] == first for t in tools):
                await inv.tool(first, {})
        await inv.sweep([t for t in tools if t["name"] not in
                         ("get_ticket", "get_topology", "get_guardrails")])
        await inv.targeted(plan.get("calls") or [], tools)
        await call("get_evidence_summary", {})
        channels = {c["tool"]: c["channel"] for c in plan.get("calls") or [] if c["channel"]}
        channels.update(plan.get("tool_channels") or {})
        root_cause, text = _answer(plan, role, inv, channels)
        await call("submit_report", {"root_cause": root_cause, "findings": inv.findings,
                                     "answer_markdown": text})


def _followup(plan: dict[str, Any], role: str, root: Path) -> str:
    ids: list[str] = []
    try:
        patch = orjson.loads((root / "analysis_patch.json").read_bytes())
        ids = [r["id"] for item in patch.get("items") or [] for r in item.get("refs") or []]
    except (OSError, orjson.JSONDecodeError):
        pass
    key = f" The key evidence: {', '.join(ids[:MAX_REFS])}." if ids else ""
    return f"{plan['answers'][role]}{key}\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m rcaeval.prove.agent")
    ap.add_argument("--role", required=True, choices=("oracle", "lazy", "wrong"))
    ap.add_argument("--plans", required=True, type=Path)
    ns = ap.parse_args(argv)
    case_id = os.environ.get("RCAEVAL_CASE_ID", "")
    plan = orjson.loads((ns.plans / f"{case_id}.json").read_bytes())
    root = Path.cwd()
    if os.environ.get("RCAEVAL_TURN", "1") != "1":
        sys.stdout.write(_followup(plan, ns.role, root))
        return 0
    asyncio.run(_run(plan, ns.role, root))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
