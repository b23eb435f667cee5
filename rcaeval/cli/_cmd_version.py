"""`rcaeval version`: print the package and judge versions."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    @app.command("version")
    def version() -> None:
        """Print rcaeval's version."""
        from rcaeval import __version__

        typer.echo(f"rcaeval {__version__}")
