"""Options several subcommands share, written once: the store, the registry and the agent's
environment. A subcommand with a narrower meaning (a registry used only for one file) writes
its own option."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

DbOpt = Annotated[Path | None, typer.Option(
    "--db", help="Store file (default: $RCAEVAL_DB, else <data>/rcaeval.duckdb; ':memory:' "
    "works).", show_default=False)]

RegistryOpt = Annotated[Path | None, typer.Option(
    "--registry", help="Registry dir (default: $RCAEVAL_REGISTRY, else <data>/registry).",
    show_default=False)]

AgentEnvOpt = Annotated[list[str] | None, typer.Option(
    "--agent-env", help="KEY=VALUE for the agent's environment, or KEY to pass the runner's "
    "own value (repeatable).", show_default=False)]
SandboxOpt = Annotated[str, typer.Option(
    "--sandbox", help="auto (bubblewrap where it works, else none with a warning; an error "
    "under CI=true), require (bubblewrap or fail; also: bwrap) or none (docs/agents.md, "
    "Sandbox).")]
NetworkOpt = Annotated[bool, typer.Option(
    "--network/--no-network", help="Agents may use the network (default) or only their own "
    "loopback (needs the sandbox).")]
SandboxBindOpt = Annotated[list[str] | None, typer.Option(
    "--sandbox-bind", metavar="PATH[:ro]", help="Also mount PATH in the sandbox, read-write "
    "(PATH:ro read-only) - an agent's own files or tools beyond its program (repeatable).",
    show_default=False)]
