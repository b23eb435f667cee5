"""`rcaeval offline ...`: offline evaluation over fixtures and public benchmark formats
(docs/offline.md). Each command only parses its options and calls into rcaeval.offline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

EXIT_HELP = ("Exit codes: 0 ok; 3 a fixture line is invalid (named on stderr with file, line "
             "and field; the other lines are still scored); 4 a threshold, baseline or gate "
             "failed; 6 a file does not exist.")


def register(app: typer.Typer) -> None:
    offline = typer.Typer(
        help="Offline evaluation: fixtures of captured RCA responses, the novel-incident "
        "gate, novelty mutations, public benchmark formats (docs/offline.md).",
        no_args_is_help=True,
    )
    app.add_typer(offline, name="offline")

    @offline.command("score", help=(
        "Per-case-type metrics over a JSONL fixture file (known Top-1/Top-3; compositional "
        "causal order, competing hypotheses, discriminating checks; novel grounding, "
        "calibrated uncertainty, investigation plan, no forced familiar family; tool-degraded "
        "missing data and safe fallback), each with a Wilson interval. " + EXIT_HELP))
    def score(
        fixtures: Annotated[Path, typer.Option("--fixtures", help="JSONL fixture file.")],
        min_top1: Annotated[float | None, typer.Option(
            "--min-top1", help="Fail (exit 4) when known Top-1 is below this rate.")] = None,
        baseline: Annotated[Path | None, typer.Option(
            "--baseline", help="Fail (exit 4) when fewer known cases are Top-1 than this "
            "baseline file records.")] = None,
        write_baseline: Annotated[Path | None, typer.Option(
            "--write-baseline", help="Store this score as a baseline file (only when every "
            "line is valid and nothing failed).")] = None,
        json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
        cases_out: Annotated[Path | None, typer.Option(
            "--cases-out", help="Write the per-case rows (.parquet, else JSONL).")] = None,
        max_open_world_high_confidence: Annotated[int, typer.Option(
            "--max-open-world-high-confidence", help="Fail (exit 4) when more open-world "
            "(novel) cases than this state an unsupported high-confidence cause (default 0: "
            "zero tolerance).")] = 0,
    ) -> None:
        from rcaeval.cli._offline_commands import score_command

        raise typer.Exit(score_command(fixtures, min_top1, baseline, write_baseline,
                                       json_out, cases_out, max_open_world_high_confidence))

    @offline.command("novel-gate", help=(
        "Novel-incident E2E output gate over captured post-harness responses: fails on any "
        "false novel result, evidence-link precision or recall below 100%, an incorrect "
        "abstention, or unsafe output. " + EXIT_HELP))
    def novel_gate(
        fixtures: Annotated[Path | None, typer.Option(
            "--fixtures", help="JSONL capture fixtures (a capture/1 export is detected).")
        ] = None,
        captures: Annotated[Path | None, typer.Option(
            "--captures", help="A capture/1 export (JSONL, Parquet or a directory), as "
            "`release metrics` reads it.")] = None,
        reviews: Annotated[Path | None, typer.Option(
            "--reviews", help="--captures: operator reviews labelling unlabelled captures.")
        ] = None,
        window: Annotated[str | None, typer.Option(
            "--window", help="--captures: START..END on captured_at (UTC, half-open).")
        ] = None,
        stage: Annotated[str | None, typer.Option(
            "--stage", help="--captures: grade one stage only.")] = None,
        json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
        cases_out: Annotated[Path | None, typer.Option(
            "--cases-out", help="Write the per-case rows (.parquet, else JSONL).")] = None,
    ) -> None:
        from rcaeval.cli._offline_commands import gate_command

        raise typer.Exit(gate_command(fixtures, json_out, cases_out, captures=captures,
                                      reviews=reviews, window=window, stage=stage))

    @offline.command("sample")
    def sample(
        out: Annotated[Path | None, typer.Option(
            "--out", help="Directory (default: data/offline of $RCAEVAL_DATA or the repo).")
        ] = None,
        seed: Annotated[int | None, typer.Option("--seed", help="Seed.")] = None,
    ) -> None:
        """Regenerate the sample fixtures, gate captures and baseline (deterministic)."""
        from rcaeval.cli._offline_commands import sample_command

        raise typer.Exit(sample_command(out, seed))

    @offline.command("mutate", help=(
        "Novelty mutations of known cases: remove_signature, omit_symptom, "
        "add_contradictory, remove_source, shift_window, each with the outcome it implies "
        "(a provisional or unresolved answer can be right; forcing the familiar family is a "
        "failure). --fixtures F writes mutated fixtures (JSONL) to --out; --bundles DIR (a "
        "recorded run dir or one case dir) writes mutated case dirs with mutation.json under "
        "--out. Exit 3 when nothing could be mutated."))
    def mutate(
        out: Annotated[Path, typer.Option("--out", help="Output JSONL file (--fixtures) or "
                                          "directory (--bundles).")],
        fixtures: Annotated[Path | None, typer.Option("--fixtures", help="Fixture JSONL.")]
        = None,
        bundles: Annotated[Path | None, typer.Option(
            "--bundles", help="Recorded run dir (data/recorded/<run>) or one case dir.")] = None,
        mutation: Annotated[list[str] | None, typer.Option(
            "--mutation", "-m", help="Mutation(s) to apply (default: all).")] = None,
        case: Annotated[list[str] | None, typer.Option(
            "--case", help="Only these case ids (fixtures: any case type).")] = None,
        registry: Annotated[Path | None, typer.Option(
            "--registry", envvar="RCAEVAL_REGISTRY",
            help="Registry whose judge.yaml names each case's signature (--bundles).")] = None,
        channel: Annotated[str, typer.Option(
            "--channel", help="remove_source on bundles: the channel to remove.")] = "logs",
    ) -> None:
        from rcaeval.cli._offline_commands import mutate_command

        raise typer.Exit(mutate_command(fixtures, bundles, out, mutation, case, registry,
                                        channel))

    @offline.command("openrca")
    def openrca(
        query: Annotated[Path, typer.Option("--query", help="OpenRCA query file (row_id, "
                                            "task_index, instruction, scoring_points).")],
        predictions: Annotated[Path, typer.Option("--predictions", help="Predictions file "
                                                  "(row_id, prediction).")],
        out: Annotated[Path | None, typer.Option("--out", help="Write per-row scores (CSV).")]
        = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")]
        = False,
    ) -> None:
        """Score predictions exactly as OpenRCA's evaluator does: rows, strict, partial, mean,
        per-criterion accuracy beside the no-information baseline, Wilson intervals."""
        from rcaeval._inputs import check_output_file
        from rcaeval.offline import render_openrca_summary, score_openrca

        if out is not None:
            check_output_file(out, field="--out")
        result = score_openrca(query, predictions, out)
        if as_json:
            typer.echo(json.dumps(result.summary.as_dict(), indent=2))
        else:
            typer.echo(render_openrca_summary(result.summary))
            if out is not None:
                typer.echo(f"\nper-row scores: {out}")

    from rcaeval.cli._offline_openrca_run import register as register_openrca_run

    register_openrca_run(offline)

    @offline.command("ranked")
    def ranked(
        truth: Annotated[Path, typer.Option("--truth", help="Truth file (CSV or JSONL): "
                                            "case_id, root_cause[, candidates].")],
        ranks: Annotated[Path, typer.Option("--ranks", help="Ranked lists: JSONL {case_id, "
                                            "ranks: [...]} or CSV case_id, rank, candidate.")],
        out: Annotated[Path | None, typer.Option("--out", help="Write per-case ranks (CSV).")]
        = None,
        max_k: Annotated[int, typer.Option("--max-k", min=1, help="Report k = 1..MAX_K.")] = 5,
        as_json: Annotated[bool, typer.Option("--json", help="Print the table as JSON.")]
        = False,
    ) -> None:
        """AC@k and Avg@k of ranked candidate lists (RCAEval style) beside the chance
        baseline (a random ranking of each case's candidates) and the lift over it."""
        from rcaeval._inputs import check_output_file
        from rcaeval.offline import render_ranked, score_ranked

        if out is not None:
            check_output_file(out, field="--out")
        result = score_ranked(truth, ranks, out, max_k)
        typer.echo(json.dumps(result.as_dict(), indent=2) if as_json else render_ranked(result))

    @offline.command("compare")
    def compare(
        a: Annotated[Path, typer.Argument(help="Per-row file of system A (CSV or JSONL).")],
        b: Annotated[Path, typer.Argument(help="Per-row file of system B, same rows.")],
        min_score: Annotated[float, typer.Option("--min-score", help="With a score column: "
                                                 "a row is correct when score >= this.")]
        = 1.0,
        as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]
        = False,
    ) -> None:
        """Exact paired McNemar test of two systems on the same rows (row_id or case_id;
        correct, or score >= --min-score): discordant counts and the two-sided p-value."""
        from rcaeval.offline import compare_files, render_comparison

        result = compare_files(a, b, min_score)
        typer.echo(json.dumps(result.as_dict(), indent=2) if as_json
                   else render_comparison(result))
