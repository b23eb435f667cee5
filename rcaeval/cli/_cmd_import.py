"""`rcaeval import ...`: bring real telemetry or a public RCA corpus in as cases
(docs/import.md). This module holds only the group: each source lives in its own
``_import_<source>.py`` defining ``register(import_app)``, discovered here, so adding a
source never edits a shared file."""

from __future__ import annotations

import importlib
import pkgutil

import typer


def register(app: typer.Typer) -> None:
    import rcaeval.cli as cli

    mods = [m.name for m in sorted(pkgutil.iter_modules(cli.__path__), key=lambda m: m.name)
            if m.name.startswith("_import_")]
    import_app = typer.Typer(
        name="import",
        help="Import real telemetry exports into a case's incident/ dir, or a public RCA "
        "corpus as registry cases.",
        no_args_is_help=True,
    )
    for name in mods:
        importlib.import_module(f"{cli.__name__}.{name}").register(import_app)
    app.add_typer(import_app, name="import")
