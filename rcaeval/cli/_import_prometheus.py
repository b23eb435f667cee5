"""`rcaeval import prometheus FILE... --out INCIDENT_DIR`: saved Prometheus HTTP API
``query_range`` responses into the incident's metrics.json (docs/import.md, "Prometheus")."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def register(import_app: typer.Typer) -> None:
    @import_app.command("prometheus")
    def prometheus(
        files: Annotated[list[Path], typer.Argument(
            help="Saved /api/v1/query_range responses (JSON, resultType matrix).",
            show_default=False)],
        out: Annotated[Path, typer.Option(
            "--out", help="The incident dir to write (created when missing; metrics.json "
            "gains the series, merged by id).", show_default=False)],
        name: Annotated[str | None, typer.Option(
            "--name", help="The metric name of results without a __name__ label (an "
            "expression such as rate(x[5m])).", show_default=False)] = None,
    ) -> None:
        """Import Prometheus query_range JSON (one file or many) as metric series."""
        from rcaeval.ingest import import_prometheus

        got = import_prometheus(files, out, name=name)
        typer.echo(f"wrote {out / 'metrics.json'}: {len(got.series)} series, {got.points} "
                   f"points from {len(files)} file(s)")
        if got.dropped_samples:
            typer.echo(f"left out {got.dropped_samples} NaN/Inf sample(s)")
        for note in got.skipped:
            typer.echo(f"skipped {note}")
