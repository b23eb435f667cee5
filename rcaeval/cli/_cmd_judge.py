"""`rcaeval judge AUDIT_DIR` and `rcaeval explain RUN_ID CASE_ID`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

_out = Console()

DbOpt = Annotated[
    Path | None,
    typer.Option(
        "--db",
        help="Store file (default: $RCAEVAL_DB, else <data>/rcaeval.duckdb; ':memory:' works).",
        show_default=False,
    ),
]
_VERDICT_STYLE = {"pass": "green", "fail": "red", "invalid": "magenta"}


def _open_store(db: Path | None):
    from rcaeval.store import connect

    return connect(db)


def _verdict_table(frame) -> Table:
    table = Table(title="verdicts", title_justify="left")
    for col, justify in (("run_id", "left"), ("case_id", "left"), ("verdict", "left"),
                         ("subtype", "left"), ("score", "right"), ("raw_score", "right")):
        table.add_column(col, justify=justify)
    for row in frame.iter_rows(named=True):
        style = _VERDICT_STYLE.get(row["verdict"], "white")
        table.add_row(row["run_id"], row["case_id"], f"[{style}]{row['verdict']}[/]",
                      row["subtype"] or "", f"{row['score']:g}", f"{row['raw_score']:g}")
    return table


def register(app: typer.Typer) -> None:
    @app.command("judge")
    def judge(
        audit_dir: Annotated[Path, typer.Argument(
            help="An audits root (<root>/<run_id>/<case_id>/) or one run dir.")],
        registry: Annotated[Path | None, typer.Option(
            "--registry", help="Registry root (default: $RCAEVAL_REGISTRY or data/registry).",
            show_default=False)] = None,
        db: DbOpt = None,
        out: Annotated[Path | None, typer.Option(
            "--out", help="Write judgment.json to OUT/<run_id>/<case_id>/ instead of into each "
            "case dir.", show_default=False)] = None,
        run_id: Annotated[str | None, typer.Option(
            "--run-id", help="Judge only this run of the audits root.")] = None,
        profile: Annotated[str | None, typer.Option(
            "--profile", help="Scoring profile for every case (default: each judge.yaml's, "
            "see docs/scoring.md).")] = None,
        workers: Annotated[int | None, typer.Option(
            "--workers", help="Extraction processes (default: min(2, CPUs)).")] = None,
        no_files: Annotated[bool, typer.Option(
            "--no-files", help="Store judgments only; write no judgment.json.")] = False,
        progress: Annotated[bool | None, typer.Option(
            "--progress/--no-progress", help="Extraction progress bar on stderr (default: when "
            "stderr is a terminal).", show_default=False)] = None,
    ) -> None:
        """Judge recorded agent runs: extract, evaluate every bucket, store verdicts.

        Exit 0 whatever the verdicts (they are results, not errors)."""
        from rcaeval.judge import judge_audit

        store = _open_store(db)
        try:
            frame = judge_audit(
                store, audit_dir, registry, out_dir=out, run_id=run_id,
                scoring_profile=profile, workers=workers,
                progress=sys.stderr.isatty() if progress is None else progress,
                write_files=not no_files,
            )
        finally:
            store.close()
        _out.print(_verdict_table(frame))
        counts = frame.group_by("verdict").len().sort("verdict")
        summary = ", ".join(f"{r['verdict']} {r['len']}" for r in counts.iter_rows(named=True))
        _out.print(f"{frame.height} case run(s): {summary}")

    @app.command("explain")
    def explain(
        run_id: Annotated[str, typer.Argument(help="Run id.")],
        case_id: Annotated[str, typer.Argument(help="Case id.")],
        db: DbOpt = None,
    ) -> None:
        """Print one judgment as a bucket -> check -> evidence tree."""
        from rcaeval.judge import explain_tree, load_judgment
        from rcaeval.store import connect

        store = connect(db)
        try:
            packet = load_judgment(store, run_id, case_id)
        finally:
            store.close()
        _out.print(explain_tree(packet))
