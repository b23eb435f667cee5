"""`rcaeval import alertmanager FILE --out INCIDENT_DIR`: a saved Alertmanager
``/api/v2/alerts`` response into the incident's alerts.json, the channel get_alerts serves
(docs/import.md, "Alertmanager")."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def register(import_app: typer.Typer) -> None:
    @import_app.command("alertmanager")
    def alertmanager(
        files: Annotated[list[Path], typer.Argument(
            help="Saved /api/v2/alerts responses (JSON list of alerts).", show_default=False)],
        out: Annotated[Path, typer.Option(
            "--out", help="The incident dir to write (created when missing; alerts.json "
            "gains the alerts as checks, merged by id).", show_default=False)],
        window: Annotated[str | None, typer.Option(
            "--window", metavar="START..END", help="Keep only alerts active in this window "
            "(RFC 3339 times, or now / now-30m).", show_default=False)] = None,
    ) -> None:
        """Import Alertmanager alerts as alert-rule checks (active: fail, suppressed: warn)."""
        from rcaeval.ingest import import_alertmanager, parse_window_bounds

        got = import_alertmanager(files, out,
                                  window=parse_window_bounds(window) if window else None)
        counts = {s: sum(1 for c in got.checks if c["status"] == s)
                  for s in ("fail", "warn", "pass")}
        typer.echo(f"wrote {out / 'alerts.json'}: {len(got.checks)} alert(s) ("
                   + ", ".join(f"{n} {s}" for s, n in counts.items()) + ")")
        for note in got.skipped:
            typer.echo(f"skipped {note}")
