"""`rcaeval report RUN_ID`: write report.txt and report_detail.txt for a run (docs/reports.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

DbOpt = Annotated[
    Path | None,
    typer.Option("--db", help="Store file (default: $RCAEVAL_DB, else <data>/rcaeval.duckdb).",
                 show_default=False),
]
RegistryOpt = Annotated[
    Path | None,
    typer.Option("--registry", help="Registry dir (default: $RCAEVAL_REGISTRY, else "
                 "<data>/registry); used for the suite file and the baseline.",
                 show_default=False),
]


def register(app: typer.Typer) -> None:
    @app.command("report")
    def report(
        run_id: Annotated[str, typer.Argument(help="The run to report on.")],
        db_path: DbOpt = None,
        registry: RegistryOpt = None,
        out: Annotated[
            Path | None,
            typer.Option("--out", help="Directory to write into (default: <audit_root>/"
                         "<run_id>/: the run's recorded audit root, else <data>/eval_audits).",
                         show_default=False),
        ] = None,
    ) -> None:
        """Write report.txt (run summary) and report_detail.txt (per case) for RUN_ID."""
        from rcaeval.report import write_reports
        from rcaeval.store import connect, resolve_db_path

        read_only = resolve_db_path(db_path) is not None
        with connect(db_path, read_only=read_only) as s:
            paths = write_reports(s, run_id, out, registry_root=registry)
        for p in paths:
            typer.echo(str(p))
