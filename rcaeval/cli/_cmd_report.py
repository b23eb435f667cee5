"""`rcaeval report RUN_ID`: write report.txt and report_detail.txt for a run (docs/reports.md);
with ``--html OUT``, the self-contained run page with per-case drill-downs instead
(docs/notebooks.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from rcaeval.cli._opts import DbOpt

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
        html: Annotated[
            Path | None,
            typer.Option("--html", help="Write the run page (charts, case table, per-case "
                         "judgment drill-down) to this HTML file instead, the executed .ipynb "
                         "next to it.", show_default=False),
        ] = None,
        show_code: Annotated[
            bool,
            typer.Option("--show-code", help="With --html: keep the notebook's code cells."),
        ] = False,
    ) -> None:
        """Write report.txt (run summary) and report_detail.txt (per case) for RUN_ID, or
        with --html the self-contained HTML run page."""
        from rcaeval.report import write_reports
        from rcaeval.store import connect, resolve_db_path

        if html is not None:
            from rcaeval.report import render_run_page

            page = render_run_page(run_id, db=db_path, out=html, show_code=show_code)
            typer.echo(str(page.html))
            typer.echo(str(page.ipynb))
            typer.echo(f"cases: {page.cases}")
            return

        read_only = resolve_db_path(db_path) is not None
        with connect(db_path, read_only=read_only) as s:
            paths = write_reports(s, run_id, out, registry_root=registry)
        for p in paths:
            typer.echo(str(p))
