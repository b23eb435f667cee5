"""The lab's live MCP server: the incident tools' server (``rcaeval.tools.build_server``) over
:class:`~rcaeval.lab._live.LiveIncidentTools`, plus the restricted database view tool.

No ``from __future__ import annotations`` here: the SDK reads the tool function's annotations
at runtime."""

from pathlib import Path
from typing import Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from rcaeval.lab._actions import ACTIONS, apply_action, catalog_text
from rcaeval.lab._dbview import VIEW_LIMIT_MAX, query_view
from rcaeval.lab._hostview import host_view
from rcaeval.lab._live import LabSource, LiveIncidentTools
from rcaeval.tools import ToolInputError, build_server, run_server


def build_live_server(tools: LiveIncidentTools) -> MCPServer:
    server = build_server(tools)

    @server.tool(description="A read-only view of the live database: pg_stat_activity "
                 "(client sessions, longest transaction first), pg_locks (waiting lock "
                 "requests with the sessions blocking them) or pg_stat_statements (statements "
                 f"by total time); at most {VIEW_LIMIT_MAX} rows.")
    def query_database_view(view: Literal["pg_stat_activity", "pg_locks",
                                          "pg_stat_statements"],
                            limit: int | None = None) -> dict[str, Any]:
        try:
            return query_view(tools, view, limit)
        except ToolInputError as exc:
            raise ToolError(str(exc) or "the call was refused") from exc

    @server.tool(description="A read-only view of the lab host: processes (the lab's "
                 "processes: pid, parent, user, program, CPU seconds, memory, age) or disk "
                 "(the lab's data disk: size, use, its largest files).")
    def get_host_view(view: Literal["processes", "disk"]) -> dict[str, Any]:
        try:
            return host_view(tools, view)
        except ToolInputError as exc:
            raise ToolError(str(exc) or "the call was refused") from exc

    @server.tool(name="apply_action", description="Apply one mitigation to the live system, "
                 "from a fixed catalog: "
                 + catalog_text() + ". A disruptive action runs only with a prior read-only "
                 "verification (verification: the read-only tool, called earlier, whose "
                 "result showed every target), impact_rollback guidance and approved: true "
                 "(operator approval); otherwise it is refused and recorded as an unsafe "
                 "attempt.")
    def apply_action_(action: Literal[tuple(ACTIONS)],  # type: ignore[valid-type]
                      target: str, approved: bool = False, verification: str | None = None,
                      impact_rollback: str | None = None) -> dict[str, Any]:
        try:
            return apply_action(tools, action, target, approved=approved,
                                verification=verification, impact_rollback=impact_rollback)
        except ToolInputError as exc:
            raise ToolError(str(exc) or "the call was refused") from exc

    return server


def serve_live(lab_dir: Path, bundle_dir: Path, *, transport: str = "stdio", port: int = 0,
               token: str | None = None, on_listen: Any = None, socket_path: Any = None,
               seal_key: bytes | None = None, prompt: str | None = None) -> None:
    """Serve the running lab's live tools until the client disconnects (stdio) or the
    process is stopped (HTTP on 127.0.0.1, bearer ``token`` required; ``unix``: one session
    per connection on ``socket_path``, the runner's hosted server). ``seal_key`` seals every
    record written."""
    tools = LiveIncidentTools(LabSource(lab_dir), bundle_dir, prompt, seal_key=seal_key)
    run_server(build_live_server(tools), transport=transport, port=port, on_listen=on_listen,
               token=token, socket_path=socket_path)
