"""`rcaeval doctor`: check the set-up (Python, store, registry, sandbox, an agent spec) and
say what is wrong. Exit 0 when nothing failed (warnings are printed), 7 when a check failed
(docs/doctor.md)."""

from __future__ import annotations

from typing import Annotated

import typer

from rcaeval.cli._opts import (
    AgentEnvOpt,
    AllowEndpointOpt,
    DbOpt,
    NetworkOpt,
    RegistryOpt,
    SandboxBindOpt,
    SandboxOpt,
)

_STYLE = {"ok": "green", "warn": "yellow", "fail": "red", "skip": "dim"}


def register(app: typer.Typer) -> None:
    @app.command("doctor")
    def doctor(
        suite: Annotated[str | None, typer.Option(
            "--suite", help="Also check that this suite's cases load.",
            show_default=False)] = None,
        agent: Annotated[str | None, typer.Option(
            "--agent", help="Also check this agent spec: start it as `rcaeval run` would "
            "(same sandbox and environment) and run its first step - acp: the ACP handshake, "
            "command: one turn on a short doctor prompt.", show_default=False)] = None,
        agent_env: AgentEnvOpt = None,
        sandbox: SandboxOpt = "auto",
        network: NetworkOpt = True,
        sandbox_bind: SandboxBindOpt = None,
        allow_endpoint: AllowEndpointOpt = None,
        registry: RegistryOpt = None,
        db: DbOpt = None,
        timeout: Annotated[float, typer.Option(
            "--timeout", min=0.1, metavar="S", help="Seconds the agent gets for its first "
            "step (each ACP handshake request; a command agent's first turn).")] = 30.0,
        as_json: Annotated[bool, typer.Option(
            "--json", help="Print the checks as JSON.")] = False,
    ) -> None:
        """Check the set-up and say what is wrong: exit 7 when a check fails."""
        import orjson
        from rich.console import Console
        from rich.markup import escape

        from rcaeval.cli._opts import parse_agent_env
        from rcaeval.doctor import run_checks
        from rcaeval.errors import ExitCode

        checks = run_checks(db=db, registry=registry, suite=suite, agent=agent,
                            agent_env=parse_agent_env(agent_env), timeout_s=timeout,
                            sandbox=sandbox, network=network,
                            sandbox_binds=sandbox_bind or (),
                            allow_endpoints=allow_endpoint or ())
        failed = [c for c in checks if c.status == "fail"]
        if as_json:
            typer.echo(orjson.dumps({"ok": not failed, "checks": [c.to_dict() for c in checks]},
                                    option=orjson.OPT_INDENT_2).decode())
        else:
            console = Console(soft_wrap=True, highlight=False)
            for c in checks:
                console.print(f"[{_STYLE[c.status]}]{c.status:>4}[/] {c.name}: "
                              f"{escape(c.detail)}")
                if c.fix and c.status in ("warn", "fail"):
                    console.print(f"       fix: {escape(c.fix)}")
            warned = sum(c.status == "warn" for c in checks)
            console.print(f"{len(failed)} failed, {warned} warning(s)" if failed or warned
                          else "all checks passed")
        if failed:
            raise typer.Exit(int(ExitCode.INFRA_ERROR))
