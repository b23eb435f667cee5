"""`rcaeval synth`: generate the sample registry/recorded runs, or N benchmark runs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    synth = typer.Typer(
        help="Deterministic generator of sample registries and recorded agent runs "
        "(docs/synth.md).",
        no_args_is_help=True,
    )
    app.add_typer(synth, name="synth")

    @synth.command("sample")
    def sample(
        out: Annotated[Path | None, typer.Option(
            "--out", help="Data root to write registry/ and recorded/ into "
            "(default: the repo's data/, i.e. $RCAEVAL_DATA or data/).")] = None,
        seed: Annotated[int | None, typer.Option(
            "--seed", help="Seed (default: the shipped sample's seed).")] = None,
    ) -> None:
        """Regenerate the smoke-suite registry and the rec-<behaviour> recorded runs."""
        from rcaeval._paths import data_dir
        from rcaeval.synth import SAMPLE_SEED, generate_sample

        root = out or data_dir()
        case_ids = generate_sample(root, seed=SAMPLE_SEED if seed is None else seed)
        expected = (root / "recorded" / "EXPECTED.csv").read_text("utf-8").splitlines()
        typer.echo(f"wrote {len(case_ids)} cases to {root / 'registry'} and "
                   f"{len(expected) - 1} recorded runs to {root / 'recorded'}")

    @synth.command("runs")
    def runs(
        n: Annotated[int, typer.Option("--n", min=0, help="Number of case runs to write.")],
        out: Annotated[Path, typer.Option("--out", help="Output root (registry/ + recorded/).")],
        seed: Annotated[int, typer.Option("--seed", help="Seed.")] = 0,
        variants: Annotated[int, typer.Option(
            "--variants", min=1,
            help="Variants per scenario; each run id holds every variant case once "
                 "(scenarios x variants cases, e.g. --variants 770 for 10,010 cases). Case "
                 "ids <scenario>-vNN up to 100 variants, -vNNN up to 1000, and so on.")] = 8,
    ) -> None:
        """Stream N recorded runs over scenario variants (benchmarks)."""
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        from rcaeval.synth import generate_runs

        with Progress(TextColumn("synth runs"), BarColumn(), MofNCompleteColumn(),
                      TimeRemainingColumn(), transient=False) as progress:
            task = progress.add_task("runs", total=n)
            summary = generate_runs(
                out, n, seed, variants=variants,
                on_progress=lambda done: progress.update(task, completed=done),
            )
        typer.echo(f"wrote {summary.n_runs} runs in {summary.run_ids} run ids over "
                   f"{summary.cases} cases to {out}")
