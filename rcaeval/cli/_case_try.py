"""`rcaeval case try CASE --answer FILE|-`: judge one answer against a case with the judge's
own code; each detector's decision with the rule behind it, and the diagnosis checks."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from rcaeval.cli._opts import RegistryOpt


def _read_answer(answer: str) -> str:
    from rcaeval.errors import InputError, NotFoundError

    if answer == "-":
        return sys.stdin.read()
    from rcaeval._inputs import read_input

    path = Path(answer)
    try:
        raw = read_input(path, "offline", field="--answer")
    except NotFoundError:
        raise NotFoundError(f"answer file {path} does not exist") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"the answer is not UTF-8 text: {exc}", file=str(path)) from exc


def _mark(value: Any) -> str:
    return {True: "pass", False: "FAIL", None: "-"}.get(value, str(value))


def _print(result: Any, *, bundle: bool) -> None:
    from rich.markup import escape
    from rich.table import Table

    from rcaeval.cli._console import out_console

    console = out_console(soft_wrap=False, highlight=False)
    table = Table(title=f"case {result.case_id}: detectors")
    table.add_column("detector", no_wrap=True)
    table.add_column("decision", no_wrap=True)
    table.add_column("rule", overflow="fold")
    table.add_column("sentence", overflow="fold")
    for d in result.detectors.values():
        sentence = next((h for h in d.hits if h["fires"]), d.hits[0] if d.hits else None)
        where = f"{sentence['file']}:{sentence['line_no']} {sentence['text']}" if sentence \
            else ""
        table.add_row(d.detector_id, "fires" if d.fires else "silent", escape(d.rule()),
                      escape(where))
    console.print(table)
    shown = [b for b in result.buckets if bundle or b["bucket"] == "diagnosis"]
    for b in shown:
        checks = result.bucket_checks(b["bucket"])
        table = Table(title=f"{b['bucket']}: {b['status']} - {b['reason'] or ''}")
        table.add_column("check", no_wrap=True)
        table.add_column("kind", no_wrap=True)
        table.add_column("outcome", no_wrap=True)
        table.add_column("why", overflow="fold")
        for c in checks:
            kind = c["kind"] if c["kind"] != "check" else ("required" if c["required"]
                                                          else "optional")
            table.add_row(c["check_id"], kind, _mark(c["passed"]), escape(c["reason"] or ""))
        console.print(table)
    if bundle:
        typer.echo(f"verdict: {result.verdict}" + (f" ({result.verdict_reason})"
                                                     if result.verdict_reason else ""))
    else:
        diag = result.bucket("diagnosis") or {}
        typer.echo(f"diagnosis: {diag.get('status')} (the answer alone; give --bundle DIR for "
                   "the whole verdict with a run's evidence)")


def register(case_app: typer.Typer) -> None:
    @case_app.command("try")
    def try_(
        case_id: Annotated[str, typer.Argument(help="The case to judge against.")],
        answer: Annotated[str, typer.Option(
            "--answer", help="The final answer: a file, or - for stdin.", show_default=False)],
        registry: RegistryOpt = None,
        bundle: Annotated[Path | None, typer.Option(
            "--bundle", help="A run bundle dir: judge the answer with that run's evidence (its "
            "output.txt replaced by the answer) and show every bucket and the verdict.",
            show_default=False)] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    ) -> None:
        """Judge one answer against a case with the judge's own code: each detector's decision
        and the rule behind it, and the diagnosis checks. Exit 0 whatever the outcome."""
        import orjson

        from rcaeval.authoring import try_answer, try_payload

        result = try_answer(registry, case_id, _read_answer(answer), bundle=bundle)
        if as_json:
            payload = try_payload(result, bundle=bundle is not None)
            typer.echo(orjson.dumps(payload, option=orjson.OPT_INDENT_2).decode())
        else:
            _print(result, bundle=bundle is not None)
