"""``rcaeval explain``: a judgment as a bucket -> check -> evidence tree."""

from __future__ import annotations

from typing import Any

import orjson
from rich.markup import escape
from rich.tree import Tree

from rcaeval.errors import NotFoundError

_STATUS_STYLE = {
    "pass": "green", "partial": "yellow", "fail": "red", "not_evaluated": "dim",
    "invalid": "magenta",
}


def load_judgment(con: Any, run_id: str, case_id: str) -> dict[str, Any]:
    """The stored judgment.json packet of one (run, case); :class:`NotFoundError` if none."""
    db = getattr(con, "con", con)
    rows = db.execute(
        "SELECT judgment_json FROM eval_judgment WHERE run_id = $r AND case_id = $c",
        {"r": run_id, "c": case_id},
    ).fetchall()
    row = rows[0] if rows else None
    if row is None or row[0] is None:
        raise NotFoundError(f"no judgment for run {run_id!r}, case {case_id!r}")
    return orjson.loads(row[0])


def _style(status: str | None) -> str:
    return _STATUS_STYLE.get(status or "", "white")


def _fmt_score(score: Any, max_score: Any) -> str:
    if score is None:
        return ""
    return f" {score:g}/{max_score:g}" if max_score is not None else f" {score:g}"


def _evidence_label(ev: dict[str, Any]) -> str:
    where = ev.get("file") or ""
    if ev.get("line") is not None:
        where += f":{ev['line']}"
    if ev.get("path"):
        where += f" {ev['path']}"
    excerpt = ev.get("excerpt")
    if excerpt:
        excerpt = excerpt if len(excerpt) <= 160 else excerpt[:157] + "..."
        return f"{escape(where)} [dim]{escape(repr(excerpt))}[/dim]"
    return escape(where)


def explain_tree(packet: dict[str, Any],
                 file_problems: list[str] | None = None) -> Tree:
    """A rich Tree of a judgment packet: verdict, then buckets, checks and their evidence;
    ``file_problems`` (one line per file extraction could not parse or read, with the line and
    byte of a parse error) are listed under the bundle."""
    verdict = packet.get("verdict")
    head = (
        f"[bold]{escape(packet['run_id'])} / {escape(packet['case_id'])}[/bold]  "
        f"[{_style('invalid' if verdict == 'invalid' else verdict)}]{verdict}[/] "
        f"({escape(packet.get('subtype') or '')})  score {packet.get('score'):g} "
        f"(raw {packet.get('raw_score'):g}, hard gate {packet.get('hard_gate')})"
    )
    tree = Tree(head)
    tree.add(f"[dim]reason:[/dim] {escape(packet.get('reason') or '')}")
    bundle = packet.get("bundle") or {}
    tree.add(f"[dim]bundle:[/dim] {bundle.get('status')} {escape(str(bundle.get('dir') or ''))}"
             f" [dim]{escape(bundle.get('reason') or '')}[/dim]")
    if file_problems:
        files = tree.add(f"[yellow]files not used ({len(file_problems)}):[/yellow]")
        for line in file_problems:
            files.add(escape(line))
    for b in packet.get("buckets", []):
        status = b.get("status")
        node = tree.add(
            f"[{_style(status)}]{b['bucket']}: {status}[/]"
            f"{_fmt_score(b.get('score'), b.get('max_score'))}  "
            f"[dim]{escape(b.get('reason') or '')}[/dim]"
        )
        for c in b.get("checks", []):
            mark = "[green]✓[/]" if c.get("passed") else "[red]✗[/]"
            flags = [c.get("kind")] if c.get("kind") != "check" else []
            flags += ["required"] if c.get("required") else ["optional"]
            if c.get("soft"):
                flags.append("soft")
            cnode = node.add(
                f"{mark} {escape(c['check_id'])} [dim]({', '.join(flags)}, "
                f"w={c.get('weight'):g})[/dim] {escape(c.get('reason') or '')}"
            )
            ev = c.get("evidence")
            if ev:
                cnode.add(_evidence_label(ev))
    return tree
