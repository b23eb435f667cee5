"""``rcaeval explain``: a judgment as a bucket -> check -> evidence tree."""

from __future__ import annotations

import hashlib
import html
import re
from typing import Any

import orjson
from rich.markup import escape
from rich.tree import Tree

from rcaeval._paths import read_query
from rcaeval._vocab import STRUCTURED_CHECK_ID
from rcaeval.errors import NotFoundError
from rcaeval.store import Connectable

_STATUS_STYLE = {
    "pass": "green", "partial": "yellow", "fail": "red", "not_evaluated": "dim",
    "invalid": "magenta",
}


def load_judgment(con: Connectable, run_id: str, case_id: str) -> dict[str, Any]:
    """The stored judgment.json packet of one (run, case); :class:`NotFoundError` if none."""
    db = getattr(con, "con", con)
    rows = db.execute(read_query("report/judgment_packet.sql"),
                      {"run_id": run_id, "case_id": case_id}).fetchall()
    row = rows[0] if rows else None
    if row is None or row[0] is None:
        raise NotFoundError(f"no judgment for run {run_id!r}, case {case_id!r}")
    return orjson.loads(row[0])


def load_detector_hits(con: Connectable, run_id: str, case_id: str) -> list[dict[str, Any]]:
    """The stored detector hits of one (run, case): every sentence an output detector
    matched, whether it makes the detector fire, and which rule decided it (scope via heading
    / label / causal cue; negated, hedged, demoted by which cue). Ordered by detector and
    position."""
    db = getattr(con, "con", con)
    cur = db.execute(read_query("report/detector_hits.sql"),
                     {"run_id": run_id, "case_id": case_id})
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def _style(status: str | None) -> str:
    return _STATUS_STYLE.get(status or "", "white")


def _fmt_score(score: Any, max_score: Any) -> str:
    """`` 3.33/30``: a bucket's score and maximum, at most two decimals."""
    if score is None:
        return ""

    def num(v: Any) -> str:
        return f"{float(v):.2f}".rstrip("0").rstrip(".")

    return f" {num(score)}/{num(max_score)}" if max_score is not None else f" {num(score)}"


def _evidence_where(ev: dict[str, Any]) -> str:
    """``file:line $.json.path`` of an evidence record (the parts it has)."""
    where = ev.get("file") or ""
    if ev.get("line") is not None:
        where += f":{ev['line']}"
    if ev.get("path"):
        where += f" {ev['path']}"
    return where


def _excerpt(ev: dict[str, Any]) -> str | None:
    excerpt = ev.get("excerpt")
    if not excerpt:
        return None
    return excerpt if len(excerpt) <= 160 else excerpt[:157] + "..."


def _check_flags(c: dict[str, Any]) -> str:
    flags = [c.get("kind")] if c.get("kind") != "check" else []
    flags += ["required"] if c.get("required") else ["optional"]
    if c.get("soft"):
        flags.append("soft")
    return f"{', '.join(str(f) for f in flags)}, w={c.get('weight'):g}"


def _head(packet: dict[str, Any]) -> tuple[str, str]:
    """(verdict, ``(subtype)  score S (raw R, hard gate G)``) of a packet."""
    from rcaeval._numfmt import display_value

    score = display_value(packet.get("score"), kind="score")
    raw = display_value(packet.get("raw_score"), kind="score")
    return str(packet.get("verdict")), (
        f"({packet.get('subtype') or ''})  score {score} "
        f"(raw {raw}, hard gate {display_value(packet.get('hard_gate'))})")


STRUCTURED_CHECK = STRUCTURED_CHECK_ID


def structured_vs_prose(bucket: dict[str, Any]) -> tuple[str, str, bool] | None:
    """For a diagnosis bucket decided by a structured root cause: ``(structured, prose,
    disagree)`` one-line summaries of the two paths side by side; ``None`` otherwise."""
    checks = bucket.get("checks") or []
    st = next((c for c in checks if c.get("check_id") == STRUCTURED_CHECK), None)
    if bucket.get("bucket") != "diagnosis" or st is None:
        return None
    prose = [c for c in checks if c.get("kind") == "hard" and not c.get("soft")
             and c.get("check_id") != STRUCTURED_CHECK]
    failed = [c["check_id"] for c in prose if not c.get("passed")]
    prose_ok = not failed
    left = ("pass" if st.get("passed") else "fail") + ": " + (st.get("evidence") or {}).get(
        "excerpt", "")
    right = ("pass" if prose_ok else "fail") + (
        f": all {len(prose)} hard check(s) passed" if prose_ok
        else ": failed " + ", ".join(failed))
    return left, right, bool(st.get("passed")) != prose_ok


