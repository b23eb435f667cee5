"""`rcaeval bundle lint DIR`: which bundle-contract rule each file breaks, and the judge's
consequence (docs/bundle-sdk.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from rcaeval.errors import ExitCode, NotFoundError


def register(app: typer.Typer) -> None:
    bundle_app = typer.Typer(help="The run-bundle SDK: lint a bundle (docs/bundle-sdk.md).",
                             no_args_is_help=True)
    app.add_typer(bundle_app, name="bundle")

    @bundle_app.command("lint")
    def lint(
        case_dir: Annotated[Path, typer.Argument(
            help="a workspace, audit dir or recorded run dir holding a bundle")],
        case: Annotated[Path | None, typer.Option(
            "--case", help="the case's dir (case.yaml or case.json): check the report's "
            "cluster and window against it (default: DIR/case.json when present)")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="one JSON object per finding")]
        = False,
    ) -> None:
        """Check a bundle against the contract; exit 3 when any rule is broken (errors)."""
        import orjson

        from rcaeval.bundle import lint_bundle

        if not case_dir.is_dir():
            raise NotFoundError(f"{case_dir}: not a directory")
        findings = lint_bundle(case_dir, case=case)
        for f in findings:
            if as_json:
                typer.echo(orjson.dumps(f.as_dict()).decode())
            else:
                typer.echo(f"{f.severity.upper():7} {f.file}  [{f.rule}] {f.message}")
                typer.echo(f"        -> {f.bucket}: {f.consequence}")
        errors = sum(f.severity == "error" for f in findings)
        if not as_json:
            typer.echo(f"{case_dir}: {errors} error(s), {len(findings) - errors} warning(s)")
        if errors:
            raise typer.Exit(int(ExitCode.INVALID_INPUT))
