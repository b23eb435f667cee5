"""`rcaeval import loki|logs|journal FILE... --out DIR`: log sources into a case's
incident/logs/ (docs/import.md, "Loki", "Plain log files", "journald")."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from rcaeval.cli._opts_import import OutOpt, WindowOpt

Files = Annotated[list[Path], typer.Argument(show_default=False, help="The source files.")]


def _report(target: Path, added: dict[str, int]) -> None:
    n = sum(added.values())
    typer.echo(f"imported {n} log line(s) into {target}: " + ", ".join(
        f"{name} (+{k})" for name, k in sorted(added.items())))


def register(import_app: typer.Typer) -> None:
    @import_app.command("loki")
    def loki(
        files: Files, out: OutOpt, window: WindowOpt = None,
        instance_label: Annotated[str | None, typer.Option(
            "--instance-label", help="The stream label naming the log file (default: the "
            "first of pod, instance, host, hostname, node_name, container, job, ...).",
            show_default=False)] = None,
        component_label: Annotated[str | None, typer.Option(
            "--component-label", help="The stream label naming the component (default: "
            "the first of component, app, app_kubernetes_io_name, service_name, container, "
            "job).", show_default=False)] = None,
    ) -> None:
        """Import Loki query_range log streams into logs/.

        resultType streams; one log file per stream instance (pod, instance, host, ...)."""
        from rcaeval.ingest import import_loki, incident_dir, incident_update, parse_window

        win, target = parse_window(window), incident_dir(out)
        with incident_update(target) as work:
            added = import_loki(work, files, win, instance_label=instance_label,
                                component_label=component_label)
        _report(target, added)

    @import_app.command("logs")
    def logs(
        files: Files, out: OutOpt, window: WindowOpt = None,
        instance: Annotated[str | None, typer.Option(
            "--instance", help="The log file's instance (default: each file's stem).",
            show_default=False)] = None,
        component: Annotated[str | None, typer.Option(
            "--component", help="The lines' component (default: the instance; syslog lines: "
            "the program).", show_default=False)] = None,
        year: Annotated[int | None, typer.Option(
            "--year", help="The year of stamps that carry none (syslog, klog); default: the "
            "--window's.", show_default=False)] = None,
        fmt: Annotated[str | None, typer.Option(
            "--format", help="The timestamp format: iso, clf, klog, syslog or epoch "
            "(default: detected from the first line).", show_default=False)] = None,
    ) -> None:
        """Import plain log files into logs/.

        ISO-8601, access-log, klog, syslog or epoch timestamps; multi-line stack traces are
        kept with their entry."""
        from rcaeval.ingest import import_plain_logs, incident_dir, incident_update, parse_window

        win, target = parse_window(window), incident_dir(out)
        with incident_update(target) as work:
            added = import_plain_logs(work, files, win, instance=instance,
                                      component=component, year=year, fmt=fmt)
        _report(target, added)

    @import_app.command("journal")
    def journal(
        files: Files, out: OutOpt, window: WindowOpt = None,
        instance: Annotated[str | None, typer.Option(
            "--instance", help="The log file's instance (default: each entry's _HOSTNAME).",
            show_default=False)] = None,
    ) -> None:
        """Import journalctl -o json exports into logs/.

        One log file per host; the component is the SYSLOG_IDENTIFIER or unit, the level the
        PRIORITY."""
        from rcaeval.ingest import import_journal, incident_dir, incident_update, parse_window

        win, target = parse_window(window), incident_dir(out)
        with incident_update(target) as work:
            added = import_journal(work, files, win, instance=instance)
        _report(target, added)
