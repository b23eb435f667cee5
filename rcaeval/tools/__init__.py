"""Incident tools over MCP (docs/tools.md): one server per case serving its incident data
and recording every call into the run bundle, so that any MCP-capable agent produces a
judgeable bundle just by investigating.

``rcaeval tools serve --case-dir DIR`` runs it standalone; the runner hands it to agents
(docs/agents.md, "Incident tools").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rcaeval.tools._catalog import (
    ALWAYS_WRITTEN,
    ON_OUTAGE,
    OUTAGE_CHANNELS,
    TOOL_OUTPUTS,
    bundle_path,
    tool_output,
    tools_of_channel,
    tools_writing,
    written_files,
)
from rcaeval.tools._client import ToolCaller, ToolFailed, client_caller
from rcaeval.tools._data import CaseData, load_case_data
from rcaeval.tools._logstore import LogLine, MemoryLogStore, record_time
from rcaeval.tools._token import TOKEN_ENV
from rcaeval.tools._tools import IncidentTools, ToolInputError
from rcaeval.tools._traces import load_spans, span_id
from rcaeval.tools._unix import bridge

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

__all__ = ["ALWAYS_WRITTEN", "ON_OUTAGE", "OUTAGE_CHANNELS", "TOOL_OUTPUTS", "CaseData",
           "IncidentTools", "LogLine", "MemoryLogStore", "ToolCaller", "ToolFailed",
           "ToolInputError", "bridge", "build_server", "bundle_path", "client_caller",
           "load_case_data", "record_time", "run_server", "serve",
           "tool_output", "tools_of_channel", "tools_writing", "written_files", "TOKEN_ENV",
           "load_spans", "span_id"]


def build_server(tools: IncidentTools) -> MCPServer:
    """The MCP server (``mcp.server.mcpserver.MCPServer``) serving ``tools``."""
    from rcaeval.tools._server import build_server as _build

    return _build(tools)


def serve(case_dir: Any, bundle_dir: Any, **kwargs: Any) -> None:
    """Serve one case's tools over stdio (default) or ``transport="http"`` on 127.0.0.1."""
    from rcaeval.tools._server import serve as _serve

    _serve(case_dir, bundle_dir, **kwargs)


def run_server(server: MCPServer, **kwargs: Any) -> None:
    """Serve a built MCP server (:func:`build_server`'s, or one with tools added) over
    stdio (default), ``transport="http"`` on 127.0.0.1 or ``transport="unix"``."""
    from rcaeval.tools._server import run_server as _run

    _run(server, **kwargs)
