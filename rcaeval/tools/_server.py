"""The incident tools as an MCP server (the official ``mcp`` SDK's ``MCPServer``).

No ``from __future__ import annotations`` here: the SDK reads the tool functions' annotations
to build their input schemas.
"""

import asyncio
import socket
from pathlib import Path
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from rcaeval import __version__
from rcaeval.tools._alerts import ALERT_LIMIT_MAX
from rcaeval.tools._data import load_case_data
from rcaeval.tools._guard import GuardedServer, require_bearer, run_stdio
from rcaeval.tools._logsearch import LOG_LIMIT_MAX
from rcaeval.tools._tools import (
    EVENT_LIMIT_MAX,
    POINTS_MAX,
    QUERY_LIMIT_MAX,
    SERIES_LIMIT_MAX,
    IncidentTools,
    ToolInputError,
)
from rcaeval.tools._traces import SPAN_LIMIT_MAX

SERVER_NAME = "rcaeval-incident"
INSTRUCTIONS = """\
Incident tools for one database-cluster incident. Investigate like an SRE: read the ticket
(get_ticket), the architecture (get_topology) and the guardrails (get_guardrails); then look at
the evidence - search_logs, query_metrics (list_metrics shows names and labels), list_events,
get_component_health, get_slow_queries, get_alerts (alert rules and health gates that fired or
failed), search_traces (request spans, errors first) - narrowing by component, instance and
time range.
Results are paged (limit, cursor -> next_cursor). Every record carries a stable id; only what
the tools returned counts as evidence. get_evidence_summary lists what you have collected.
Finish with submit_report: the root cause, findings citing evidence ids, what you ruled out
and the recommended actions. Times are ISO-8601 UTC (2026-10-03T14:05:00Z).
"""

Start = Annotated[str | None, Field(description="range start, ISO-8601 UTC; default: all data")]
End = Annotated[str | None, Field(description="range end, ISO-8601 UTC; default: all data")]
Cursor = Annotated[str | None, Field(description="next_cursor of the previous page")]


class Ref(BaseModel):
    type: Literal["log", "metric", "query", "event"]
    id: str = Field(description="an evidence id a tool returned")


class RootCause(BaseModel):
    summary: str = Field(description="the root cause in a sentence")
    family: str = Field(description="the root-cause family, e.g. disk_full, oom_kill")
    component: str | None = Field(default=None,
                                  description="the component at fault, e.g. tikv-0")


class Finding(BaseModel):
    claim: str = Field(description="one sentence: what this evidence shows")
    refs: list[Ref] = Field(description="the evidence ids that show it")
    role: Literal["key", "supporting", "context", "ruled_out"] = "key"


