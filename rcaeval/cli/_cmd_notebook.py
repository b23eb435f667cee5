"""`rcaeval notebook regression RUN_ID`: execute the regression report notebook with papermill
and export it to static HTML (docs/notebooks.md); exit 4 on regression with
``--fail-on-regression``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from rcaeval.cli._cmd_report import RegistryOpt
from rcaeval.cli._opts import DbOpt

ShowCodeOpt = Annotated[
    bool,
    typer.Option("--show-code/--no-input", help="Keep the code cells in the HTML "
                 "(default: outputs only)."),
]
"""The code-cells option every notebook command shares."""


def register(app: typer.Typer) -> None:
    notebook = typer.Typer(
        name="notebook",
        help="Execute report notebooks with papermill and export them to static HTML.",
        no_args_is_help=True,
    )

    @notebook.command("regression")
    def regression(
        run_id: Annotated[str, typer.Argument(help="The run to report on.")],
        db_path: DbOpt = None,
        registry: RegistryOpt = None,
        out: Annotated[
            Path | None,
            typer.Option("--out", help="HTML file to write; the executed .ipynb goes next to "
                         "it (default: ./regression_<run_id>.html).", show_default=False),
        ] = None,
        baseline_run: Annotated[
            str | None,
            typer.Option("--baseline-run", help="Compare with this run from the store instead "
                         "of the suite's registry baseline.", show_default=False),
        ] = None,
        show_code: ShowCodeOpt = False,
        fail_on_regression: Annotated[
            bool,
            typer.Option("--fail-on-regression", help="Exit 4 when the run regressed "
                         "against the baseline."),
        ] = False,
        notebook_path: Annotated[
            Path | None,
            typer.Option("--notebook", help="Notebook to execute (default: the checkout's "
                         "notebooks/regression_report.ipynb).", show_default=False),
        ] = None,
    ) -> None:
        """Execute notebooks/regression_report.ipynb for RUN_ID and write HTML + .ipynb."""
        from rcaeval.errors import GateFailed
        from rcaeval.report import render_regression_notebook

        result = render_regression_notebook(
            run_id, db=db_path, registry=registry, baseline_run=baseline_run, out=out,
            show_code=show_code, notebook=notebook_path,
        )
        typer.echo(str(result.html))
        typer.echo(str(result.ipynb))
        base = result.baseline_run or "none"
        typer.echo(f"baseline: {base}; regressed: {result.regressed}; gate: "
                   f"{'FAILED' if result.gate_failed else 'ok'}")
        if fail_on_regression and result.failed:
            reasons = "; ".join(result.gate_reasons) or f"{result.regressed} regressed case(s)"
            raise GateFailed(f"run {run_id} regressed against baseline {base}: {reasons}")

    @notebook.command("explore")
    def explore(
        run_a: Annotated[str, typer.Option("--run-a", help="Reference run of the paired "
                                           "comparison.")],
        run_b: Annotated[str, typer.Option("--run-b", help="Candidate run of the paired "
                                           "comparison.")],
        db_path: DbOpt = None,
        runs: Annotated[
            list[str] | None,
            typer.Option("--run", help="Run to include in the slices (repeatable; default: "
                         "every judged run).", show_default=False),
        ] = None,
        out: Annotated[
            Path | None,
            typer.Option("--out", help="HTML file to write; the executed .ipynb goes next to "
                         "it (default: ./explore.html).", show_default=False),
        ] = None,
        show_code: ShowCodeOpt = False,
    ) -> None:
        """Execute notebooks/explore.ipynb: slices by case type, suite, agent and bucket, and
        RUN_A vs RUN_B paired (score differences, McNemar)."""
        from rcaeval.report import render_explore_notebook

        html, ipynb = render_explore_notebook(db=db_path, run_a=run_a, run_b=run_b,
                                              runs=runs or None, out=out, show_code=show_code)
        typer.echo(str(html))
        typer.echo(str(ipynb))

    notebook.command("release-gate", help=RELEASE_REPORT_HELP)(release_report)

    app.add_typer(notebook, name="notebook")


RELEASE_REPORT_HELP = (
    "Execute notebooks/release_gate.ipynb on a metrics JSON (or on --captures + --window, "
    "measured first into <html stem>.metrics.json) and write static HTML: the gate "
    "decision, each metric against its threshold with interval and sample size, the "
    "population by case type, and each metric's trend over the earlier windows stored in the "
    "store (`rcaeval release metrics --record`). Exit codes: 0 written (whatever the gate "
    "decided); 3 the artifact is refused, or some capture or review is invalid (named on "
    "stderr; the report is still written without them); 6 no such file or store.")


def release_report(
    metrics: Annotated[Path | None, typer.Argument(
        help="A release_metrics/1 file (rcaeval release metrics); or give --captures and "
        "--window.", show_default=False)] = None,
    captures: Annotated[Path | None, typer.Option(
        "--captures", help="Capture export (.jsonl or .parquet, or a directory of them) to "
        "measure instead of METRICS.", show_default=False)] = None,
    window: Annotated[str | None, typer.Option(
        "--window", help="With --captures: START..END on captured_at (as `rcaeval release "
        "metrics --window`).", show_default=False)] = None,
    reviews: Annotated[Path | None, typer.Option(
        "--reviews", help="With --captures: operator reviews (.jsonl or .csv) that label "
        "captures.", show_default=False)] = None,
    db_path: Annotated[
        Path | None,
        typer.Option("--db", help="Store with the recorded release windows for the trend "
                     "(default: $RCAEVAL_DB, else <data>/rcaeval.duckdb; no trend when that "
                     "file does not exist).", show_default=False),
    ] = None,
    stage: Annotated[
        str | None,
        typer.Option("--stage", help="Rollout stage the artifact must have measured.",
                     show_default=False),
    ] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Rates must clear their "
                                         "threshold with the Wilson bound.")] = False,
    allow_synthetic: Annotated[bool, typer.Option(
        "--allow-synthetic", help="Test-only: accept a synthetic artifact.")] = False,
    out: Annotated[
        Path | None,
        typer.Option("--html", "--out", help="HTML file to write; the executed .ipynb goes "
                     "next to it (default: ./release_gate.html).", show_default=False),
    ] = None,
    show_code: ShowCodeOpt = False,
    shadow: Annotated[Path | None, typer.Option(
        "--shadow", help="A shadow artifact of the same window: the page compares it with "
        "this one (as `rcaeval release compare --active METRICS --shadow S`).",
        show_default=False)] = None,
) -> None:
    """One implementation for `rcaeval release report` and `rcaeval notebook release-gate`."""
    from rcaeval.report import render_release_gate_notebook

    res = render_release_gate_notebook(
        metrics, captures=captures, window=window, reviews=reviews, db=db_path, stage=stage,
        strict=strict, allow_synthetic=allow_synthetic, out=out, show_code=show_code,
        shadow=shadow)
    typer.echo(str(res.html))
    typer.echo(str(res.ipynb))
    if captures is not None:
        typer.echo(f"measured: {res.metrics}")
    typer.echo(f"gate: {'passed' if res.passed else 'FAILED'}; trend: {res.trend_note}")
    if res.problems:
        from rcaeval.cli._cmd_release import _print_problems

        _print_problems(list(res.problems))
        raise typer.Exit(3)
