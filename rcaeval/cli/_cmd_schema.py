"""`rcaeval schema`: write the JSON Schemas of the registry file kinds."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def _default_out() -> Path:
    import rcaeval

    repo = Path(rcaeval.__file__).resolve().parent.parent
    if (repo / "docs").is_dir():
        return repo / "docs" / "schema"
    return Path.cwd() / "docs" / "schema"


def register(app: typer.Typer) -> None:
    @app.command("schema")
    def schema(
        out: Annotated[
            Path | None,
            typer.Option("--out", help="Output dir (default: docs/schema of the checkout)."),
        ] = None,
    ) -> None:
        """Write <name>.schema.json for every registered schema (suite, case, judge, ...)."""
        from rcaeval.registry import write_schemas

        for path in write_schemas(out if out is not None else _default_out()):
            typer.echo(f"wrote {path}")
