"""`rcaeval harness FILE`: run the runtime harness over a file of RCA responses."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

EXIT_HELP = (
    "Exit codes: 0 every response passed or was repaired (or the harness is disabled); "
    "4 any response ended degraded or insufficient_evidence; 3 any record is invalid "
    "(malformed JSON line, not an object, or outside the response contract; the other "
    "records are still checked and reported) or the file/environment is unreadable; "
    "6 FILE does not exist."
)


class Format(StrEnum):
    table = "table"
    json = "json"
    jsonl = "jsonl"


def register(app: typer.Typer) -> None:
    @app.command("harness", help=(
        "Check RCA responses with the runtime harness: gates, score, deterministic repairs. "
        "FILE is a JSON object, a JSON array, JSON lines, or Parquet with a 'response' column; "
        "capture rows {capture_id, response, ...} are unwrapped. Configuration: "
        "ENABLE_RCA_OUTPUT_HARNESS, MAX_RCA_REPAIR_ATTEMPTS, RCA_HARNESS_PASS_SCORE; options "
        "below override them. " + EXIT_HELP + " See docs/harness.md."
    ))
    def harness(
        file: Annotated[Path, typer.Argument(help="Responses: .json, .jsonl or .parquet.")],
        out: Annotated[Path | None, typer.Option(
            "--out", help="Also write full results: .jsonl, .parquet (results frame), "
            "otherwise a JSON array.")] = None,
        fmt: Annotated[Format, typer.Option(
            "--format", help="What to print on stdout.")] = Format.table,
        checks_out: Annotated[Path | None, typer.Option(
            "--checks-out", help="Write the gate/score check rows as Parquet.")] = None,
        pass_score: Annotated[float | None, typer.Option(
            "--pass-score", help="Override RCA_HARNESS_PASS_SCORE (0..100).")] = None,
        max_repair_attempts: Annotated[int | None, typer.Option(
            "--max-repair-attempts", help="Override MAX_RCA_REPAIR_ATTEMPTS (0..20).")] = None,
        gate3_outcome: Annotated[str | None, typer.Option(
            "--gate3-outcome",
            help="Override RCA_HARNESS_GATE3_OUTCOME: what a remaining gate-3 failure ends "
            "as (insufficient_evidence | degraded).")] = None,
    ) -> None:
        from rcaeval._inputs import check_output_file
        from rcaeval.harness import HarnessConfig

        if out is not None:
            check_output_file(out, field="--out")
        if checks_out is not None:
            check_output_file(checks_out, field="--checks-out")
        config = HarnessConfig.from_env().replace(
            pass_score=pass_score, max_repair_attempts=max_repair_attempts,
            gate3_outcome=gate3_outcome)
        code = _run(file, out, fmt, checks_out, config)
        raise typer.Exit(code)


def _run(file: Path, out: Path | None, fmt: Format, checks_out: Path | None,
         config: Any) -> int:
    import orjson

    from rcaeval.harness import check_batch

    batch = check_batch(file, config)
    results = batch.results
    records = [_record_dict(row) for row in results.iter_rows(named=True)]
    _report_invalid(file, results)

    if fmt is Format.table:
        _print_table(results)
    elif fmt is Format.json:
        typer.echo(orjson.dumps(records, option=orjson.OPT_INDENT_2).decode())
    else:
        for rec in records:
            typer.echo(orjson.dumps(rec).decode())

    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        if out.suffix == ".parquet":
            results.write_parquet(out)
        elif out.suffix == ".jsonl":
            out.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
        else:
            out.write_bytes(orjson.dumps(records, option=orjson.OPT_INDENT_2) + b"\n")
    if checks_out is not None:
        checks_out.parent.mkdir(parents=True, exist_ok=True)
        batch.checks.write_parquet(checks_out)

    statuses = set(results["status"].to_list())
    if "invalid" in statuses:
        return 3
    if statuses & {"degraded", "insufficient_evidence"}:
        return 4
    return 0


def _record_dict(row: dict[str, Any]) -> dict[str, Any]:
    import orjson

    rec = {k: v for k, v in row.items() if k != "response"}
    rec["response"] = orjson.loads(row["response"]) if row["response"] else None
    return rec


def _report_invalid(file: Path, results: Any) -> None:
    from rich.markup import escape

    from rcaeval.cli import err_console

    for row in results.filter(results["status"] == "invalid").iter_rows(named=True):
        where = f"{file}:{row['line']}" if row["line"] else f"{file}[{row['record']}]"
        err_console.print(f"[red]invalid:[/red] {escape(where)}: {escape(row['error'])}",
                          highlight=False, soft_wrap=True)


def _print_table(results: Any) -> None:
    from rich.table import Table

    from rcaeval.cli._console import out_console
    from rcaeval.harness import GATE_IDS

    table = Table(title="RCA harness", show_lines=False)
    cols = ("#", "id", "status", "score", "gates 1-4 (final)", "failed before repair",
            "repairs", "family", "confidence")
    for col in cols:
        table.add_column(col)
    colors = {"passed": "green", "repaired": "cyan", "degraded": "yellow",
              "insufficient_evidence": "magenta", "disabled": "dim", "invalid": "red"}
    for row in results.iter_rows(named=True):
        status = row["status"]
        if status == "invalid":
            gates = "-"
        else:
            gates = " ".join("ok" if row[GATE_IDS[g]] else "FAIL" for g in sorted(GATE_IDS))
        fam = _arrow(row["family_in"], row["family_out"])
        conf = _arrow(row["confidence_in"], row["confidence_out"])
        score = "" if row["score"] is None else f"{row['score']:.1f}"
        before = ", ".join(g.split("_")[0] for g in row["initial_failed_gates"] or [])
        table.add_row(str(row["record"]), row["record_id"] or "",
                      f"[{colors.get(status, 'white')}]{status}[/]", score, gates, before,
                      str(row["n_repairs"] or 0), fam, conf)
    console = out_console()
    console.print(table)
    counts = results.group_by("status").len().sort("status").iter_rows()
    console.print("  ".join(f"{s}: {n}" for s, n in counts), highlight=False)


def _arrow(before: str | None, after: str | None) -> str:
    if before == after:
        return before or ""
    return f"{before or '-'} -> {after or '-'}"
