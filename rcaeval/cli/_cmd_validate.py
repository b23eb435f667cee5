"""`rcaeval validate`: lint a registry (suites, cases, judges, baselines)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from rcaeval.cli._opts import RegistryOpt


class OutputFormat(StrEnum):
    text = "text"
    json = "json"


def register(app: typer.Typer) -> None:
    @app.command("validate")
    def validate(
        registry: RegistryOpt = None,
        fmt: Annotated[
            OutputFormat, typer.Option("--format", help="Output format.")
        ] = OutputFormat.text,
        prove: Annotated[bool, typer.Option(
            "--prove", help="then prove every case (rcaeval case prove): exit 4 when one is "
            "unproven")] = False,
    ) -> None:
        """Lint a registry and judge its detector examples; exit 3 when any error is found
        (warnings are printed only). With --prove, a clean registry's cases are then
        proven."""
        import orjson

        from rcaeval.errors import ExitCode
        from rcaeval.registry import load_registry

        reg = load_registry(registry, examples=True)
        counts = {"suites": len(reg.suites), "cases": len(reg.cases) + len(reg.case_problems),
                  "baselines": len(reg.baselines)}
        if fmt is OutputFormat.json:
            payload = {"registry": str(reg.root), "ok": reg.ok, "counts": counts,
                       "problems": [p.to_dict() for p in reg.problems],
                       "warnings": [p.to_dict() for p in reg.warnings]}
            if prove and not reg.problems:
                from rcaeval.prove import prove as run

                report = run(reg.root)
                payload["proof"] = report.to_dict()
            typer.echo(orjson.dumps(payload, option=orjson.OPT_INDENT_2).decode())
            if prove and not reg.problems and not report.ok:
                raise typer.Exit(code=int(ExitCode.GATE_FAILED))
        else:
            from rcaeval.cli._console import out_console
            from rcaeval.cli._validate_text import print_findings

            print_findings(out_console(), reg)
            status = "invalid" if reg.problems else "ok"
            warned = f", {len(reg.warnings)} warnings" if reg.warnings else ""
            typer.echo(
                f"registry {reg.root}: {status}: {counts['suites']} suites, {counts['cases']} "
                f"cases, {counts['baselines']} baselines, {len(reg.problems)} problems{warned}"
            )
        if reg.problems:
            raise typer.Exit(code=int(ExitCode.INVALID_INPUT))
        if prove and fmt is OutputFormat.text:
            from rcaeval.cli._case_prove import run_proof

            run_proof(reg.root, None, [], as_json=False, out=None, jobs=None, timeout=None,
                      sandbox=None)