def _evidence_label(ev: dict[str, Any]) -> str:
    where = _evidence_where(ev)
    excerpt = _excerpt(ev)
    if excerpt:
        return f"{escape(where)} [dim]{escape(repr(excerpt))}[/dim]"
    return escape(where)


def explain_tree(packet: dict[str, Any],
                 file_problems: list[str] | None = None,
                 hits: list[dict[str, Any]] | None = None,
                 integrity: list[str] | None = None) -> Tree:
    """A rich Tree of a judgment packet: verdict, then buckets, checks and their evidence;
    ``file_problems`` (one line per file extraction could not parse or read, with the line and
    byte of a parse error) are listed under the bundle; with ``hits``
    (:func:`load_detector_hits`), a last node lists every detector's matched sentences and
    the rule that decided each. ``integrity`` (:func:`rcaeval.report.describe_integrity`):
    what the seal and incident-data checks of the evidence found."""
    verdict, rest = _head(packet)
    head = (
        f"[bold]{escape(packet['run_id'])} / {escape(packet['case_id'])}[/bold]  "
        f"[{_style(verdict)}]{verdict}[/] {escape(rest)}"
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
    if integrity:
        facts = packet.get("facts") or {}
        bad = facts.get("evidence.unsealed_records") or facts.get(
            "evidence.contradicts_incident_data")
        node = tree.add(f"[{'red' if bad else 'dim'}]evidence:[/] {escape(integrity[0])}")
        for line in integrity[1:]:
            node.add(escape(line))
    for b in packet.get("buckets", []):
        status = b.get("status")
        node = tree.add(
            f"[{_style(status)}]{b['bucket']}: {status}[/]"
            f"{_fmt_score(b.get('score'), b.get('max_score'))}  "
            f"[dim]{escape(b.get('reason') or '')}[/dim]"
        )
        for c in b.get("checks", []):
            mark = "[green]✓[/]" if c.get("passed") else "[red]✗[/]"
            cnode = node.add(
                f"{mark} {escape(c['check_id'])} [dim]({_check_flags(c)})[/dim] "
                f"{escape(c.get('reason') or '')}"
            )
            ev = c.get("evidence")
            if ev:
                cnode.add(_evidence_label(ev))
        side = structured_vs_prose(b)
        if side is not None:
            left, right, disagree = side
            node.add(f"[bold]decided by: structured[/bold] {escape(left)}  [dim]|[/dim]  "
                     f"prose detectors (consistency) {escape(right)}"
                     + ("  [yellow]disagree (answer.structured_prose_disagree)[/yellow]"
                        if disagree else "  [green]agree[/green]"))
    if hits:
        _add_hits(tree, packet, hits)
    return tree


def case_anchor(case_id: str) -> str:
    """The HTML element id of a case's drill-down (``case-<id>``; characters other than
    letters, digits, ``_.-`` become ``-``, plus a short hash when any did, to stay unique)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "-", case_id)
    if safe != case_id:
        safe += "-" + hashlib.sha1(case_id.encode()).hexdigest()[:8]
    return f"case-{safe}"


def explain_html(packet: dict[str, Any], shadow: dict[str, Any] | None = None,
                 integrity: list[str] | None = None) -> str:
    """The same bucket -> check -> evidence tree as :func:`explain_tree`, as an HTML
    ``<section>`` whose id is :func:`case_anchor` of the case (static, no scripts). With the
    case's semantic ``shadow`` (:func:`rcaeval.semantic.load_shadow`), the section ends with
    what ``rcaeval explain`` prints after the tree
    (:func:`rcaeval.semantic.side_by_side_html`); without, nothing is added. ``integrity``:
    the evidence seal / incident-data lines of :func:`rcaeval.report.describe_integrity`."""
    h = html.escape
    verdict, rest = _head(packet)
    out = [f'<section class="rcaeval-case" id="{case_anchor(packet["case_id"])}">',
           f'<h3>{h(packet["case_id"])} <span class="v-{h(verdict)}">{h(verdict)}</span> '
           f"<small>{h(rest)}</small></h3>",
           f"<p><b>reason:</b> {h(packet.get('reason') or '')}</p>"]
    bundle = packet.get("bundle") or {}
    out.append(f"<p><b>bundle:</b> {h(str(bundle.get('status')))} "
               f"<code>{h(str(bundle.get('dir') or ''))}</code> {h(bundle.get('reason') or '')}"
               "</p>")
    if integrity:
        out.append(f"<p><b>evidence:</b> {h(integrity[0])}</p>")
        if integrity[1:]:
            out.append("<ul>" + "".join(f"<li>{h(x)}</li>" for x in integrity[1:]) + "</ul>")
    out.append("<ul>")
    for b in packet.get("buckets", []):
        status = str(b.get("status"))
        out.append(f'<li><span class="v-{h(status)}">{h(b["bucket"])}: {h(status)}</span>'
                   f"{h(_fmt_score(b.get('score'), b.get('max_score')))} "
                   f"<small>{h(b.get('reason') or '')}</small><ul>")
        checks = b.get("checks", [])
        passed = [c for c in checks if c.get("passed") is True]
        for c in checks:
            if c.get("passed") is not True:
                out.append(_check_html(c))
        out.append("</ul>")
        if passed:  # passed checks collapsed; failed (and unknown) ones stay open above
            out.append(f'<details class="passed-checks"><summary><span class="v-pass">✓</span> '
                       f"{len(passed)} passed check{'s' if len(passed) != 1 else ''}</summary>"
                       f"<ul>{''.join(_check_html(c) for c in passed)}</ul></details>")
        out.append("</li>")
    out.append("</ul>")
    if shadow is not None:
        from rcaeval.semantic import side_by_side_html

        out.append(side_by_side_html(packet, shadow))
    out.append("</section>")
    return "".join(out)


def _check_html(c: dict[str, Any]) -> str:
    """One check of the HTML drill-down: mark, id, flags, reason and its deciding evidence."""
    h = html.escape
    mark = "✓" if c.get("passed") else "✗"
    cls = "v-pass" if c.get("passed") else "v-fail"
    out = [f'<li><span class="{cls}">{mark}</span> <code>{h(c["check_id"])}</code> '
           f"<small>({h(_check_flags(c))})</small> {h(c.get('reason') or '')}"]
    ev = c.get("evidence")
    if ev:
        excerpt = _excerpt(ev)
        out.append(f'<div class="evidence"><code>{h(_evidence_where(ev))}</code>'
                   + (f"<pre>{h(excerpt)}</pre>" if excerpt else "") + "</div>")
    out.append("</li>")
    return "".join(out)


def _add_hits(tree: Tree, packet: dict[str, Any], hits: list[dict[str, Any]]) -> None:
    facts = packet.get("facts") or {}
    node = tree.add("[bold]detectors[/bold] [dim](every matched sentence and the rule that "
                    "decided it)[/dim]")
    by_det: dict[str, list[dict[str, Any]]] = {}
    for h in hits:
        by_det.setdefault(h["detector_id"], []).append(h)
    for det, rows in by_det.items():
        fired = facts.get(f"detector.{det}")
        mark = "[green]fired[/]" if fired else "[dim]did not fire[/]"
        dnode = node.add(f"{escape(det)}: {mark}")
        for h in rows:
            where = f"{h['file']}:{h['line_no']}" if h.get("line_no") is not None else h["file"]
            sym = "[green]✓[/]" if h["fires"] else "[red]✗[/]"
            text = h["text"] if len(h["text"]) <= 160 else h["text"][:157] + "..."
            dnode.add(f"{sym} {escape(where)} [dim]{escape(repr(text))}[/dim]\n"
                      f"   in/out: {escape(h.get('scope_rule') or '')}; "
                      f"decided: {escape(h.get('decided_by') or '')}")
