"""What the `rcaeval offline ...` commands print and which exit code they return. The typer
definitions in rcaeval/cli/_cmd_offline.py only parse options and call these."""

from __future__ import annotations

from pathlib import Path

import orjson
import polars as pl
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from rcaeval._inputs import check_output_dir, check_output_file
from rcaeval.cli._console import table_width
from rcaeval.errors import ExitCode
from rcaeval.offline import FixtureError

_OUT = Console(width=table_width(), highlight=False)
_ERR = Console(stderr=True, highlight=False, soft_wrap=True)


def _fmt(v: float | None, digits: int = 3) -> str:
    return "-" if v is None else f"{v:.{digits}f}"


def metrics_table(title: str, metrics: pl.DataFrame) -> Table:
    table = Table(title=title)
    for col in ("metric", "value", "n", "95% CI"):
        table.add_column(col)
    for r in metrics.iter_rows(named=True):
        if r["kind"] == "rate":
            n = f"{int(r['numerator'])}/{r['denominator']}"
            ci = "-" if r["ci_low"] is None else f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
            table.add_row(r["metric"], _fmt(r["value"]), n, ci)
        else:
            table.add_row(r["metric"], _fmt(r["value"], 0), "", "")
    return table


def report_errors(errors: list[FixtureError]) -> None:
    for e in errors:
        _ERR.print(f"[red]invalid:[/red] {escape(e.render())}")


def write_cases(frame: pl.DataFrame, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.suffix == ".parquet":
        frame.write_parquet(out)
    else:
        out.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in frame.to_dicts()))


def _exit(ok_failures: list[str], errors: list[FixtureError]) -> int:
    if errors:
        return int(ExitCode.INVALID_INPUT)
    if ok_failures:
        return int(ExitCode.GATE_FAILED)
    return int(ExitCode.OK)


def score_command(fixtures: Path, min_top1: float | None, baseline: Path | None,
                  write_baseline_to: Path | None, as_json: bool,
                  cases_out: Path | None, max_open_world_high_confidence: int = 0) -> int:
    from rcaeval.offline import score_fixtures, write_baseline

    if cases_out is not None:
        check_output_file(cases_out, field="--cases-out")
    if write_baseline_to is not None:
        check_output_file(write_baseline_to, field="--write-baseline")
    s = score_fixtures(fixtures, min_top1=min_top1, baseline=baseline,
                       max_open_world_high_confidence=max_open_world_high_confidence)
    report_errors(s.errors)
    if as_json:
        print(orjson.dumps(s.as_dict(), option=orjson.OPT_INDENT_2).decode())
    else:
        _OUT.print(metrics_table(f"offline score: {escape(str(fixtures))}", s.metrics))
        c, t = s.known_top1
        _OUT.print(f"known Top-1: {c}/{t}" + (f"   baseline: "
                   f"{s.baseline['known_top1']['correct']}/{s.baseline['known_top1']['total']}"
                   if s.baseline else ""))
        ni = s.no_information
        if ni is not None and ni.n:
            _OUT.print(f"no-information baseline (always {escape(str(ni.label))}): "
                       f"{ni.hits}/{ni.n}")
        mc = s.versus_baseline
        if mc is not None:
            _OUT.print(f"paired exact McNemar vs the baseline: Top-1 only in the baseline "
                       f"{mc.b}, only now {mc.c}, p = {mc.p_value:.4f}")
        for f in s.failures:
            _OUT.print(f"[red]FAIL[/red] {escape(f)}")
    if cases_out is not None:
        write_cases(s.cases, cases_out)
    if write_baseline_to is not None:
        if s.errors or s.failures:
            _ERR.print("[yellow]baseline not written:[/yellow] the score has "
                       + ("invalid fixture lines" if s.errors else "failures"))
        else:
            write_baseline(s, write_baseline_to)
            _OUT.print(f"wrote baseline {escape(str(write_baseline_to))}")
    return _exit(s.failures, s.errors)


