"""The CI half of `rcaeval run`: repeat groups (`--repeat K`), the repeat statistics, the
result files (`--results-json`, `--junit-xml`), the file problems and the exit status
(docs/running.md, docs/results.md, docs/cli.md). Not a command module: `_cmd_run` calls it."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.table import Table

from rcaeval.cli._cmd_run import _STYLE, counts_line, known_top1_line

if TYPE_CHECKING:
    from rcaeval.store import Store


def is_repeat_group(store: Store, run_id: str) -> bool:
    from rcaeval.runner import repeat_group

    return bool(repeat_group(store, run_id))


def run_repeated(console: Console, store: Store, suite: str, agent: str, *, repeat: int | None,
                 run_id: str | None, resume: bool, options: dict[str, Any],
                 baseline_diff: bool, registry: Path | None, fail_under: float | None,
                 fail_on: tuple[str, ...], junit: Path | None, results: Path | None) -> None:
    """`rcaeval run --repeat K`: K runs as one repeat group, the repeat statistics, the
    rate-based baseline comparison, the result files and the exit status."""
    from rcaeval.cli import err_console
    from rcaeval.errors import NotFoundError
    from rcaeval.report import diff_repeats_against_baseline
    from rcaeval.runner import RepeatInterrupted, run_repeats

    try:
        result = run_repeats(store, suite, agent, repeat=repeat, run_id=run_id, resume=resume,
                             **options)
    except RepeatInterrupted as exc:
        for s in exc.result.summaries:
            console.print(f"{s.run_id}: {s.status}, {counts_line(s)}", highlight=False)
        console.print(f"interrupted: resume with --resume {exc.result.group_id}",
                      highlight=False)
        raise typer.Exit(130) from None
    for s in result.summaries:
        console.print(f"{s.run_id}: {counts_line(s)}", highlight=False)
        top1 = known_top1_line(store, s.run_id)
        if top1:
            console.print(f"  {top1}", highlight=False, soft_wrap=True)
        for path in s.reports or ():
            console.print(f"  report: {path}", highlight=False, soft_wrap=True)
    doc = result.results(store)
    console.print(repeat_table(doc))
    console.print(rates_line(doc), highlight=False, soft_wrap=True)
    console.print(f"store: {store.label}", highlight=False, soft_wrap=True)
    regressed = False
    if baseline_diff:
        try:
            diff = diff_repeats_against_baseline(store, result.run_ids, result.group_id,
                                                 registry)
        except NotFoundError as exc:
            err_console.print(f"[yellow]warning:[/yellow] no baseline comparison: {exc}",
                              highlight=False)
        else:
            console.print(diff.render(), end="", highlight=False, markup=False)
            regressed = diff.gate_failed
    finish(console, store, result.summaries, fail_under=fail_under, fail_on=fail_on,
           regressed=regressed, junit=junit, results=results, group_id=result.group_id)


def repeat_table(doc: dict[str, Any]) -> Table:
    """One row per case: the outcome of each repeat, pass rate, pass@k, pass^k, flaky."""
    k = doc["run"]["repeat"]
    table = Table(title=f"repeat group {doc['run']['id']} ({doc['run']['suite_id']}, {k} runs)",
                  title_justify="left")
    for col, justify in (("case", "left"), ("type", "left"), ("outcomes", "left"),
                         ("pass rate", "right"), (f"pass@{k}", "left"), (f"pass^{k}", "left"),
                         ("note", "left")):
        table.add_column(col, justify=justify, no_wrap=col != "note")
    for c in doc["cases"]:
        outs = " ".join(f"[{_STYLE.get(a['outcome'], 'white')}]{a['outcome']}[/]"
                        for a in c["attempts"])
        notes = [n for n in ("flaky" if c["flaky"] else "",
                             "quarantined" if c["quarantined"] else "") if n]
        table.add_row(c["case_id"], c["case_type"] or "-", outs,
                      f"{c['passes']}/{c['runs']}", "yes" if c["pass_at_k"] else "no",
                      "yes" if c["pass_hat_k"] else "no", ", ".join(notes))
    return table


def rates_line(doc: dict[str, Any]) -> str:
    """``pass rate 0.833 [0.552, 0.953] (10/12 case runs); pass@3 …; flaky: …``."""
    s, k = doc["summary"], doc["run"]["repeat"]

    def rate(r: dict[str, Any]) -> str:
        if r["value"] is None:
            return f"n/a (0/{r['n']})"
        return f"{r['value']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}] " \
               f"({r['successes']}/{r['n']})"

    pct = int(round(s["confidence"] * 100))
    line = f"pass rate {rate(s['pass_rate'])} case runs, {pct}% Wilson interval"
    if k == 1:
        return line
    line += f"; pass@{k} {rate(s['pass_at_k'])} cases; pass^{k} {rate(s['pass_hat_k'])} cases"
    return line + (f"; flaky: {', '.join(s['flaky'])}" if s["flaky"] else "; flaky: none")


def finish(console: Console, store: Store, summaries: list[Any], *, fail_under: float | None,
           fail_on: tuple[str, ...], regressed: bool, junit: Path | None = None,
           results: Path | None = None, group_id: str | None = None) -> None:
    """Print the file problems, write the result files, print why the run fails, if it does,
    and exit with the code that says so: 7 for errored / timed-out cases, 4 for thresholds or
    a baseline regression (docs/cli.md)."""
    from rcaeval.cli import err_console
    from rcaeval.errors import ExitCode
    from rcaeval.report import run_results, write_junit_xml, write_results_json
    from rcaeval.runner import gate_run

    gate = gate_run(store, summaries, fail_under=fail_under, fail_on=fail_on)
    if regressed:
        gate = dataclasses.replace(
            gate, exit_code=gate.exit_code if gate.failed else ExitCode.GATE_FAILED,
            reasons=(*gate.reasons, "regression against the suite's baseline "
                     "(--baseline-diff)"))
    doc = run_results(store, summaries, group_id=group_id, gate=gate)
    if doc["run"]["repeat"] == 1:
        console.print(rates_line(doc), highlight=False, soft_wrap=True)
    print_file_problems(console, doc)
    for path, write in ((results, write_results_json), (junit, write_junit_xml)):
        if path is not None:
            console.print(f"wrote {write(doc, path)}", highlight=False, soft_wrap=True)
    for reason in gate.reasons:
        err_console.print(f"[red]run failed:[/red] {reason}", highlight=False)
    if gate.failed:
        raise typer.Exit(int(gate.exit_code))


def print_file_problems(console: Console, doc: dict[str, Any]) -> None:
    """One line per file a case's agent left that could not be parsed or read (with the
    line and byte of a parse error), so nobody has to dig them out of raw_file."""
    from rcaeval.report import describe_file_problem

    many = doc["run"]["repeat"] > 1
    for case in doc["cases"]:
        for a in case["attempts"]:
            for p in a["parse_errors"]:
                label = f"{case['case_id']}#{a['repeat']}" if many else case["case_id"]
                console.print(f"file problem: {label}: {describe_file_problem(p)}",
                              highlight=False, markup=False, soft_wrap=True)
