"""`rcaeval import otlp FILE... --out DIR`: OpenTelemetry traces (OTLP JSON) into a case's
incident/traces.json, served by the search_traces tool (docs/import.md, "OTLP traces")."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from rcaeval.cli._opts_import import OutOpt, WindowOpt


def register(import_app: typer.Typer) -> None:
    @import_app.command("otlp")
    def otlp(
        files: Annotated[list[Path], typer.Argument(
            help="OTLP JSON trace files: ExportTraceServiceRequest documents, one per file "
            "or one per line (the collector's file exporter).", show_default=False)],
        out: OutOpt,
        window: WindowOpt = None,
    ) -> None:
        """Import OpenTelemetry OTLP JSON traces into traces.json.

        The traces channel, served by search_traces."""
        from rcaeval.ingest import import_otlp, incident_dir, incident_update, parse_window

        win = parse_window(window)
        target = incident_dir(out)
        with incident_update(target) as work:
            got = import_otlp(work, files, win)
        typer.echo(f"imported {got['spans']} span(s) ({got['errors']} with status error) from "
                   f"{len(files)} file(s) into {target / 'traces.json'} ({got['total']} in all)")
