"""`rcaeval release compare`: the shadow knowledge package's artifact against the active one
(or staging's) on the same window (docs/release.md "Comparing two artifacts")."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from rcaeval._inputs import check_output_file

COMPARE_EXIT_HELP = (
    "Exit codes: 0 promote (the shadow artifact passes every gate threshold and is "
    "significantly worse on no paired rate); 4 block (it fails a threshold, or McNemar finds "
    "it worse); 3 refused (an artifact is refused as by `release gate`, the two measured "
    "different windows, a named capture export changed since it was measured, or both or "
    "neither of --active/--staging are given); 6 no such file."
)


def register_compare(release: typer.Typer) -> None:
    @release.command("compare", help=(
        "Compare the gate metrics of a shadow artifact with the active (or staging) artifact "
        "of the same window: values side by side, exact McNemar over the incidents both "
        "measured for the paired rates, a decision per metric and overall. "
        + COMPARE_EXIT_HELP))
    def compare_cmd(
        shadow: Annotated[Path, typer.Option("--shadow", help="The shadow package's metrics "
                                             "JSON (the candidate).")],
        active: Annotated[Path | None, typer.Option(
            "--active", help="The active package's metrics JSON.")] = None,
        staging: Annotated[Path | None, typer.Option(
            "--staging", help="The staging metrics JSON (instead of --active).")] = None,
        alpha: Annotated[float, typer.Option(
            "--alpha", help="McNemar significance level.")] = 0.05,
        no_paired: Annotated[bool, typer.Option(
            "--no-paired", help="Compare the artifacts' numbers only (do not re-read the "
            "captures they name).")] = False,
        allow_synthetic: Annotated[bool, typer.Option(
            "--allow-synthetic", help="TEST-ONLY: accept artifacts marked synthetic.")] = False,
        json_out: Annotated[Path | None, typer.Option(
            "--json-out", help="Also write the comparison as JSON.")] = None,
        verify_key: Annotated[str | None, typer.Option(
            "--verify-key", help="Refuse an artifact whose signature does not verify with this "
            "key (as `release gate`).")] = None,
    ) -> None:
        import orjson

        from rcaeval.errors import GateFailed, InputError
        from rcaeval.release import compare, load_artifact

        if json_out is not None:
            check_output_file(json_out, field="--json-out")
        if (active is None) == (staging is None):
            raise InputError("give exactly one of --active and --staging (the artifact the "
                             "shadow one is compared with)", field="--active")
        base_path, role = (active, "active") if active is not None else (staging, "staging")
        assert base_path is not None
        docs = []
        for p in (base_path, shadow):
            doc = load_artifact(p, verify_key=verify_key)
            if doc.get("synthetic") and not allow_synthetic:
                raise InputError("refused: the artifact is marked synthetic; "
                                 "--allow-synthetic is for tests only", file=str(p),
                                 field="synthetic")
            docs.append(doc)
        res = compare(docs[0], docs[1], base_role=role, other_role="shadow", alpha=alpha,
                      paired=not no_paired)
        _print(res)
        if json_out is not None:
            json_out.parent.mkdir(parents=True, exist_ok=True)
            json_out.write_bytes(orjson.dumps(res.as_dict(), option=orjson.OPT_INDENT_2))
        if res.decision == "block":
            raise GateFailed(f"release compare: block ({', '.join(res.blocking)})")


def _print(res: Any) -> None:
    from rich import box
    from rich.table import Table

    from rcaeval._numfmt import display_value
    from rcaeval.cli._console import out_console

    console = out_console()
    none = "no package recorded"
    base_pk = ", ".join(res.packages["base"]) or none
    other_pk = ", ".join(res.packages["other"]) or none
    console.print(f"{res.base_role}: {res.base_path} ({base_pk})\n"
                  f"shadow: {res.other_path} ({other_pk})\n"
                  f"window {res.window['start']}..{res.window['end']}", highlight=False)
    for n in res.notes:
        console.print(f"[bold yellow]NOTE:[/] {n}", highlight=False)
    table = Table(title=f"release compare: {res.base_role} vs shadow", box=box.SIMPLE_HEAD,
                  pad_edge=False)
    for col in ("metric", res.base_role, "shadow", "delta", "pairs", "b/c", "p", "verdict"):
        table.add_column(col, no_wrap=col != "metric")
    for r in res.rows:
        kind = r.kind
        table.add_row(r.metric, display_value(r.base, kind=kind),
                      display_value(r.other, kind=kind),
                      "" if r.delta is None else f"{r.delta:+.4g}",
                      "" if r.pairs is None else str(r.pairs),
                      "" if r.pairs is None else f"{r.base_only}/{r.other_only}",
                      "" if r.p_value is None else f"{r.p_value:.3g}",
                      r.verdict.upper() if r.blocks else r.verdict)
    console.print(table)
    console.print(f"decision: {res.decision.upper()}"
                  + (f" ({', '.join(res.blocking)})" if res.blocking else ""), highlight=False)
