"""`rcaeval offline openrca-run AUDIT_RUN_DIR`: a run's answers on imported OpenRCA cases
scored as OpenRCA's evaluator scores them (docs/import.md, "Scoring a run as OpenRCA
does")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from rcaeval.cli._opts import RegistryOpt


def register(offline: typer.Typer) -> None:
    @offline.command("openrca-run")
    def openrca_run(
        audit_run_dir: Annotated[Path, typer.Argument(
            help="One run's audit dir (AUDIT_ROOT/<run_id>/: a dir per case with its "
            "output.txt).")],
        registry: RegistryOpt = None,
        out: Annotated[Path | None, typer.Option(
            "--out", help="Write the per-case scores (CSV).", show_default=False)] = None,
        export: Annotated[Path | None, typer.Option(
            "--export", help="Also write OpenRCA's query.csv and predictions.csv of these "
            "answers into this dir.", show_default=False)] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")
                           ] = False,
    ) -> None:
        """Score a run's final answers on imported OpenRCA cases exactly as OpenRCA does
        (the scoring points judge.yaml keeps): rows, strict, partial, mean, per criterion."""
        import tempfile

        from rcaeval._inputs import check_output_dir, check_output_file
        from rcaeval._paths import registry_dir
        from rcaeval.corpora import export_openrca, openrca_scores, run_answers
        from rcaeval.offline import read_openrca_query, render_openrca_summary, summarise_openrca

        if out is not None:
            check_output_file(out, field="--out")
        if export is not None:
            check_output_dir(export, field="--export")
        root = registry if registry is not None else registry_dir()
        answers = run_answers(audit_run_dir)
        scores = openrca_scores(root, answers)
        if out is not None:
            out.parent.mkdir(parents=True, exist_ok=True)
            scores.write_csv(out)
        with tempfile.TemporaryDirectory() as tmp:
            # the task file gives the summary its no-information baselines, as for
            # `offline openrca`
            qpath, _ = export_openrca(root, answers, export if export is not None else tmp)
            summary = summarise_openrca(scores.drop("case_id", "system"),
                                        read_openrca_query(qpath) if scores.height else None)
        if as_json:
            typer.echo(json.dumps({"summary": summary.as_dict(),
                                   "cases": scores.to_dicts()}, indent=2))
            return
        typer.echo(render_openrca_summary(summary))
        if out is not None:
            typer.echo(f"\nper-case scores: {out}")
        if export is not None:
            typer.echo(f"OpenRCA files: {export}/query.csv, {export}/predictions.csv")
