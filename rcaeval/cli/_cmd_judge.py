"""`rcaeval judge AUDIT_DIR` and `rcaeval explain RUN_ID CASE_ID`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from rcaeval._vocab import DEFAULT_CHUNK_SIZE
from rcaeval.cli._opts import DbOpt, RegistryOpt
from rcaeval.cli._semantic_opts import (
    SemanticModelOpt,
    SemanticOpt,
    SemanticSamplesOpt,
    SemanticTimeoutOpt,
    SemanticUrlOpt,
    semantic_config,
)

if TYPE_CHECKING:
    import polars as pl

    from rcaeval.store import Store

_out = Console()

_VERDICT_STYLE = {"pass": "green", "fail": "red", "invalid": "magenta"}


def _open_store(db: Path | None, *, memory_limit: str | None = None,
                threads: int | None = None):
    from rcaeval.store import connect

    return connect(db, memory_limit=memory_limit, threads=threads)


def _bulk_memory_limit(db: Path | None, memory_limit: str | None) -> str | None:
    """``--memory-limit``, else ``$RCAEVAL_DB_MEMORY_LIMIT``, else the bulk-judging default
    for a file store (an in-memory store holds every table in that budget: left alone)."""
    from rcaeval.judge import BULK_MEMORY_LIMIT
    from rcaeval.store import resolve_db_path, resolve_memory_limit

    chosen = resolve_memory_limit(memory_limit)
    if chosen is None and resolve_db_path(db) is not None:
        return BULK_MEMORY_LIMIT
    return chosen


MAX_VERDICT_ROWS = 200
"""Case runs the verdict table lists; past it the table ends with a line counting the rest
(every verdict is in the store: ``rcaeval report``, eval_judgment). Rendering a table row
costs about a millisecond, as much as judging a case run's SQL stages in a large batch."""


def _verdict_table(frame) -> Table:
    more = frame.height - MAX_VERDICT_ROWS
    title = "verdicts" if more <= 0 else f"verdicts (first {MAX_VERDICT_ROWS} case runs)"
    table = Table(title=title, title_justify="left",
                  caption=None if more <= 0 else
                  f"... {more} more case run(s): every verdict is in the store "
                  "(rcaeval report RUN_ID, table eval_judgment)",
                  caption_justify="left")
    for col, justify in (("run_id", "left"), ("case_id", "left"), ("verdict", "left"),
                         ("subtype", "left"), ("score", "right"), ("raw_score", "right")):
        table.add_column(col, justify=justify)
    for row in frame.head(MAX_VERDICT_ROWS).iter_rows(named=True):
        style = _VERDICT_STYLE.get(row["verdict"], "white")
        table.add_row(row["run_id"], row["case_id"], f"[{style}]{row['verdict']}[/]",
                      row["subtype"] or "", f"{row['score']:g}", f"{row['raw_score']:g}")
    return table


def _shadow_lines(store: Store, frame: pl.DataFrame) -> list[str]:
    """The semantic shadow's summary of every judged run (docs/semantic.md)."""
    from rcaeval.semantic import report_lines

    lines: list[str] = []
    for rid in sorted(set(frame["run_id"].to_list())):
        found = report_lines(store, rid)
        if found:
            lines += [f"run {rid}:"] + ["  " + line for line in found]
    return lines


def _exit_on_bad_ids(frame, audit_dir: Path | None) -> None:
    """Exit 3 naming file and field when a manifest's run_id/case_id could not be a path
    part; those cases are judged `invalid` under their directory names, every other case
    normally (docs/judge.md)."""
    from rcaeval._vocab import SUBTYPE_BUNDLE_ID_INVALID
    from rcaeval.errors import InputError

    bad = frame.filter(frame["subtype"] == SUBTYPE_BUNDLE_ID_INVALID)
    if bad.height:
        reasons = bad["reason"].to_list()
        more = f" (+{len(reasons) - 5} more)" if len(reasons) > 5 else ""
        raise InputError(f"{bad.height} case run(s) have a manifest id that cannot be a path "
                         "part (judged invalid, every other case judged): "
                         + "; ".join(reasons[:5]) + more,
                         file=str(audit_dir) if audit_dir is not None else None)


