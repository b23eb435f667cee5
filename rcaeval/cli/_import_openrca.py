"""`rcaeval import openrca DATASET_DIR --system SYSTEM --out REGISTRY`: OpenRCA's tasks as
registry cases (docs/import.md, "OpenRCA")."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def register(import_app: typer.Typer) -> None:
    @import_app.command("openrca")
    def openrca(
        dataset_dir: Annotated[Path, typer.Argument(
            help="OpenRCA's dataset dir (the one holding Bank/, Telecom/, Market/).")],
        system: Annotated[str, typer.Option(
            "--system", help="Bank, Telecom, Market/cloudbed-1 or Market/cloudbed-2 (a dir "
            "of DATASET_DIR with query.csv, record.csv and telemetry/).",
            show_default=False)],
        out: Annotated[Path, typer.Option(
            "--out", help="The registry to write the cases and the suite into (created when "
            "missing).", show_default=False)],
        suite: Annotated[str | None, typer.Option(
            "--suite", help="The suite id (default openrca-<system>).",
            show_default=False)] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")
                           ] = False,
    ) -> None:
        """One case per OpenRCA task: the instruction is the prompt, the task's half-hour of
        telemetry the incident data, the scoring points judge-only. Rows that cannot be
        imported are listed (exit 3); the others land."""
        from rcaeval.cli._corpus_report import print_report
        from rcaeval.corpora import import_openrca

        print_report(import_openrca(dataset_dir, system, out, suite_id=suite), as_json)
