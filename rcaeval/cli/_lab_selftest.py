"""`rcaeval lab selftest`: the lab suite end to end with a reference agent (docs/lab.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer


def register_selftest(lab_app: typer.Typer) -> None:
    @lab_app.command("selftest")
    def selftest(
        scenarios: Annotated[list[str] | None, typer.Argument(
            help="Scenario ids (default: every shipped scenario).")] = None,
        lab_dir: Annotated[Path | None, typer.Option(
            "--dir", help="The lab dir (default: $RCAEVAL_LAB_DIR, else /tmp/rcaeval-lab-UID).",
            show_default=False)] = None,
        agent: Annotated[str, typer.Option(
            "--agent", help="The reference agent's behaviour (rcaeval.examples.lab_agent): "
            "oracle (must pass and resolve every scenario), lazy, wrong or unsafe (must "
            "neither pass nor resolve one).")] = "oracle",
        out: Annotated[Path | None, typer.Option(
            "--out", help="Keep the run: OUT/store.duckdb, OUT/registry (the captured cases), "
            "OUT/audits, OUT/workspaces; default: a temporary dir, removed.",
            show_default=False)] = None,
        user: Annotated[str | None, typer.Option(
            "--user", help="As root: the unprivileged account the lab runs as (default "
            "$RCAEVAL_LAB_USER, else nobody).", show_default=False)] = None,
        keep_up: Annotated[bool, typer.Option(
            "--keep-up", help="Leave the lab running afterwards.")] = False,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    ) -> None:
        """Run the lab suite with a reference agent on a fresh lab, as `rcaeval run --suite
        lab` does: per scenario inject, alert, live investigation and mitigation, recovery
        check, judged verdict. Exit 4 when the oracle does not pass and resolve a scenario
        (or another agent passes or resolves one)."""
        import sys

        from rcaeval.errors import ExitCode
        from rcaeval.lab import selftest as run

        report = run(lab_dir, scenarios=scenarios or (), behaviour=agent, out=out,
                     keep_up=keep_up, user=user,
                     progress=not as_json and sys.stderr.isatty())
        typer.echo(json.dumps(report.to_dict(), indent=1) if as_json else report.table())
        if not report.ok:
            raise typer.Exit(code=int(ExitCode.GATE_FAILED))
