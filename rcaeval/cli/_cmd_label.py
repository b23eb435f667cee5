"""`rcaeval label export|import|agreement|baseline|gate`: judge calibration against human
labels (docs/calibration.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from rcaeval.cli._opts import DbOpt, RegistryOpt

FORMATS = ("table", "csv", "json")
_AGREEMENT_COLS = ("level", "item", "n", "agree", "disagree", "ties", "agreement",
                   "agreement_low", "agreement_high", "kappa")
_GATE_COLS = ("level", "item", "baseline_n", "baseline_agreement", "baseline_low",
              "current_n", "current_agreement", "dropped")
_DISAGREE_COLS = ("level", "item", "run_id", "case_id", "judge_value", "human_value")


def _print(frame: Any, title: str, cols: tuple[str, ...], kinds: dict[str, str] | None = None
           ) -> None:
    from rcaeval._numfmt import display_value
    from rcaeval.cli._console import out_console

    table = Table(title=title, title_justify="left")
    for c in cols:
        table.add_column(c.replace("_", " "), justify="left" if frame.schema.get(c) in (
            None,) or str(frame.schema[c]) == "String" else "right")
    for r in frame.iter_rows(named=True):
        table.add_row(*[("[bold]all[/bold]" if c == "item" and r[c] is None else
                         display_value(r[c], column=c, kind=(kinds or {}).get(c)))
                        for c in cols])
    out_console().print(table)


def _check_format(fmt: str) -> None:
    from rcaeval.errors import InputError

    if fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}",
                         field="--format")


def _read_only(db: Path | None) -> bool:
    return db is not None and Path(db).is_file()


def _agreement_out(a: Any, fmt: str, title: str) -> None:
    import orjson

    if fmt == "csv":
        typer.echo(a.table.write_csv(), nl=False)
        return
    if fmt == "json":
        typer.echo(orjson.dumps({"judge": a.judge, "labels": a.labels,
                                 "agreement": a.table.to_dicts(),
                                 "confusion": a.confusion.to_dicts(),
                                 "alpha": a.alpha.to_dicts(),
                                 "disagreements": a.disagreements.to_dicts(),
                                 "unsafe": a.unsafe.to_dicts()},
                                default=str).decode())
        return
    rate = {c: "rate" for c in ("agreement", "agreement_low", "agreement_high", "kappa")}
    _print(a.table, f"{title}: {a.labels} label(s)", _AGREEMENT_COLS, rate)
    _print(a.confusion, "confusion (judge x people)",
           ("level", "judge_value", "human_value", "n"))
    if a.alpha.height:
        _print(a.alpha, "Krippendorff's alpha (nominal)", ("raters", "level", "units", "n",
                                                            "alpha"), {"alpha": "rate"})
    if a.disagreements.height:
        _print(a.disagreements, f"disagreements ({a.disagreements.height})", _DISAGREE_COLS)
    if a.unsafe.height:
        _print(a.unsafe, "advice people called unsafe", ("run_id", "case_id", "labellers",
                                                         "judge_verdict"))


def register(app: typer.Typer) -> None:
    sub = typer.Typer(help="Judge calibration against human labels: labelling sheets, "
                      "agreement, the judge gate (docs/calibration.md).", no_args_is_help=True)
    app.add_typer(sub, name="label")

    @sub.command("export")
    def export_cmd(
        run_id: Annotated[str, typer.Argument(help="The judged run to label.")],
        out: Annotated[Path, typer.Option("--out", help="Sheet to write: .csv or .jsonl.")],
        cases: Annotated[list[str] | None, typer.Option(
            "--cases", help="Only these case ids (repeatable, or comma-separated).",
            show_default=False)] = None,
        blind: Annotated[bool, typer.Option(
            "--blind", help="Hide the judge's verdict, reason and check results.")] = False,
        db: DbOpt = None,
        registry: RegistryOpt = None,
    ) -> None:
        """Write a labelling sheet: per case the prompt, the answer, the evidence it cited
        with excerpts, the ground truth and the fields a labeller fills."""
        from rcaeval.label import export_sheet
        from rcaeval.store import connect

        wanted = [c.strip() for v in cases or [] for c in v.split(",") if c.strip()] or None
        with connect(db, read_only=_read_only(db)) as store:
            path = export_sheet(store, run_id, out, cases=wanted, blind=blind,
                                registry=registry)
        typer.echo(f"wrote {path}")

    @sub.command("import")
    def import_cmd(
        sheet: Annotated[Path, typer.Argument(help="A filled-in sheet (.csv or .jsonl).")],
        db: DbOpt = None,
    ) -> None:
        """Load a filled-in sheet. Every row is checked (exit 3 naming row and field); a
        relabel is added and the earlier label kept as history."""
        from rcaeval.label import import_sheet
        from rcaeval.store import connect

        with connect(db) as store:
            res = import_sheet(store, sheet)
        typer.echo(f"{sheet}: {res.added} label(s) added, {res.unchanged} unchanged, "
                   f"{res.blank} blank row(s); {res.case_runs} case run(s) by "
                   f"{', '.join(res.labellers) or 'nobody'}")

    @sub.command("agreement")
    def agreement_cmd(
        run: Annotated[str | None, typer.Option("--run", help="Only this run's labels.",
                                                show_default=False)] = None,
        judge_version: Annotated[str | None, typer.Option(
            "--judge-version", help="Only case runs judged by this judge version.",
            show_default=False)] = None,
        judge: Annotated[str, typer.Option(
            "--judge", help="deterministic | blended (the semantic shadow's second pass) | "
            "both")] = "deterministic",
        db: DbOpt = None,
        fmt: Annotated[str, typer.Option("--format", help="table | csv | json")] = "table",
    ) -> None:
        """Judge vs people for the verdict, each bucket, check and detector: confusion
        counts, raw agreement with Wilson intervals, Cohen's kappa, Krippendorff's alpha,
        and the disagreements."""
        from rcaeval.errors import InputError, NotFoundError
        from rcaeval.label import JUDGES, agreement
        from rcaeval.store import connect

        _check_format(fmt)
        sides = list(JUDGES) if judge == "both" else [judge]
        if any(s not in JUDGES for s in sides):
            raise InputError(f"unknown judge {judge!r}; use deterministic, blended or both",
                             field="--judge")
        with connect(db, read_only=_read_only(db)) as store:
            results = [agreement(store, run_id=run, judge_version=judge_version, judge=s)
                       for s in sides]
        if not results[0].labels:
            raise NotFoundError("no labels for " + (f"run {run!r}" if run else "any run")
                                + (f" judged by {judge_version}" if judge_version else "")
                                + " (import a sheet with `rcaeval label import`)")
        for a in results:
            _agreement_out(a, fmt, f"{a.judge} judge vs people")

    @sub.command("baseline")
    def baseline_cmd(
        run: Annotated[str | None, typer.Option("--run", help="Only this run's labels.",
                                                show_default=False)] = None,
        db: DbOpt = None,
    ) -> None:
        """Record the stored judge's values for every labelled case run under its judge
        version: what `rcaeval label gate --baseline-judge VERSION` compares against."""
        from rcaeval.label import record_baseline
        from rcaeval.store import connect

        with connect(db) as store:
            n = record_baseline(store, run_id=run)
        typer.echo(f"recorded {n} judge value(s) of labelled case runs")

    @sub.command("gate")
    def gate_cmd(
        baseline_judge: Annotated[str, typer.Option(
            "--baseline-judge", help="The judge version recorded with `label baseline`.")],
        run: Annotated[str | None, typer.Option("--run", help="Only this run's labels.",
                                                show_default=False)] = None,
        min_pairs: Annotated[int, typer.Option(
            "--min-pairs", min=1, help="Rows with fewer baseline pairs are not gated.")] = 5,
        db: DbOpt = None,
        registry: RegistryOpt = None,
        fmt: Annotated[str, typer.Option("--format", help="table | csv | json")] = "table",
    ) -> None:
        """Judge the labelled case runs again with the current registry and judge (in a
        scratch copy) and exit 4 when agreement with people falls below the lower Wilson
        bound of the baseline judge's agreement (docs/calibration.md, "The judge gate")."""
        import orjson

        from rcaeval.errors import GateFailed
        from rcaeval.label import gate
        from rcaeval.store import connect

        _check_format(fmt)
        with connect(db, read_only=_read_only(db)) as store:
            res = gate(store, baseline_judge, registry=registry, run_id=run,
                       min_pairs=min_pairs)
        if fmt == "csv":
            typer.echo(res.rows.write_csv(), nl=False)
        elif fmt == "json":
            typer.echo(orjson.dumps({"baseline_judge": baseline_judge, "failed": res.failed,
                                     "rows": res.rows.to_dicts()}).decode())
        else:
            _print(res.rows, f"judge gate: current vs {baseline_judge}", _GATE_COLS,
                   {c: "rate" for c in _GATE_COLS if "agreement" in c or c.endswith("low")})
        if res.failed:
            dropped = res.rows.filter(res.rows["dropped"])
            names = ", ".join(f"{r['level']} {r['item'] or '(all)'}"
                              for r in dropped.iter_rows(named=True))
            raise GateFailed(f"agreement with people dropped below the {baseline_judge} "
                             f"baseline's interval: {names}")
