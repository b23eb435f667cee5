"""`rcaeval tools serve`: one case's incident tools as an MCP server (docs/tools.md)."""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path
from typing import Annotated

import typer

from rcaeval.errors import InputError


def register(app: typer.Typer) -> None:
    tools_app = typer.Typer(help="Incident tools over MCP (docs/tools.md).",
                            no_args_is_help=True)
    app.add_typer(tools_app, name="tools")

    @tools_app.command("serve")
    def serve(
        case_dir: Annotated[Path, typer.Option(
            "--case-dir", help="a registry case dir (case.yaml + incident/) or an agent "
            "workspace (case.json + incident/)")],
        bundle_dir: Annotated[Path | None, typer.Option(
            "--bundle-dir", help="where calls are recorded as a run bundle "
            "(default: the current directory)")] = None,
        incident_dir: Annotated[Path | None, typer.Option(
            "--incident-dir", help="the incident data (default: CASE_DIR/incident)")] = None,
        transport: Annotated[str, typer.Option(
            "--transport", help="stdio, http (streamable HTTP on 127.0.0.1) or unix (the "
            "runner's hosted server, on --socket)")] = "stdio",
        port: Annotated[int, typer.Option(
            "--port", help="HTTP port (0: a free one; the URL is printed on stderr)")] = 0,
        socket_path: Annotated[Path | None, typer.Option(
            "--socket", help="the Unix socket of --transport unix")] = None,
        via: Annotated[Path | None, typer.Option(
            "--via", help="stdio only: relay to the server listening on this Unix socket "
            "(the runner's hosted, sealing server); serve here when none listens")] = None,
    ) -> None:
        """Serve one case's incident tools over MCP, recording every call into a bundle.

        Over HTTP every request needs `Authorization: Bearer TOKEN`: the token in
        $RCAEVAL_MCP_TOKEN, else a fresh one printed on stderr (docs/tools.md)."""
        from rcaeval._seal import SEAL_KEY_ENV, parse_key
        from rcaeval.tools import serve as _serve

        if transport not in ("stdio", "http", "unix"):
            raise InputError(f"unknown transport {transport!r} (stdio | http | unix)",
                             field="--transport")
        if transport == "unix" and socket_path is None:
            raise InputError("--transport unix needs --socket PATH", field="--socket")
        if via is not None and transport == "stdio":
            from rcaeval.tools import bridge

            if bridge(via):
                return
        raw_key = os.environ.pop(SEAL_KEY_ENV, None)
        seal_key = parse_key(raw_key) if raw_key else None
        if raw_key and seal_key is None:
            raise InputError(f"${SEAL_KEY_ENV} is not a hex key of at least 16 bytes",
                             field=SEAL_KEY_ENV)
        if not 0 <= port <= 65535:
            raise InputError(f"bad port {port}", field="--port")

        from rcaeval.tools import TOKEN_ENV

        token = os.environ.get(TOKEN_ENV) or None
        if transport == "http" and token is None:
            token = secrets.token_urlsafe(32)
            print(f"rcaeval incident tools token: {token}", file=sys.stderr, flush=True)

        def announce(url: str) -> None:
            print(f"rcaeval incident tools: {url}", file=sys.stderr, flush=True)
            if transport == "unix":  # the runner waits for this line before the agent starts
                print(f"listening {url}", flush=True)

        _serve(case_dir.resolve(), (bundle_dir or Path.cwd()).resolve(), transport=transport,
               port=port, incident_dir=incident_dir.resolve() if incident_dir else None,
               on_listen=announce, token=token, socket_path=socket_path, seal_key=seal_key)
