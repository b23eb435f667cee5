"""How `rcaeval import openrca|rcaeval` prints an import report (shared by both commands)."""

from __future__ import annotations

import json

import typer

from rcaeval.errors import ExitCode


def print_report(report, as_json: bool) -> None:  # noqa: ANN001
    if as_json:
        typer.echo(json.dumps(report.as_dict(), indent=2))
    else:
        typer.echo(f"imported {len(report.cases)} case(s) into {report.registry}/cases/, "
                   f"suite {report.suite_id} ({report.registry}/suites/{report.suite_id}.yaml)")
        for note in report.notes:
            typer.echo(f"note: {note}")
        if report.skipped:
            typer.echo(f"skipped {len(report.skipped)} row(s):", err=True)
            for s in report.skipped:
                typer.echo(f"  {s.render()}", err=True)
        else:
            typer.echo(f"next: rcaeval validate --registry {report.registry}; rcaeval case "
                       f"prove --registry {report.registry} --suite {report.suite_id}")
    if not report.ok:
        raise typer.Exit(int(ExitCode.INVALID_INPUT))
