"""`rcaeval release ...`: metrics over an exported capture window, the release gate, operator
reviews and knowledge candidates (docs/release.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from rcaeval._inputs import check_output_dir, check_output_file
from rcaeval.cli._opts import DbOpt

GATE_EXIT_HELP = (
    "Exit codes: 0 every gate passes; 4 a gate fails (a metric misses its threshold or was "
    "not measured, invalid captures or reviews in the window); 3 the artifact is refused: it "
    "cannot decide (no provenance, edited after measurement, unsigned or wrongly signed when "
    "a key is configured, a field of the wrong type or range, synthetic without "
    "--allow-synthetic, another stage than --stage, too old for --stage); 6 no such file."
)
KEY_HELP = ("a key file (HMAC-SHA256 secret, or an Ed25519 PEM key) or env:NAME; default "
            "$RCAEVAL_RELEASE_KEY when set (docs/release.md, Signing)")



def register(app: typer.Typer) -> None:
    release = typer.Typer(
        help="Release gate: metrics over an exported window of captured responses, the gate "
        "itself, operator reviews and knowledge candidates (docs/release.md).",
        no_args_is_help=True,
    )

    @release.command("metrics", help=(
        "Compute every release gate metric over the captures of a window and write the "
        "metrics JSON (with provenance and a .sha256 sidecar). Exit codes: 0 written; 3 some "
        "capture or review is invalid (named on stderr; the others are measured and the "
        "artifact is still written, recording them); 6 no such file."
    ))
    def metrics_cmd(
        captures: Annotated[Path, typer.Option(
            "--captures", help="Capture export: .jsonl or .parquet, or a directory of them.")],
        window: Annotated[str, typer.Option(
            "--window", help="START..END on captured_at: dates (END day included) or ISO "
            "timestamps (END excluded), UTC.")],
        out: Annotated[Path, typer.Option("--out", help="Metrics JSON to write.")],
        reviews: Annotated[Path | None, typer.Option(
            "--reviews", help="Operator reviews (.jsonl or .csv) that label captures.")] = None,
        stage: Annotated[str | None, typer.Option(
            "--stage", help="Measure only captures of this stage.")] = None,
        confidence: Annotated[float, typer.Option(
            "--confidence", help="Confidence level of the Wilson intervals.")] = 0.95,
        memory_limit: Annotated[str | None, typer.Option(
            "--memory-limit", help="DuckDB memory limit, e.g. 2GB.")] = None,
        record: Annotated[bool, typer.Option(
            "--record", help="Also record the window's metrics and gate decision in the store "
            "(the release-gate report's trend; idempotent).")] = False,
        db: DbOpt = None,
        sign_key: Annotated[str | None, typer.Option(
            "--sign-key", help="Sign the artifact with this key: " + KEY_HELP + ".")] = None,
    ) -> None:
        from rcaeval.release import check_confidence, load_key, measure, write_metrics_json

        check_output_file(out, field="--out")
        check_output_file(f"{out}.sha256", field="--out")
        check_confidence(confidence)
        key = load_key(sign_key, field="sign_key")
        m = measure(captures, window, reviews=reviews, stage=stage, confidence=confidence,
                    memory_limit=memory_limit)
        doc = write_metrics_json(m, out, sign_key=key)
        _print_metrics(doc)
        if record:
            _record(out, db, allow_synthetic=False, verify_key=key)
        if m.problems:
            _print_problems(m.problems)
            raise typer.Exit(3)

    @release.command("gate", help=(
        "Check a metrics JSON against the release gate thresholds and print metric / value / "
        "threshold / pass. " + GATE_EXIT_HELP
    ))
    def gate_cmd(
        artifact: Annotated[Path, typer.Argument(help="Metrics JSON from `release metrics`.")],
        allow_synthetic: Annotated[bool, typer.Option(
            "--allow-synthetic", help="TEST-ONLY: accept an artifact marked synthetic.")] = False,
        stage: Annotated[str | None, typer.Option(
            "--stage", help="staging|shadow|assist|authoritative: the stage the artifact must "
            "have measured (assist/authoritative also require a fresh artifact).")] = None,
        strict: Annotated[bool, typer.Option(
            "--strict", help="A rate passes only if its Wilson interval bound clears the "
            "threshold (small windows cannot pass by luck).")] = False,
        max_age_days: Annotated[float, typer.Option(
            "--max-age-days", help="Freshness limit for assist/authoritative.")] = 7.0,
        json_out: Annotated[Path | None, typer.Option(
            "--json-out", help="Also write the gate result as JSON.")] = None,
        verify_key: Annotated[str | None, typer.Option(
            "--verify-key", help="Refuse the artifact unless its signature verifies with this "
            "key: " + KEY_HELP + ".")] = None,
        require_package: Annotated[str | None, typer.Option(
            "--require-package", help="Refuse (exit 3) an artifact not measured on this "
            "knowledge package alone.")] = None,
        require_activation_path: Annotated[str | None, typer.Option(
            "--require-activation-path", help="Refuse (exit 3) an artifact not measured on "
            "this activation path alone.")] = None,
    ) -> None:
        import orjson

        from rcaeval.errors import GateFailed
        from rcaeval.release import check_gate, load_artifact

        if json_out is not None:
            check_output_file(json_out, field="--json-out")
        doc = load_artifact(artifact, verify_key=verify_key)
        res = check_gate(doc, allow_synthetic=allow_synthetic, strict=strict, stage=stage,
                         max_age_days=max_age_days, require_package=require_package,
                         require_activation_path=require_activation_path)
        _print_gate(res, doc)
        if json_out is not None:
            json_out.parent.mkdir(parents=True, exist_ok=True)
            json_out.write_bytes(orjson.dumps(res.as_dict(), option=orjson.OPT_INDENT_2))
        if not res.passed:
            raise GateFailed(f"release gate failed: {', '.join(res.failed)}")

    @release.command("record", help=(
        "Record a metrics JSON's window (metrics, gate decision, provenance) in the store, for "
        "the trend across windows; recording the same artifact again changes nothing. Exit "
        "codes: 0 recorded (or already recorded); 3 the artifact is refused (as by `release "
        "gate`); 6 no such file."))
    def record_cmd(
        artifact: Annotated[Path, typer.Argument(help="Metrics JSON from `release metrics`.")],
        db: DbOpt = None,
        allow_synthetic: Annotated[bool, typer.Option(
            "--allow-synthetic", help="TEST-ONLY: record an artifact marked synthetic.")] = False,
        verify_key: Annotated[str | None, typer.Option(
            "--verify-key", help="Refuse the artifact unless its signature verifies with this "
            "key: " + KEY_HELP + ".")] = None,
    ) -> None:
        _record(artifact, db, allow_synthetic=allow_synthetic, verify_key=verify_key)

    @release.command("windows", help=(
        "List the release windows recorded in the store (oldest first; the latest "
        "measurement of each window and stage): gate decision, failing metrics, captures, "
        "measurement job and artifact checksum."))
    def windows_cmd(
        db: DbOpt = None,
        stage: Annotated[str | None, typer.Option(
            "--stage", help="Only this stage ('all': measured over every stage).")] = None,
        synthetic: Annotated[bool, typer.Option(
            "--synthetic/--no-synthetic", help="Include windows of synthetic artifacts.")
        ] = True,
        json_out: Annotated[Path | None, typer.Option(
            "--json-out", help="Also write the rows as JSON lines.")] = None,
    ) -> None:
        import polars as pl

        from rcaeval.release import stored_windows
        from rcaeval.store import connect

        if json_out is not None:
            check_output_file(json_out, field="--json-out")
        with connect(db, read_only=True) as store:
            frame = stored_windows(store, stage=stage, include_synthetic=synthetic)
        _print_frame("release windows", frame.select(
            "window_spec", "stage", pl.when(pl.col("gate_passed")).then(pl.lit("pass"))
            .otherwise(pl.lit("FAIL")).alias("gate"),
            pl.col("failed").list.join(", ").alias("failing"), "captures_in_window",
            "synthetic", "measurements", "computed_at",
            pl.col("artifact_sha256").str.slice(0, 12).alias("sha256")))
        if json_out is not None:
            json_out.parent.mkdir(parents=True, exist_ok=True)
            frame.write_ndjson(json_out)

    from rcaeval.cli._cmd_notebook import RELEASE_REPORT_HELP, release_report

    release.command("report", help=RELEASE_REPORT_HELP)(release_report)

    @release.command("sample", help=(
        "Write a generated capture window (deterministic for --seed: every case type, a "
        "realistic mix with some failures, reviews with re-analyses, TypeDB outage tests) and "
        "the release_gate.synthetic.*.json files into --out."
    ))
    def sample_cmd(
        out: Annotated[Path, typer.Option("--out", help="Directory.")] = Path("data/captures"),
        n: Annotated[int, typer.Option("--n", help="Captures.")] = 6000,
        seed: Annotated[int, typer.Option("--seed")] = 12,
        name: Annotated[str, typer.Option("--name", help="File stem.")] = "sample-window",
        shadow: Annotated[bool, typer.Option(
            "--shadow/--no-shadow", help="Also write the shadow window (same incidents, the "
            "shadow knowledge package) to OUT/shadow/.")] = True,
    ) -> None:
        from rcaeval.release import SampleSpec, write_sample, write_shadow, write_synthetic_files

        check_output_dir(out, field="--out")
        spec = SampleSpec(n=n, seed=seed)
        info = write_sample(out, spec, name=name)
        files = write_synthetic_files(out)
        typer.echo(f"wrote {info['n_captures']} captures to {info['captures']}, "
                   f"{info['n_reviews']} reviews to {info['reviews']}, and "
                   f"{', '.join(p.name for p in files)}")
        if shadow:
            sh = write_shadow(out, spec)
            typer.echo(f"wrote {sh['n_captures']} shadow captures to {sh['captures']}")

    from rcaeval.cli._release_compare import register_compare

    register_compare(release)

    reviews = typer.Typer(help="Operator reviews: validate, import into the store, history "
                          "across re-analyses, verified actions.", no_args_is_help=True)
    release.add_typer(reviews, name="reviews")

    @reviews.command("validate", help="Validate operator reviews (.jsonl or .csv). Exit 3 "
                     "when any row is invalid (each named with file, line and field).")
    def reviews_validate(file: Annotated[Path, typer.Argument(help="Reviews file.")]) -> None:
        from rcaeval.release import read_reviews

        rf = read_reviews(file)
        typer.echo(f"{len(rf.reviews)} valid review(s), {len(rf.problems)} invalid")
        if rf.problems:
            _print_problems(rf.problems)
            raise typer.Exit(3)

    @reviews.command("import", help=(
        "Validate reviews (.jsonl or .csv) and store the valid ones; re-importing is "
        "idempotent, an edited review replaces its row. --captures records which analysis of "
        "each incident is current (a re-analysis opens a new review surface). Exit 3 when any "
        "row is invalid (the valid ones are still imported)."))
    def reviews_import(
        file: Annotated[Path, typer.Argument(help="Reviews file.")],
        captures: Annotated[Path | None, typer.Option(
            "--captures", help="Capture export whose analyses date the reviews.")] = None,
        db: DbOpt = None,
    ) -> None:
        from rcaeval.release import import_reviews
        from rcaeval.store import connect

        with connect(db) as store:
            res = import_reviews(store, file, captures=captures)
        typer.echo(f"{res.new} new, {res.changed} changed, {res.unchanged} unchanged, "
                   f"{len(res.problems)} invalid; {res.analyses_from_captures} analyses from "
                   "captures")
        if res.problems:
            _print_problems(res.problems)
            raise typer.Exit(3)

    @reviews.command("history", help="Stored reviews with their state (current / historical) "
                     "and whether each is the effective review of its analysis.")
    def reviews_history(
        incident: Annotated[str | None, typer.Option("--incident")] = None,
        db: DbOpt = None,
    ) -> None:
        from rcaeval.release import review_history
        from rcaeval.store import connect

        with connect(db, read_only=True) as store:
            frame = review_history(store, incident)
        _print_frame("review history", frame.select(
            "incident", "analysis_hash", "review_id", "reviewed_at", "state", "effective",
            "passing", "resolution_outcome", "action_that_worked"))

    @reviews.command("actions", help="Verified actions: actions that worked, from effective "
                     "reviews whose outcome is resolved or mitigated (never from a report "
                     "recommendation alone).")
    def reviews_actions(
        db: DbOpt = None,
        out: Annotated[Path | None, typer.Option("--out", help="Also write JSONL.")] = None,
    ) -> None:
        from rcaeval.release import verified_actions
        from rcaeval.store import connect

        if out is not None:
            check_output_file(out, field="--out")
        with connect(db, read_only=True) as store:
            frame = verified_actions(store)
        _print_frame("verified actions", frame)
        if out is not None:
            out.parent.mkdir(parents=True, exist_ok=True)
            frame.write_ndjson(out)

    @release.command("candidates", help=(
        "Incident-derived knowledge candidates from passing reviews: the trace-ledger path, "
        "else the auditable harness_claim path (docs/release.md). Writes candidates as JSONL; "
        "rejected reviews with their reasons to --rejected-out. Exit 3 when an input row is "
        "invalid."))
    def candidates_cmd(
        reviews_file: Annotated[Path, typer.Option("--reviews", help="Reviews .jsonl/.csv.")],
        captures: Annotated[Path, typer.Option("--captures", help="Capture export.")],
        out: Annotated[Path, typer.Option("--out", help="Candidates JSONL.")],
        rejected_out: Annotated[Path | None, typer.Option("--rejected-out")] = None,
    ) -> None:
        import orjson

        from rcaeval.release import knowledge_candidates

        check_output_file(out, field="--out")
        if rejected_out is not None:
            check_output_file(rejected_out, field="--rejected-out")
        res = knowledge_candidates(reviews_file, captures)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(b"".join(orjson.dumps(c) + b"\n" for c in res.candidates))
        if rejected_out is not None:
            rejected_out.parent.mkdir(parents=True, exist_ok=True)
            rejected_out.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in res.rejected))
        paths: dict[str, int] = {}
        for c in res.candidates:
            paths[c["evidence_source"]] = paths.get(c["evidence_source"], 0) + 1
        typer.echo(f"{len(res.candidates)} candidate(s) {paths}, {len(res.rejected)} "
                   f"review(s) rejected; wrote {out}")
        if res.problems:
            _print_problems(res.problems)
            raise typer.Exit(3)

    app.add_typer(release, name="release")


def _record(artifact: Path, db: Path | None, *, allow_synthetic: bool,
            verify_key: Any = None) -> None:
    from rcaeval.release import load_artifact, record_window
    from rcaeval.store import connect

    doc = load_artifact(artifact, verify_key=verify_key)
    with connect(db) as store:
        res = record_window(store, doc, allow_synthetic=allow_synthetic)
        label = store.label
    what = "recorded" if res.new else "already recorded"
    typer.echo(f"{what}: window {res.window_start:%Y-%m-%dT%H:%MZ} .. "
               f"{res.window_end:%Y-%m-%dT%H:%MZ} stage {res.stage} (gate "
               f"{'passed' if res.gate_passed else 'FAILED'}; sha256 "
               f"{res.artifact_sha256[:12]}) in {label}")


def _print_frame(title: str, frame: Any) -> None:
    from rich.table import Table

    from rcaeval.cli._console import out_console

    table = Table(title=f"{title} ({frame.height})")
    for col in frame.columns:
        table.add_column(col)
    for row in frame.iter_rows():
        table.add_row(*(_fmt(v, column=c) for v, c in zip(row, frame.columns, strict=True)))
    out_console().print(table)


def _fmt(v: Any, *, kind: str | None = None, column: str | None = None) -> str:
    from rcaeval._numfmt import display_value

    return display_value(v, kind=kind, column=column)


def _print_metrics(doc: dict[str, Any]) -> None:
    """The measured window as tables: each metric (value by its kind, sample size, interval),
    then the population (captures read / invalid / in the window, per case type)."""
    from rich.table import Table

    from rcaeval.cli._console import out_console

    prov = doc["provenance"]
    console = out_console()
    table = Table(title=f"release metrics {prov['window']['start']} .. {prov['window']['end']}",
                  title_justify="left")
    for col in ("metric", "value", "n", "95% interval" if doc["metrics"] else "interval"):
        table.add_column(col, justify="right" if col in ("value", "n") else "left",
                         overflow="fold")
    for name, e in doc["metrics"].items():
        kind = e.get("kind")
        ci = (f"[{_fmt(e.get('ci_low'), kind='rate')}, {_fmt(e.get('ci_high'), kind='rate')}]"
              if kind == "rate" else "")
        table.add_row(name, _fmt(e["value"], kind=kind), _fmt(e.get("sample_size"),
                                                               kind="count"), ci)
    console.print(table)
    pop = prov["population"]
    caps = pop.get("captures") or {}
    popt = Table(title="population", title_justify="left")
    popt.add_column("captures")
    popt.add_column("n", justify="right")
    for key in ("read", "invalid", "in_window", "outside_window"):
        if key in caps:
            popt.add_row(key.replace("_", " "), _fmt(caps[key], kind="count"))
    for case_type, n in (pop.get("by_case_type") or {}).items():
        popt.add_row(f"case type {case_type}", _fmt(n, kind="count"))
    if pop.get("reviews") is not None:
        popt.add_row("reviews", _fmt(pop["reviews"], kind="count"))
    console.print(popt)
    console.print(f"wrote {prov['output']['path']} (sha256 {prov['output']['sha256'][:16]}…)",
                  highlight=False, soft_wrap=True)


def _print_problems(problems: list[dict[str, Any]]) -> None:
    from rich.markup import escape

    from rcaeval.cli import err_console

    for p in problems[:50]:
        err_console.print(f"[red]invalid:[/red] {escape(str(p['src']))}:{p['line']} "
                          f"\\[{escape(str(p['field']))}] {escape(str(p['message']))}",
                          highlight=False, soft_wrap=True)
    if len(problems) > 50:
        err_console.print(f"... and {len(problems) - 50} more", highlight=False)


def _print_gate(res: Any, doc: dict[str, Any] | None = None) -> None:
    from rich import box
    from rich.table import Table

    from rcaeval.cli._console import out_console, wrap_identifier

    kinds = {n: e.get("kind") for n, e in ((doc or {}).get("metrics") or {}).items()
             if isinstance(e, dict)}
    console = out_console()
    for w in res.warnings:
        console.print(f"[bold yellow]WARNING:[/] {w}", highlight=False)
    title = "release gate" + (" (strict: interval bounds)" if res.strict else "")
    if res.stage:
        title += f" for stage {res.stage}"
    rows = []
    for r in res.rows:
        ci = f"[{_fmt(r.ci[0], kind='rate')}, {_fmt(r.ci[1], kind='rate')}]" if r.ci else ""
        kind = kinds.get(r.metric) or ("rate" if r.ci else None)
        rows.append([r.metric, _fmt(r.value, kind=kind), r.threshold,
                     _fmt(r.sample_size, kind="count"), ci, "PASS" if r.passed else "FAIL",
                     r.detail])
    cols = ("metric", "value", "threshold", "n", "interval", "pass", "detail")
    # No vertical rules; the short columns never wrap; on a narrow terminal the metric names
    # break after their underscores and the detail wraps (the table fits console.width).
    widths = [max([len(c), *(len(row[i]) for row in rows)]) for i, c in enumerate(cols)]
    detail_w = min(widths[6], 16)
    metric_w = console.width - sum(w + 2 for w in widths[1:6]) - (detail_w + 2) - 2
    table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False)
    for col in cols:
        table.add_column(col, no_wrap=col not in ("metric", "detail"),
                         min_width=max(metric_w, 8) if col == "metric" else None,
                         justify="right" if col in ("value", "n") else "left")
    for row in rows:
        style = "green" if row[5] == "PASS" else "red"
        table.add_row(wrap_identifier(row[0], metric_w), *row[1:5], f"[{style}]{row[5]}[/]",
                      row[6])
    console.print(table)
    verdict = "[green]PASSED[/]" if res.passed else "[red]FAILED[/]"
    console.print(f"gate {verdict}: {len(res.rows) - len(res.failed)}/{len(res.rows)} checks "
                  f"pass ({res.source})", highlight=False)
