"""`rcaeval baseline promote|diff|show`: bless a run as its suite's baseline, compare a run
with the baseline (exit 4 on regression). Semantics: docs/baselines.md."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from rcaeval.cli._cmd_report import RegistryOpt
from rcaeval.cli._opts import DbOpt


def register(app: typer.Typer) -> None:
    baseline = typer.Typer(
        name="baseline",
        help="Promote a run to its suite's baseline; diff a run against the baseline.",
        no_args_is_help=True,
    )

    @baseline.command("promote")
    def promote(
        run_id: Annotated[str, typer.Argument(help="The run to promote.")],
        registry: RegistryOpt = None,
        db_path: DbOpt = None,
        audit_root: Annotated[
            Path | None,
            typer.Option("--audit-root", help="Where <run_id>/<case_id>/ audit dirs are "
                         "(default: the run's recorded audit_root, else <data>/eval_audits).",
                         show_default=False),
        ] = None,
        force: Annotated[
            bool,
            typer.Option("--force", help="Promote an unfinished/errored/partial run, or replace "
                         "a snapshot dir that belongs to something else."),
        ] = False,
        keep_old: Annotated[
            bool,
            typer.Option("--keep-old", help="Keep the previous baseline's snapshot dir."),
        ] = False,
    ) -> None:
        """Write <registry>/baselines/<suite>.yaml and the snapshot baselines/runs/<run_id>/."""
        from rcaeval.report import promote_baseline, snapshot_dir
        from rcaeval.store import connect, resolve_db_path

        read_only = resolve_db_path(db_path) is not None
        with connect(db_path, read_only=read_only) as s:
            path = promote_baseline(s, run_id, registry, audit_root, force=force,
                                    keep_old=keep_old)
        typer.echo(str(path))
        typer.echo(str(snapshot_dir(path.parent.parent, run_id)))

    @baseline.command("diff")
    def diff(
        run_id: Annotated[str, typer.Argument(help="The run to compare with its baseline.")],
        registry: RegistryOpt = None,
        db_path: DbOpt = None,
        fmt: Annotated[
            str,
            typer.Option("--format", "-f", help="text, json or markdown (for PR comments)."),
        ] = "text",
        out: Annotated[
            Path | None,
            typer.Option("--out", help="Write the diff to this file instead of stdout.",
                         show_default=False),
        ] = None,
        score_tolerance: Annotated[
            float,
            typer.Option("--score-tolerance", help="Same-verdict score drops up to this much "
                         "are not flagged as score_drop.", min=0.0),
        ] = 0.0,
        allow_missing: Annotated[
            bool,
            typer.Option("--allow-missing", help="Baseline cases the run did not run do not "
                         "count against the eligible pass count."),
        ] = False,
    ) -> None:
        """Compare RUN_ID with its suite's baseline; exit 4 on a regression."""
        from rcaeval.cli import err_console
        from rcaeval.report import FORMATS, diff_against_baseline, render_diff
        from rcaeval.store import connect, resolve_db_path

        if fmt not in (*FORMATS, "md"):
            from rcaeval.errors import InputError

            raise InputError(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
        if out is not None:
            from rcaeval._inputs import check_output_file

            check_output_file(out, field="--out")
        read_only = resolve_db_path(db_path) is not None
        with connect(db_path, read_only=read_only) as s:
            result = diff_against_baseline(s, run_id, registry, score_tolerance=score_tolerance,
                                           allow_missing=allow_missing)
        text = render_diff(result, fmt)
        if out is not None:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text, encoding="utf-8", newline="\n")
        else:
            typer.echo(text, nl=False)
        if fmt != "text":  # text output already carries its warnings
            for w in result.warnings:
                err_console.print(f"[yellow]warning:[/yellow] {w}", highlight=False)
        result.check_gate()

    @baseline.command("show")
    def show(
        suite_id: Annotated[str, typer.Argument(help="The suite whose baseline to show.")],
        registry: RegistryOpt = None,
    ) -> None:
        """Print the suite's baseline: run, versions, summary and case rows."""
        from rcaeval.report import load_baseline, render_baseline

        typer.echo(render_baseline(load_baseline(registry, suite_id)), nl=False)

    app.add_typer(baseline, name="baseline")
