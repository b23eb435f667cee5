"""Handing the incident tools (rcaeval.tools, docs/tools.md) to agents.

Per workspace the runner decides, from the suite's ``execution.tools`` (``--tools``):

``files``  today's ``incident/`` copy, no tool server;
``mcp``    the tool server only - its data sits in the runner-owned ``.rcaeval/incident/``;
``both``   the server and the ``incident/`` copy (the default).

The server is a stdio MCP server the *agent* starts (``<runner python> -P -m rcaeval.tools serve
--case-dir <ws> --incident-dir … --bundle-dir <ws>``), so it runs wherever the agent runs -
inside the sandbox too - and records into the workspace. ACP agents get it in
``session/new``'s ``mcpServers``; command agents get generated config files (the
``mcpServers`` JSON of Claude Code / Gemini CLI / Cursor, and opencode's ``mcp`` config) whose
paths are in ``RCAEVAL_MCP_CONFIG`` / ``OPENCODE_CONFIG`` and the ``{mcp_config}``
substitution.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_args

import orjson

from rcaeval.errors import InputError
from rcaeval.registry import DEFAULT_TOOLS_MODE, ToolsMode

if TYPE_CHECKING:
    from rcaeval.runner._workspace import Workspace

TOOLS_MODES: tuple[str, ...] = get_args(ToolsMode)
SERVER_NAME = "rcaeval"
MCP_CONFIG = "mcp.json"
OPENCODE_CONFIG = "opencode.json"
PLACEHOLDER = "{mcp_config}"

__all__ = ["DEFAULT_TOOLS_MODE", "TOOLS_MODES", "ToolsMode"]


def check_tools_mode(mode: str | None) -> ToolsMode:
    if mode is None:
        return DEFAULT_TOOLS_MODE
    if mode not in TOOLS_MODES:
        raise InputError(f"unknown tools mode {mode!r} ({' | '.join(TOOLS_MODES)})",
                         field="tools")
    return mode  # type: ignore[return-value]


def incident_path(ws: Workspace) -> Path:
    """Where the workspace's copy of the incident data lives in this mode."""
    return ws.runner_dir / "incident" if ws.tools == "mcp" else ws.path / "incident"


def server_command(ws: Workspace) -> tuple[str, list[str]]:
    """The stdio server's command and arguments (absolute paths: the runner's interpreter,
    so it never depends on which ``python`` is on the agent's PATH; ``-P``: the working
    directory is not on ``sys.path``, so a folder named ``rcaeval`` in the workspace cannot
    shadow the installed package). ``--via`` relays to the runner's hosted, sealing server
    (:mod:`rcaeval.runner._toolhost`) when it listens."""
    from rcaeval.runner._toolhost import socket_path

    return sys.executable, ["-P", "-m", "rcaeval.tools", "serve", "--case-dir", str(ws.path),
                            "--incident-dir", str(incident_path(ws)),
                            "--bundle-dir", str(ws.path), "--via", socket_path(ws)]


def server_env() -> dict[str, str]:
    return {"PYTHONUNBUFFERED": "1"}


def write_configs(ws: Workspace) -> dict[str, str]:
    """Write ``.rcaeval/mcp.json`` and ``.rcaeval/opencode.json``; return the environment
    variables that name them (nothing in ``files`` mode)."""
    if ws.tools == "files":
        return {}
    cmd, args = server_command(ws)
    mcp = {"mcpServers": {SERVER_NAME: {"type": "stdio", "command": cmd, "args": args,
                                        "env": server_env()}}}
    opencode = {"$schema": "https://opencode.ai/config.json",
                "mcp": {SERVER_NAME: {"type": "local", "command": [cmd, *args],
                                      "environment": server_env(), "enabled": True}}}
    paths = {}
    for name, doc in ((MCP_CONFIG, mcp), (OPENCODE_CONFIG, opencode)):
        path = ws.runner_dir / name
        path.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2))
        paths[name] = str(path)
    return {"RCAEVAL_MCP_CONFIG": paths[MCP_CONFIG], "OPENCODE_CONFIG": paths[OPENCODE_CONFIG]}


def acp_mcp_servers(ws: Workspace) -> list[Any]:
    """``session/new``'s ``mcpServers`` (stdio: every ACP agent must support it)."""
    if ws.tools == "files":
        return []
    from acp.schema import EnvVariable, McpServerStdio

    cmd, args = server_command(ws)
    return [McpServerStdio(name=SERVER_NAME, command=cmd, args=args,
                           env=[EnvVariable(name=k, value=v) for k, v in server_env().items()])]