def register(app: typer.Typer) -> None:
    def _known_top1_lines(store: Store, run_ids: list[str]) -> list[str]:
        from rcaeval.cli._cmd_run import known_top1_line

        return [line for rid in run_ids if (line := known_top1_line(store, rid))]

    @app.command("judge")
    def judge(
        audit_dir: Annotated[Path | None, typer.Argument(
            help="An audits root (<root>/<run_id>/<case_id>/) or one run dir (omit with "
            "--from-store).", show_default=False)] = None,
        registry: RegistryOpt = None,
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
        chunk_size: Annotated[int, typer.Option(
            "--chunk-size", min=1, help="Case runs judged per SQL pass; bounds the judge's "
            "memory (results do not depend on it).")] = DEFAULT_CHUNK_SIZE,
        memory_limit: Annotated[str | None, typer.Option(
            "--memory-limit", help="DuckDB memory limit, e.g. 2GB, 512MiB, 50% (default: "
            "$RCAEVAL_DB_MEMORY_LIMIT, else 1GB for a file store, DuckDB's 80% of RAM for "
            ":memory:; see docs/store.md).",
            show_default=False)] = None,
        threads: Annotated[int | None, typer.Option(
            "--threads", min=1, help="DuckDB threads (default: $RCAEVAL_DB_THREADS, else one "
            "per CPU).", show_default=False)] = None,
        from_store: Annotated[bool, typer.Option(
            "--from-store", help="Re-judge every case run already extracted into the store "
            "(with --run-id: that run's) against the registry's current rules; reads no audit "
            "file, runs only the SQL stages (docs/judge.md).")] = False,
        replace: Annotated[bool, typer.Option(
            "--replace", help="Judge case dirs whose run id (from manifest.json) the store "
            "already has from another dir, e.g. a copy of a recorded run: their judgments "
            "replace the original's (default: refused, exit 3).")] = False,
        semantic: SemanticOpt = None,
        semantic_model: SemanticModelOpt = None,
        semantic_base_url: SemanticUrlOpt = None,
        semantic_samples: SemanticSamplesOpt = None,
        semantic_timeout: SemanticTimeoutOpt = None,
    ) -> None:
        """Judge recorded agent runs: extract, evaluate every bucket, store verdicts.

        Exit 0 whatever the verdicts (they are results, not errors)."""
        from rcaeval.judge import judge_audit, rejudge_store

        if from_store == (audit_dir is not None):
            raise typer.BadParameter(
                "give AUDIT_DIR, or --from-store to re-judge what the store holds (not both)",
                param_hint="AUDIT_DIR")
        shadow = semantic_config(semantic, model=semantic_model, base_url=semantic_base_url,
                                 samples=semantic_samples, timeout=semantic_timeout)
        store = _open_store(db, memory_limit=_bulk_memory_limit(db, memory_limit),
                            threads=threads)
        try:
            if from_store:
                frame = rejudge_store(
                    store, registry, run_id=run_id, out_dir=out, scoring_profile=profile,
                    write_files=not no_files, chunk_size=chunk_size, semantic=shadow)
            else:
                frame = judge_audit(
                    store, audit_dir, registry, out_dir=out, run_id=run_id,
                    scoring_profile=profile, workers=workers,
                    progress=sys.stderr.isatty() if progress is None else progress,
                    write_files=not no_files, chunk_size=chunk_size, semantic=shadow,
                    replace=replace,
                )
            top1 = _known_top1_lines(store, sorted(set(frame["run_id"].to_list())))
            shadow_lines = _shadow_lines(store, frame) if shadow is not None else []
        finally:
            store.close()
        _out.print(_verdict_table(frame))
        counts = frame.group_by("verdict").len().sort("verdict")
        summary = ", ".join(f"{r['verdict']} {r['len']}" for r in counts.iter_rows(named=True))
        _out.print(f"{frame.height} case run(s): {summary}")
        for line in shadow_lines:
            _out.print(line, highlight=False, markup=False)
        for line in top1:
            _out.print(line, highlight=False, markup=False, soft_wrap=True)
        _exit_on_bad_ids(frame, audit_dir)

    @app.command("explain")
    def explain(
        run_id: Annotated[str, typer.Argument(help="Run id.")],
        case_id: Annotated[str, typer.Argument(help="Case id.")],
        db: DbOpt = None,
    ) -> None:
        """Print one judgment as a bucket -> check -> evidence tree, then every sentence an
        output detector matched and the rule that decided it; with a semantic shadow, the
        deterministic and blended judgments side by side (docs/semantic.md)."""
        from rcaeval.judge import explain_tree, load_detector_hits, load_judgment
        from rcaeval.report import (
            describe_file_problem,
            describe_integrity,
            integrity_of,
            parse_errors_of,
        )
        from rcaeval.semantic import load_shadow, side_by_side
        from rcaeval.store import connect, resolve_db_path

        path = resolve_db_path(db)  # read-only on a file: never locks a run out
        store = connect(db, read_only=path is not None and path.exists())
        try:
            packet = load_judgment(store, run_id, case_id)
            shadow = load_shadow(store, run_id, case_id)
            problems = parse_errors_of(store, run_id).get(case_id, [])
            hits = load_detector_hits(store, run_id, case_id)
            integrity = describe_integrity(integrity_of(store, run_id).get(case_id))
        finally:
            store.close()
        _out.print(explain_tree(packet, [describe_file_problem(p) for p in problems], hits,
                                integrity))
        if shadow is not None:
            _out.print(side_by_side(packet, shadow))
