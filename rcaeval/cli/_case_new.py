"""`rcaeval case new ID --incident DIR`: draft a case (case.yaml, judge.yaml, expected.md)
from an incident's data; every drafted part is marked `draft: true` for review."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from rcaeval.cli._opts import RegistryOpt


def register(case_app: typer.Typer) -> None:
    @case_app.command("new")
    def new(
        case_id: Annotated[str, typer.Argument(help="The new case's id.")],
        incident: Annotated[Path, typer.Option(
            "--incident", help="The incident data dir (logs/, metrics.json, events.json, "
            "...; docs/bundle-contract.md), copied to the case's incident/.",
            show_default=False)],
        registry: RegistryOpt = None,
        family: Annotated[str | None, typer.Option(
            "--family", help="The root-cause family, if known (default: a draft 'unknown').",
            show_default=False)] = None,
        summary: Annotated[str | None, typer.Option(
            "--summary", help="The ground-truth summary, if known.", show_default=False)] = None,
        title: Annotated[str | None, typer.Option(
            "--title", help="The case title (default: the ticket's summary).",
            show_default=False)] = None,
        force: Annotated[bool, typer.Option(
            "--force", help="Replace an existing case of that id.")] = False,
    ) -> None:
        """Draft case.yaml, judge.yaml and expected.md from incident data: channels from what
        the data holds, critical-evidence checks from its signals (rising series, error and
        panic log lines, warning events). Every draft is marked `draft: true` for review."""
        from rcaeval.authoring import draft_case

        drafted = draft_case(registry, case_id, incident, family=family, summary=summary,
                             title=title, force=force)
        typer.echo(f"wrote {drafted.case_dir} (case.yaml, judge.yaml, expected.md, incident/)")
        typer.echo(f"channels with data: {', '.join(drafted.channels)}")
        typer.echo(f"critical-evidence checks drafted from the data: {len(drafted.signals)}")
        for sig in drafted.signals:
            typer.echo(f"  {sig.check_id}: {sig.description.removeprefix('Drafted: ')}")
        typer.echo(f"{len(drafted.warnings)} part(s) marked `draft: true` to review. Next: "
                   f"edit them, `rcaeval case try {case_id} --answer FILE`, add the case to a "
                   f"suite, `rcaeval validate`, `rcaeval case prove {case_id}`.")