def gate_command(fixtures: Path | None, as_json: bool, cases_out: Path | None, *,
                 captures: Path | None = None, reviews: Path | None = None,
                 window: str | None = None, stage: str | None = None) -> int:
    from rcaeval.errors import InputError
    from rcaeval.offline import novel_gate, read_capture_fixtures

    if (fixtures is None) == (captures is None):
        raise InputError("give exactly one of --fixtures and --captures", field="--fixtures")
    if captures is None and (reviews or window or stage):
        raise InputError("--reviews, --window and --stage go with --captures",
                         field="--captures")
    if cases_out is not None:
        check_output_file(cases_out, field="--cases-out")
    source = fixtures if captures is None else read_capture_fixtures(
        captures, reviews=reviews, window=window, stage=stage)
    g = novel_gate(source)
    shown = captures or fixtures
    report_errors(g.errors)
    if g.ungraded:
        _ERR.print(f"[yellow]{len(g.ungraded)} capture(s) not graded[/yellow]: no case type "
                   "label (their own labels or an operator review with their analysis_hash; "
                   "--reviews)")
    if as_json:
        print(orjson.dumps(g.as_dict(), option=orjson.OPT_INDENT_2).decode())
    else:
        _OUT.print(metrics_table(f"novel-incident gate: {escape(str(shown))}", g.metrics))
        for f in g.failures:
            _OUT.print(f"[red]FAIL[/red] {escape(f)}")
        _OUT.print("[green]gate passed[/green]" if g.ok else "[red]gate failed[/red]")
    if cases_out is not None:
        write_cases(g.cases, cases_out)
    return _exit(g.failures, g.errors)


def sample_command(out: Path | None, seed: int | None) -> int:
    from rcaeval._paths import data_dir
    from rcaeval.offline import OFFLINE_SEED, generate_offline_sample

    root = check_output_dir(out or data_dir() / "offline", field="--out")
    info = generate_offline_sample(root, OFFLINE_SEED if seed is None else seed)
    top = info["known_top1"]
    _OUT.print(f"wrote {info['fixtures']} fixtures, {info['novel_e2e']} gate captures and "
               f"the baseline (known Top-1 {top['correct']}/{top['total']}) to "
               f"{escape(str(root))}")
    return 0


def mutate_command(fixtures: Path | None, bundles: Path | None, out: Path,
                   mutations: list[str] | None, cases: list[str] | None,
                   registry: Path | None, channel: str) -> int:
    from rcaeval.errors import InputError
    from rcaeval.offline import MUTATIONS, dump_fixtures, mutate_fixtures, mutate_run

    if (fixtures is None) == (bundles is None):
        raise InputError("give exactly one of --fixtures and --bundles", field="--fixtures")
    names = mutations or list(MUTATIONS)
    if fixtures is not None:
        check_output_file(out, field="--out")
    else:
        check_output_dir(out, field="--out")
    if fixtures is not None:
        mutated, skipped = mutate_fixtures(fixtures, names, cases)
        for msg in skipped:
            _ERR.print(f"[yellow]skipped:[/yellow] {escape(msg)}")
        if not mutated:
            raise InputError("no case could be mutated (only known cases are, unless --case "
                             "names others)", file=str(fixtures))
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(dump_fixtures(mutated))
        _OUT.print(f"wrote {len(mutated)} mutated fixtures to {escape(str(out))}")
        return 0
    assert bundles is not None
    results = mutate_run(bundles, names, out, registry=registry, channel=channel, cases=cases)
    written = [r for r in results if isinstance(r[2], Path)]
    for case_id, m, res in results:
        if not isinstance(res, Path):
            _ERR.print(f"[yellow]skipped:[/yellow] {escape(case_id)} {m}: {escape(res)}")
    if not written:
        raise InputError("no case could be mutated", file=str(bundles))
    _OUT.print(f"wrote {len(written)} mutated case dirs under {escape(str(out))} "
               "(each with mutation.json)")
    return 0
