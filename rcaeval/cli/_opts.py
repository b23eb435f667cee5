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


AllowEndpointOpt = Annotated[list[str] | None, typer.Option(
    "--allow-endpoint", metavar="HOST:PORT", help="With --no-network: let agents reach this "
    "endpoint on the host's loopback (a local model server), at 127.0.0.1:PORT inside the "
    "sandbox (repeatable).", show_default=False)]


AgentHomeOpt = Annotated[str | None, typer.Option(
    "--agent-home", metavar="DIR", help="The agents' HOME for every case of the run (created "
    "when missing, mounted read-write): harness caches and installs persist between cases. "
    "Cases can see what earlier ones left there. Default: a fresh HOME per case.",
    show_default=False)]


def parse_agent_env(items: list[str] | None) -> dict[str, str | None]:
    """``--agent-env`` values (``KEY=VALUE`` or ``KEY``, rcaeval.runner.parse_env_args); a bare
    ``KEY`` that is unset here is refused (exit 3) rather than silently dropped: the agent
    would run without it (an API key, most often)."""
    import os

    from rcaeval.errors import InputError
    from rcaeval.runner import parse_env_args

    env = parse_env_args(items or [])
    missing = [k for k, v in env.items() if v is None and k not in os.environ]
    if missing:
        names = ", ".join(missing)
        raise InputError(f"--agent-env {names}: not set in this environment, so the agent "
                         f"would not get it; export it, or pass {missing[0]}=VALUE",
                         field="--agent-env")
    return env
