"""`rcaeval semantic agreement [RUN_ID]` and `rcaeval semantic summary RUN_ID`: read the
semantic shadow back (docs/semantic.md). Judging with the shadow is `rcaeval judge/run
--semantic PROVIDER`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from rcaeval.cli._opts import DbOpt


def _console() -> Console:
    """stdout tables: the terminal's width, 140 columns in a log."""
    from rcaeval.cli._console import out_console

    return out_console()

FORMATS = ("table", "csv", "json")


def _num(value: Any, fmt: str = "{:.3f}") -> str:
    return "-" if value is None else fmt.format(value)


def _agreement_table(frame: Any, title: str) -> Table:
    table = Table(title=title, title_justify="left")
    for col, justify in (("check", "left"), ("kind", "left"), ("n", "right"),
                         ("both pass", "right"), ("det pass / sem fail", "right"),
                         ("det fail / sem pass", "right"), ("both fail", "right"),
                         ("ties", "right"), ("agreement", "right"), ("kappa", "right")):
        table.add_column(col, justify=justify)
    for r in frame.iter_rows(named=True):
        table.add_row(r["check_id"] or "[bold]all checks[/bold]", r["kind"] or "",
                      str(r["n"]), str(r["both_pass"]), str(r["det_pass_sem_fail"]),
                      str(r["det_fail_sem_pass"]), str(r["both_fail"]), str(r["ties"]),
                      _num(r["agreement"]), _num(r["kappa"]))
    return table


def register(app: typer.Typer) -> None:
    sub = typer.Typer(help="The semantic shadow: agreement with the detectors, run summary "
                      "(docs/semantic.md).", no_args_is_help=True)
    app.add_typer(sub, name="semantic")

    @sub.command("agreement")
    def agreement_cmd(
        run_id: Annotated[str | None, typer.Argument(
            help="Run id (omit with --all).", show_default=False)] = None,
        all_runs: Annotated[bool, typer.Option("--all", help="Every run in the store.")
                            ] = False,
        db: DbOpt = None,
        fmt: Annotated[str, typer.Option("--format", help="table | csv | json")] = "table",
    ) -> None:
        """Deterministic vs semantic verdicts per diagnosis check: confusion counts, observed
        agreement, Cohen's kappa."""
        from rcaeval.errors import InputError, NotFoundError
        from rcaeval.semantic import agreement
        from rcaeval.store import connect

        if fmt not in FORMATS:
            raise InputError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}",
                             field="--format")
        if (run_id is None) == (not all_runs):
            raise InputError("give a RUN_ID or --all (not both)", field="RUN_ID")
        with connect(db, read_only=db is not None and Path(db).is_file()) as store:
            frame = agreement(store, run_id)
        if frame.filter(frame["check_id"].is_not_null()).is_empty():
            raise NotFoundError(f"no semantic shadow for {'any run' if all_runs else run_id!r}"
                                " (judge with --semantic PROVIDER first)")
        if fmt == "csv":
            typer.echo(frame.write_csv(), nl=False)
        elif fmt == "json":
            typer.echo(frame.write_json())
        else:
            _console().print(_agreement_table(frame, f"agreement: {run_id or 'all runs'}"))

    @sub.command("summary")
    def summary_cmd(
        run_id: Annotated[str, typer.Argument(help="Run id.")],
        db: DbOpt = None,
    ) -> None:
        """The run's shadow: statuses, second passes, cache hits, judge tokens and cost, and
        deterministic vs blended verdict counts."""
        from rcaeval.errors import NotFoundError
        from rcaeval.semantic import report_lines
        from rcaeval.store import connect

        with connect(db, read_only=db is not None and Path(db).is_file()) as store:
            lines = report_lines(store, run_id)
        if not lines:
            raise NotFoundError(f"no semantic shadow for run {run_id!r} (judge with "
                                "--semantic PROVIDER first)")
        for line in lines:
            _console().print(line, highlight=False, markup=False)
