"""The example agents' investigation over the incident tools (MCP, docs/tools.md): a scripted
SRE walk through the tools (no LLM), then the deterministic rules of
:mod:`._diagnosis` and ``submit_report``. The tool server records everything into the
bundle; this code never writes a bundle file itself.

``call(name, args)`` is any async function that calls one MCP tool and returns its structured
result, raising :class:`rcaeval.tools.ToolFailed` for an error result (a
:data:`rcaeval.tools.ToolCaller`; see :func:`rcaeval.tools.client_caller`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from rcaeval.examples._diagnosis import (
    KILL_RE,
    PANIC_RE,
    SIGNATURE_LOG_RE,
    Diagnosis,
    Incident,
    diagnose,
    render_answer,
)
from rcaeval.tools import ToolCaller, ToolFailed

Step = Callable[[str, str], Awaitable[None]]
"""``on_step(step_id, title)``: told before each step (an ACP agent reports tool calls)."""

MAX_PAGES = 10


async def _pages(call: ToolCaller, name: str, args: dict[str, Any],
                 key: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    cursor = None
    for _ in range(MAX_PAGES):
        res = await call(name, {**args, **({"cursor": cursor} if cursor else {})})
        out += res.get(key) or []
        cursor = res.get("next_cursor")
        if not cursor:
            break
    return out


async def investigate(call: ToolCaller, *, skip: Iterable[str] = (),
                      on_step: Step | None = None) -> Diagnosis:
    """Walk the tools, diagnose, ``submit_report``; ``skip`` leaves channels out (``logs``,
    ``metrics``, ``queries``, ``events``, ``alerts``, ``traces``) - how the tests model a
    shallow agent. Traces are searched (error spans) when ``get_ticket`` lists the channel."""
    skipped = set(skip)
    inc = Incident()

    async def step(step_id: str, title: str) -> None:
        if on_step is not None:
            await on_step(step_id, title)

    async def channel(ch: str, fn: Callable[[], Awaitable[None]]) -> None:
        if ch in skipped:
            return
        try:
            await fn()
        except ToolFailed:
            inc.unavailable.append(ch)

    await step("context", "Read the ticket, topology and guardrails")
    ticket = await call("get_ticket", {})
    inc.ticket = ticket.get("ticket")
    inc.topology = (await call("get_topology", {})).get("topology") or {}
    await call("get_guardrails", {})
    inc.components = (await call("get_component_health", {})).get("components") or []

    async def alerts() -> None:
        inc.alerts = await _pages(call, "get_alerts", {"limit": 200}, "checks")

    async def logs() -> None:
        seen: dict[str, dict[str, Any]] = {}
        for args in ({"min_level": "WARN", "limit": 200},
                     {"pattern": f"{PANIC_RE.pattern}|{KILL_RE.pattern}", "limit": 200},
                     {"pattern": SIGNATURE_LOG_RE, "limit": 200}):
            for e in await _pages(call, "search_logs", args, "entries"):
                seen[e["id"]] = e
        inc.logs = list(seen.values())

    async def metrics() -> None:
        names = await _pages(call, "list_metrics", {"limit": 500}, "metrics")
        for m in names:
            inc.series += await _pages(call, "query_metrics",
                                       {"name": m["name"], "limit": 50}, "series")

    async def queries() -> None:
        inc.queries = await _pages(call, "get_slow_queries", {"limit": 100}, "queries")

    async def events() -> None:
        inc.events = await _pages(call, "list_events", {"limit": 200}, "events")

    async def traces() -> None:
        inc.spans = await _pages(call, "search_traces", {"status": "error", "limit": 200},
                                 "spans")

    await step("alerts", "Read the alert rules and health gates that fired or failed")
    await channel("alerts", alerts)
    await step("logs", "Search logs (warnings and errors, panic / kill / known signatures)")
    await channel("logs", logs)
    await step("metrics", "Query every metric")
    await channel("metrics", metrics)
    await step("queries", "Slow queries")
    await channel("queries", queries)
    await step("events", "Cluster events")
    await channel("events", events)
    if "traces" in (ticket.get("channels") or ()):  # only a case with trace spans
        await step("traces", "Error spans of the traces")
        await channel("traces", traces)
    await step("summary", "Read the evidence summary")
    await call("get_evidence_summary", {})

    diag = diagnose(inc)
    await step("report", "Submit the report")
    await call("submit_report", {
        "root_cause": diag.root_cause,
        "findings": [{"claim": diag.root_cause, "refs": diag.key_refs, "role": "key"}],
        "ruled_out": diag.ruled_out, "actions": diag.actions,
        "answer_markdown": render_answer(diag)})
    return diag
