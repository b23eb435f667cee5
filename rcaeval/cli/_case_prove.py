"""`rcaeval case prove` and `rcaeval validate --prove`: run the reference agents on cases and
print the proof table (docs/registry.md, "Prove it"; docs/cli.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from rcaeval.cli._opts import RegistryOpt, SandboxOpt

SuiteOpt = Annotated[str | None, typer.Option(
    "--suite", help="prove the cases of suites/<SUITE>.yaml (with CASE arguments: only those, "
    "which must be in it); default: every case of the registry")]
JsonOpt = Annotated[bool, typer.Option("--json", help="print the proof as JSON (for CI)")]
OutOpt = Annotated[Path | None, typer.Option(
    "--out", help="keep the proof's store (proof.duckdb), audit dirs and plans here "
    "(default: a temporary dir, removed)")]
JobsOpt = Annotated[int | None, typer.Option(
    "--jobs", min=1, help="cases in parallel (default: the suite's execution.jobs)")]
TimeoutOpt = Annotated[float | None, typer.Option(
    "--timeout", min=1, help="per-case wall clock in seconds")]


def print_report(report: Any, as_json: bool) -> None:
    """The proof table (rich) or its JSON document."""
    import orjson
    from rich.table import Table

    if as_json:
        typer.echo(orjson.dumps(report.to_dict(), option=orjson.OPT_INDENT_2).decode())
        return
    from rcaeval.cli._console import out_console

    console = out_console(soft_wrap=False)
    table = Table(title="case proofs (oracle must pass; lazy and wrong must not)")
    for col in ("case", "result", "oracle", "lazy", "wrong"):
        table.add_column(col, no_wrap=True)
    table.add_column("reason", overflow="fold")
    for row in report.rows:
        style = {"proven": "green", "unproven": "red", "exempt": "yellow"}[row.status]
        lazy = f"{row.lazy} (no {row.lazy_channel})" if row.lazy_channel and \
            row.lazy not in ("-", "exempt") else row.lazy
        table.add_row(row.case_id, f"[{style}]{row.status}[/{style}]", row.oracle, lazy,
                      row.wrong, "; ".join(row.reasons) or "-")
    console.print(table)
    c = report.counts()
    exempt = f", {c['exempt']} exempt" if c["exempt"] else ""
    typer.echo(f"{c['proven']}/{len(report.rows)} proven, {c['unproven']} unproven{exempt} "
               f"in {report.wall_s:.1f} s" + (f"; kept in {report.out}" if report.out else ""))


def run_proof(registry: Path | None, suite: str | None, cases: list[str], *, as_json: bool,
              out: Path | None, jobs: int | None, timeout: float | None,
              sandbox: str | None) -> None:
    """Prove, print, and exit 4 when a case is unproven."""
    from rcaeval.errors import ExitCode
    from rcaeval.prove import prove

    report = prove(registry, suite=suite, case_ids=cases, out=out, jobs=jobs,
                   timeout_s=timeout, sandbox=sandbox, progress=not as_json)
    print_report(report, as_json)
    if not report.ok:
        raise typer.Exit(code=int(ExitCode.GATE_FAILED))


def register(case_app: typer.Typer) -> None:
    @case_app.command("prove")
    def prove_cmd(
        cases: Annotated[list[str] | None, typer.Argument(
            help="case ids (default: every case of --suite, else of the registry)")] = None,
        suite: SuiteOpt = None,
        registry: RegistryOpt = None,
        as_json: JsonOpt = False,
        out: OutOpt = None,
        jobs: JobsOpt = None,
        timeout: TimeoutOpt = None,
        sandbox: SandboxOpt = "auto",
    ) -> None:
        """Prove cases: an oracle agent that knows the answer passes each through the
        incident tools, a lazy one (one preferred channel skipped) and a wrong one (a
        guarded misdiagnosis) do not. Exit 4 when a case is unproven."""
        run_proof(registry, suite, list(cases or []), as_json=as_json, out=out, jobs=jobs,
                  timeout=timeout, sandbox=sandbox)