def build_server(tools: IncidentTools) -> MCPServer:
    """An ``MCPServer`` serving ``tools`` (one case, recording into its bundle)."""
    server = GuardedServer(SERVER_NAME, instructions=INSTRUCTIONS, version=__version__,
                           log_level="WARNING")

    def guarded(fn: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
        try:
            return fn(*args, **kwargs)
        except ToolInputError as exc:
            raise ToolError(str(exc) or "the call was refused") from exc
        except Exception as exc:  # noqa: BLE001 - the agent gets a message, never nothing
            raise ToolError(f"internal error: {type(exc).__name__}: {exc}".rstrip(": ")
                            ) from exc

    @server.tool(description="The incident ticket (id, summary, firing alerts), the reported "
                 "problem, the cluster and the incident window. Start here.")
    def get_ticket() -> dict[str, Any]:
        return guarded(tools.get_ticket)

    @server.tool(description="The cluster's architecture: components, instances and roles.")
    def get_topology() -> dict[str, Any]:
        return guarded(tools.get_topology)

    @server.tool(description="Misdiagnosis guardrails: rules a diagnosis must respect. Read "
                 "them before concluding.")
    def get_guardrails() -> dict[str, Any]:
        return guarded(tools.get_guardrails)

    @server.tool(description="Metric names with their units, series counts and label values "
                 "(optionally only names containing name_contains).")
    def list_metrics(name_contains: str | None = None,
                     limit: Annotated[int | None, Field(description="1-500, default 100")] = None,
                     cursor: Cursor = None) -> dict[str, Any]:
        return guarded(tools.list_metrics, name_contains, limit, cursor)

    @server.tool(description="Points of the series of one metric, filtered by exact label "
                 "values and a time range. Long ranges are evenly sampled down to max_points "
                 f"(at most {POINTS_MAX}); series are paged ({SERIES_LIMIT_MAX} at most).")
    def query_metrics(name: str, labels: dict[str, str] | None = None, start: Start = None,
                      end: End = None, max_points: int | None = None,
                      limit: int | None = None, cursor: Cursor = None) -> dict[str, Any]:
        return guarded(tools.query_metrics, name, labels, start, end, max_points, limit, cursor)

    @server.tool(description="Search log lines by regex pattern (case-insensitive), component "
                 "(tidb, tikv, pd, ...), instance, minimum level (TRACE..FATAL) and time range. "
                 f"Oldest first, paged (default 50, at most {LOG_LIMIT_MAX} per page); total "
                 "says how many matched.")
    def search_logs(pattern: str | None = None, component: str | None = None,
                    instance: str | None = None, min_level: str | None = None,
                    start: Start = None, end: End = None, limit: int | None = None,
                    cursor: Cursor = None) -> dict[str, Any]:
        return guarded(tools.search_logs, pattern, component, instance, min_level, start, end,
                       limit, cursor)

    @server.tool(description="Cluster events (Kubernetes / orchestration), filtered by object "
                 f"substring, exact reason and time range; paged (at most {EVENT_LIMIT_MAX}).")
    def list_events(object_contains: str | None = None, reason: str | None = None,
                    start: Start = None, end: End = None, limit: int | None = None,
                    cursor: Cursor = None) -> dict[str, Any]:
        return guarded(tools.list_events, object_contains, reason, start, end, limit, cursor)

    @server.tool(description="Health of every component (status, restarts, last termination "
                 "reason, uptime), or of one component name or instance.")
    def get_component_health(component: str | None = None) -> dict[str, Any]:
        return guarded(tools.get_component_health, component)

    @server.tool(description="Slow / top SQL, plans and killed statements, slowest first; "
                 f"filter by instance, kind and min_latency_ms; paged (at most "
                 f"{QUERY_LIMIT_MAX}).")
    def get_slow_queries(instance: str | None = None, min_latency_ms: float | None = None,
                         kind: Literal["slow_query", "top_sql", "plan", "kill"] | None = None,
                         limit: int | None = None, cursor: Cursor = None) -> dict[str, Any]:
        return guarded(tools.get_slow_queries, instance, min_latency_ms, kind, limit, cursor)

    @server.tool(description="Alert rules and health gates evaluated over the incident: "
                 "which fired or failed (status fail), are pending or degraded (warn) or "
                 "passed, with the detail each reports; failing first. Filter by status, "
                 "name substring, component or instance, and time range; paged (at most "
                 f"{ALERT_LIMIT_MAX}).")
    def get_alerts(status: Literal["fail", "warn", "pass"] | None = None,
                   name_contains: str | None = None, component: str | None = None,
                   start: Start = None, end: End = None, limit: int | None = None,
                   cursor: Cursor = None) -> dict[str, Any]:
        return guarded(tools.get_alerts, status, name_contains, component, start, end, limit,
                       cursor)

    @server.tool(description="Trace spans of the incident's requests (OpenTelemetry): "
                 "service, operation, start, duration_ms, status (error/ok/unset) with its "
                 "message, attributes and events such as exceptions; error spans first, then "
                 "the slowest. Filter by service (exact), operation (substring), status, "
                 "min_duration_ms, trace_id and time range (span start); paged (at most "
                 f"{SPAN_LIMIT_MAX}).")
    def search_traces(service: str | None = None, operation: str | None = None,
                      status: Literal["error", "ok", "unset"] | None = None,
                      min_duration_ms: float | None = None, trace_id: str | None = None,
                      start: Start = None, end: End = None, limit: int | None = None,
                      cursor: Cursor = None) -> dict[str, Any]:
        return guarded(tools.search_traces, service, operation, status, min_duration_ms,
                       trace_id, start, end, limit, cursor)

    @server.tool(description="What you have collected so far: per channel whether it was "
                 "queried and how many records, and every evidence id you can cite.")
    def get_evidence_summary() -> dict[str, Any]:
        return guarded(tools.get_evidence_summary)

    @server.tool(description="Submit the final diagnosis: the root cause (a sentence, or "
                 "{summary, family, component} to state the family and component as data), "
                 "findings citing "
                 "evidence ids the tools returned (refused otherwise), alternatives ruled out "
                 "and recommended actions. answer_markdown replaces the generated answer text. "
                 "May be called again to replace the report.")
    def submit_report(root_cause: str | RootCause, findings: list[Finding],
                      ruled_out: list[str] | None = None, actions: list[str] | None = None,
                      answer_markdown: str | None = None) -> dict[str, Any]:
        rc = root_cause.model_dump() if isinstance(root_cause, RootCause) else root_cause
        return guarded(tools.submit_report, rc,
                       [f.model_dump() for f in findings], ruled_out, actions, answer_markdown)

    return server


def make_tools(case_dir: str | Path, bundle_dir: str | Path,
               incident_dir: str | Path | None = None, seal_key: bytes | None = None
               ) -> IncidentTools:
    return IncidentTools(load_case_data(case_dir, incident_dir), bundle_dir, seal_key=seal_key)


def serve(case_dir: str | Path, bundle_dir: str | Path, *, transport: str = "stdio",
          host: str = "127.0.0.1", port: int = 0, incident_dir: str | Path | None = None,
          on_listen: Any = None, token: str | None = None, socket_path: Any = None,
          seal_key: bytes | None = None) -> None:
    """Serve one case's incident tools until the client disconnects (stdio) or the process
    is stopped (HTTP, Unix socket). ``port=0`` picks a free port; ``on_listen(url)`` is told
    the URL. Over HTTP every request must carry ``Authorization: Bearer <token>``
    (required). ``transport="unix"`` serves one session per connection on ``socket_path``
    (the runner's hosted server); ``seal_key`` seals every record written."""
    try:
        tools = make_tools(case_dir, bundle_dir, incident_dir, seal_key)
    except Exception as exc:
        if transport == "stdio":
            from rcaeval.tools._startfail import report_start_failure

            report_start_failure(str(exc))
        raise
    run_server(build_server(tools), transport=transport, host=host, port=port,
               on_listen=on_listen, token=token, socket_path=socket_path)


def run_server(server: MCPServer, *, transport: str = "stdio", host: str = "127.0.0.1",
               port: int = 0, on_listen: Any = None, token: str | None = None,
               socket_path: Any = None) -> None:
    """Serve a built ``server`` (:func:`build_server`, or one with tools added) over
    ``transport`` until the client disconnects (stdio) or the process is stopped (HTTP on
    ``host``, bearer ``token`` required; ``unix``: one session per connection on
    ``socket_path``). ``on_listen(url)`` is told the URL (HTTP) or socket path (unix)."""
    if transport == "stdio":
        run_stdio(server)
        return
    if transport == "unix":
        from rcaeval.tools._unix import serve_unix

        serve_unix(server, socket_path, on_listen or (lambda _p: None))
        return
    if transport != "http":
        raise ValueError(f"unknown transport {transport!r} (stdio | http | unix)")
    if not token:
        raise ValueError("the HTTP transport needs a bearer token")
    asyncio.run(_serve_http(server, host, port, on_listen, token))


async def _serve_http(server: MCPServer, host: str, port: int, on_listen: Any,
                      token: str) -> None:
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    app = require_bearer(server.streamable_http_app(host=host), token)
    config = uvicorn.Config(app, log_level="warning")
    if on_listen is not None:
        on_listen(f"http://{host}:{sock.getsockname()[1]}/mcp")
    await uvicorn.Server(config).serve(sockets=[sock])
