"""`rcaeval case ...`: author and check one registry case (docs/registry.md, "Writing a
case"). This module holds only the group: each subcommand lives in its own
``_case_<name>.py`` defining ``register(case_app)``, discovered here, so adding one never
edits a shared file."""

from __future__ import annotations

import importlib
import pkgutil

import typer


def register(app: typer.Typer) -> None:
    import rcaeval.cli as cli

    case_app = typer.Typer(
        name="case",
        help="Author and check one registry case: draft it from incident data (new), judge an "
        "answer against it (try), prove it (prove).",
        no_args_is_help=True,
    )
    for mod in sorted(pkgutil.iter_modules(cli.__path__), key=lambda m: m.name):
        if mod.name.startswith("_case_"):
            importlib.import_module(f"{cli.__name__}.{mod.name}").register(case_app)
    app.add_typer(case_app, name="case")
