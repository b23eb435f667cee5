"""What `rcaeval validate` prints as text: each problem in a table (every one must be fixed),
the warnings summarised per code (one line with the first message, then where the others
are), so a registry whose cases share one warning does not print a screen per case.
``--format json`` lists every problem and warning in full."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.padding import Padding
from rich.table import Table
from rich.text import Text


def print_findings(console: Console, reg: Any) -> None:
    """The problems table and the warning summary of a loaded registry."""
    if reg.problems:
        table = Table(title=f"{len(reg.problems)} problem(s) in {reg.root}", title_justify="left")
        table.add_column("file:line", overflow="fold")
        table.add_column("field", overflow="fold")
        table.add_column("code", overflow="fold")
        table.add_column("message", overflow="fold", ratio=1)
        for p in reg.problems:
            table.add_row(p.where(), p.field, p.code, p.message)
        console.print(table)
    if reg.warnings:
        by_code: dict[str, list[Any]] = {}
        for w in reg.warnings:
            by_code.setdefault(w.code, []).append(w)
        console.print(f"{len(reg.warnings)} warning(s) in {reg.root} "
                      "(`rcaeval validate --format json` lists each):",
                      highlight=False, soft_wrap=False, markup=False)
        for code, found in by_code.items():
            first = found[0]
            console.print(Padding(Text(f"{code} ({len(found)}): {first.message}"), (0, 0, 0, 2)))
            console.print(Padding(Text(f"in: {compress_paths([w.where() for w in found])}"),
                                  (0, 0, 0, 4)))


def compress_paths(paths: list[str]) -> str:
    """``cases/{a, b}/case.yaml:1`` for ``cases/a/case.yaml:1`` and ``cases/b/case.yaml:1``:
    the common leading and trailing path parts once; otherwise the paths comma-separated."""
    import os

    if len(paths) < 2:
        return ", ".join(paths)
    head = os.path.commonprefix(paths)
    head = head[: head.rfind("/") + 1]
    tail = os.path.commonprefix([p[len(head):][::-1] for p in paths])[::-1]
    tail = tail[tail.find("/"):] if "/" in tail else ""
    middles = [p[len(head): len(p) - len(tail)] for p in paths]
    if not (head or tail) or any(not m for m in middles):
        return ", ".join(paths)
    return f"{head}{{{', '.join(middles)}}}{tail}"
