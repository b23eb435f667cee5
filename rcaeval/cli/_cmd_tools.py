"""`rcaeval tools serve`: one case's incident tools as an MCP server (docs/tools.md)."""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path
from typing import Annotated

import typer

from rcaeval.errors import InputError
from rcaeval.tools._guard import TOKEN_ENV


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
            "--transport", help="stdio, or http (streamable HTTP on 127.0.0.1)")] = "stdio",
        port: Annotated[int, typer.Option(
            "--port", help="HTTP port (0: a free one; the URL is printed on stderr)")] = 0,
    ) -> None:
        """Serve one case's incident tools over MCP, recording every call into a bundle.

        Over HTTP every request needs `Authorization: Bearer TOKEN`: the token in
        $RCAEVAL_MCP_TOKEN, else a fresh one printed on stderr (docs/tools.md)."""
        from rcaeval.tools import serve as _serve

        if transport not in ("stdio", "http"):
            raise InputError(f"unknown transport {transport!r} (stdio | http)",
                             field="--transport")
        if not 0 <= port <= 65535:
            raise InputError(f"bad port {port}", field="--port")

        token = os.environ.get(TOKEN_ENV) or None
        if transport == "http" and token is None:
            token = secrets.token_urlsafe(32)
            print(f"rcaeval incident tools token: {token}", file=sys.stderr, flush=True)

        def announce(url: str) -> None:
            print(f"rcaeval incident tools: {url}", file=sys.stderr, flush=True)

        _serve(case_dir, bundle_dir or Path.cwd(), transport=transport, port=port,
               incident_dir=incident_dir, on_listen=announce, token=token)
