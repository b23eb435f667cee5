"""The one stdout console of the CLI's tables: on a terminal, as wide as the terminal (rich's
detection: ``COLUMNS`` when set, else the tty's size), so a table never runs past an
80-column window; written to a pipe or a file (a CI log), :data:`LOG_WIDTH` columns (or a
wider ``COLUMNS``), so ids are not folded."""

from __future__ import annotations

import os
import sys
from typing import Any

from rich.console import Console

LOG_WIDTH = 140
"""Width of tables written to a pipe or a file."""


def table_width(stream: Any = None) -> int:
    """The width tables are laid out for on ``stream`` (default stdout)."""
    stream = stream or sys.stdout
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError, OSError):
        tty = False
    if tty:
        return Console(file=stream).width
    columns = os.environ.get("COLUMNS", "").strip()
    return max(int(columns), LOG_WIDTH) if columns.isdigit() else LOG_WIDTH


def out_console(**kwargs: Any) -> Console:
    """A stdout :class:`rich.console.Console` of :func:`table_width` columns."""
    return Console(width=table_width(), **kwargs)


def wrap_identifier(name: str, width: int) -> str:
    """``name`` broken into lines of at most ``width`` characters after its ``_`` / ``-`` /
    ``.`` separators (``groundless_high_`` / ``confidence``), so a narrow table column
    never cuts a word; a part longer than ``width`` stays whole."""
    import re

    if width <= 0 or len(name) <= width:
        return name
    lines: list[str] = []
    line = ""
    for part in re.split(r"(?<=[_.-])", name):
        if line and len(line) + len(part) > width:
            lines.append(line)
            line = ""
        line += part
    lines.append(line)
    return "\n".join(lines)
