"""`rcaeval import rcaeval RE_DIR --out REGISTRY`: RCAEval's RE1/RE2/RE3 fault injections as
registry cases with opaque ids (docs/import.md, "RCAEval")."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def register(import_app: typer.Typer) -> None:
    @import_app.command("rcaeval")
    def rcaeval_(
        re_dir: Annotated[Path, typer.Argument(
            help="An RCAEval dataset dir (RE2/RE2-OB, RE1/..., RE3/...): every dir under it "
            "holding inject_time.txt is a case.")],
        out: Annotated[Path, typer.Option(
            "--out", help="The registry to write the cases and the suite into (created when "
            "missing).", show_default=False)],
        suite: Annotated[str | None, typer.Option(
            "--suite", help="The suite id (default rcaeval-<RE_DIR name>).",
            show_default=False)] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")
                           ] = False,
    ) -> None:
        """One case per fault injection: 10 minutes of telemetry either side of the fault's
        start, the root-cause service and fault (from the folder names) judge-only, the case
        id a hash of the path. Case dirs that cannot be imported are listed (exit 3)."""
        from rcaeval.cli._corpus_report import print_report
        from rcaeval.corpora import import_rcaeval

        print_report(import_rcaeval(re_dir, out, suite_id=suite), as_json)
