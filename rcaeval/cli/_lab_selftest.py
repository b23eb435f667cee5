"""`rcaeval lab selftest`: every scenario end to end with a reference agent (docs/lab.md)."""

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
            "--agent", help="The reference agent: oracle (must pass), lazy or wrong (must "
            "not).")] = "oracle",
        out: Annotated[Path | None, typer.Option(
            "--out", help="Keep the captured cases (OUT/registry) and the bundles "
            "(OUT/audits); default: a temporary dir, removed.", show_default=False)] = None,
        keep_up: Annotated[bool, typer.Option(
            "--keep-up", help="Leave the lab running afterwards.")] = False,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    ) -> None:
        """Bring the lab up fresh and run every scenario with a reference agent: inject, alert,
        live investigation over MCP, judged verdict, revert, recovery check. Exit 4 when the
        oracle does not pass (or a lazy / wrong agent does) or a scenario does not recover."""
        import sys

        from rcaeval.errors import ExitCode
        from rcaeval.lab import selftest as run

        def progress(row) -> None:
            if not as_json:
                print(f"{row.scenario}: alert after {row.alert_after_s} s, verdict "
                      f"{row.verdict}, {row.skipped or row.recovery}"
                      + (f" ({row.error})" if row.error else ""), file=sys.stderr, flush=True)

        report = run(lab_dir, scenarios=scenarios or (), role=agent, out=out,
                     keep_up=keep_up, progress=progress)
        typer.echo(json.dumps(report.to_dict(), indent=1) if as_json else report.table())
        if not report.ok:
            raise typer.Exit(code=int(ExitCode.GATE_FAILED))
