"""`rcaeval case capture --window START..END --out REGISTRY/cases/ID`: query live Prometheus,
Alertmanager and Loki over an incident's window (and read kubectl events files) and draft a
case from what they hold (docs/import.md, "case capture")."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def register(case_app: typer.Typer) -> None:
    @case_app.command("capture")
    def capture(
        window: Annotated[str, typer.Option(
            "--window", metavar="START..END", help="The incident's window: RFC 3339 times "
            "(2026-12-01T22:00:00Z), Unix seconds, now or now-<n>[smhd].",
            show_default=False)],
        out: Annotated[Path, typer.Option(
            "--out", help="The case dir to write: REGISTRY/cases/CASE_ID (cases/ is created "
            "when missing).", show_default=False)],
        prometheus: Annotated[str | None, typer.Option(
            "--prometheus", metavar="URL", help="Prometheus base URL (http://host:9090); "
            "asked /api/v1/query_range for each --query.", show_default=False)] = None,
        query: Annotated[list[str] | None, typer.Option(
            "--query", metavar="PROMQL", help="A PromQL selector or expression to capture "
            "(repeatable).", show_default=False)] = None,
        query_file: Annotated[Path | None, typer.Option(
            "--query-file", help="A file of PromQL queries, one a line (# comments).",
            show_default=False)] = None,
        step: Annotated[str | None, typer.Option(
            "--step", help="query_range resolution: 15s, 1m, 500ms (default: about 600 "
            "points over the window).", show_default=False)] = None,
        alertmanager: Annotated[str | None, typer.Option(
            "--alertmanager", metavar="URL", help="Alertmanager base URL "
            "(http://host:9093); its alerts active in the window become the alert channel.",
            show_default=False)] = None,
        loki: Annotated[str | None, typer.Option(
            "--loki", metavar="URL", help="Loki base URL (http://host:3100); asked "
            "/loki/api/v1/query_range for each --loki-query.", show_default=False)] = None,
        loki_query: Annotated[list[str] | None, typer.Option(
            "--loki-query", metavar="LOGQL", help="A LogQL stream query whose lines to "
            "capture, e.g. '{namespace=\"shop\"}' (repeatable).", show_default=False)] = None,
        kube_events: Annotated[list[Path] | None, typer.Option(
            "--kube-events", metavar="FILE", help="A `kubectl get events -o json` export; "
            "its events in the window become the events channel (repeatable).",
            show_default=False)] = None,
        cluster: Annotated[str | None, typer.Option(
            "--cluster", help="The cluster id the case names (topology.json).",
            show_default=False)] = None,
        title: Annotated[str | None, typer.Option(
            "--title", help="The case title (default: the first firing alert).",
            show_default=False)] = None,
        family: Annotated[str | None, typer.Option(
            "--family", help="The root-cause family, if known.", show_default=False)] = None,
        summary: Annotated[str | None, typer.Option(
            "--summary", help="The ground-truth summary, if known.", show_default=False)] = None,
        force: Annotated[bool, typer.Option(
            "--force", help="Replace an existing case dir.")] = False,
    ) -> None:
        """Capture an incident from live Prometheus / Alertmanager / Loki (and kubectl
        events) into a drafted case
        (incident/, case.yaml, judge.yaml, expected.md; drafts marked `draft: true`)."""
        from rcaeval.ingest import capture_case, parse_window_bounds, read_queries

        queries = list(query or []) + (read_queries(query_file) if query_file else [])
        got = capture_case(out, parse_window_bounds(window), prometheus=prometheus,
                           queries=queries, step=step, alertmanager=alertmanager, loki=loki,
                           loki_queries=list(loki_query or []),
                           kube_events_files=list(kube_events or []), cluster=cluster, title=title,
                           family=family, summary=summary, force=force)
        drafted = got.drafted
        if prometheus:
            typer.echo(f"prometheus: {len(got.series.series)} series, {got.series.points} "
                       f"points from {len(queries)} query(ies) at step {got.step_s:g}s")
        if alertmanager:
            typer.echo(f"alertmanager: {len(got.alerts.checks)} alert(s) in the window")
        if loki:
            typer.echo(f"loki: {got.log_lines} line(s) in the window")
        if kube_events:
            typer.echo(f"kube events: {got.events} event(s) in the window")
        for note in got.notes:
            typer.echo(f"note: {note}")
        typer.echo(f"wrote {drafted.case_dir} (case.yaml, judge.yaml, expected.md, incident/)")
        typer.echo(f"channels with data: {', '.join(drafted.channels)}")
        typer.echo(f"critical-evidence checks drafted from the data: {len(drafted.signals)}")
        for sig in drafted.signals:
            typer.echo(f"  {sig.check_id}: {sig.description.removeprefix('Drafted: ')}")
        typer.echo(f"Next: review the parts marked `draft: true`, then `rcaeval case prove "
                   f"{drafted.case_id} --registry {drafted.case_dir.parent.parent}`.")
