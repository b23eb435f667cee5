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
