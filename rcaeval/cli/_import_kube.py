"""`rcaeval import kube-events|kube-pods FILE... --out DIR`: kubectl JSON exports into a
case's incident/events.json and component_health.json (docs/import.md, "Kubernetes")."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from rcaeval.cli._opts_import import OutOpt, WindowOpt

Files = Annotated[list[Path], typer.Argument(show_default=False, help="kubectl -o json files.")]


def register(import_app: typer.Typer) -> None:
    @import_app.command("kube-events")
    def kube_events(files: Files, out: OutOpt, window: WindowOpt = None) -> None:
        """Import kubectl get events -o json into events.json.

        The events are served by list_events; merged by the event's uid."""
        from rcaeval.ingest import import_kube_events, incident_dir, incident_update, parse_window

        win, target = parse_window(window), incident_dir(out)
        with incident_update(target) as work:
            got = import_kube_events(work, files, win)
        typer.echo(f"imported {got['events']} event(s) ({got['warnings']} Warning) into "
                   f"{target / 'events.json'} ({got['total']} in all)")

    @import_app.command("kube-pods")
    def kube_pods(files: Files, out: OutOpt) -> None:
        """Import kubectl get pods -o json as component health.

        Into component_health.json: restarts, last termination reason, readiness; served by
        get_component_health."""
        from rcaeval.ingest import import_kube_pods, incident_dir, incident_update

        target = incident_dir(out)
        with incident_update(target) as work:
            got = import_kube_pods(work, files)
        typer.echo(f"imported {got['pods']} pod(s) ({got['not_ready']} not ready) into "
                   f"{target / 'component_health.json'} ({got['total']} in all)")
