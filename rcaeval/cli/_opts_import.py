"""Options every `rcaeval import <source>` command shares (docs/import.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

OutOpt = Annotated[Path, typer.Option(
    "--out", help="The incident dir to write, or a case dir (case.yaml or case.json beside "
    "incident/) whose incident/ it means; written whole or not at all.", show_default=False)]
WindowOpt = Annotated[str | None, typer.Option(
    "--window", help="Keep only records inside START..END (ISO-8601 UTC, e.g. "
    "2026-10-03T14:00:00Z..2026-10-03T15:00:00Z); default: everything.", show_default=False)]
