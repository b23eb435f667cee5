"""``rcaeval explain``'s semantic part: the deterministic and the blended judgment of one case
run side by side, and per diagnosis check the detectors' verdict next to the model's -- as
rich renderables (the CLI) or as HTML (the run page's drill-down)."""

from __future__ import annotations

import html
from typing import Any

import duckdb
import orjson
from rich.console import Group
from rich.markup import escape
from rich.table import Table

from rcaeval._paths import read_query
from rcaeval._vocab import TABLE_CLASS
from rcaeval.store import Connectable, connection_of

_STYLE = {"pass": "green", "partial": "yellow", "fail": "red", "invalid": "magenta",
          "not_evaluated": "dim", "tie": "yellow"}


def _con(store: Connectable) -> duckdb.DuckDBPyConnection:
    return connection_of(store)


def _styled(value: str | None) -> str:
    if value is None:
        return "-"
    return f"[{_STYLE.get(value, 'white')}]{escape(value)}[/]"


def _score(value: Any) -> str:
    return "-" if value is None else f"{float(value):.2f}".rstrip("0").rstrip(".")


def has_shadow(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the store has the shadow's tables (stores older than migration 0003 do not)."""
    return bool(con.execute(read_query("semantic/has_shadow.sql")).fetchall()[0][0])


def load_shadow(store: Connectable, run_id: str, case_id: str) -> dict[str, Any] | None:
    """The case run's shadow: ``{"packet", "cache_hit", "blended" (packet or None),
    "checks" [rows]}``; ``None`` when it has none (or the store predates migration 0003)."""
    con = _con(store)
    if not has_shadow(con):
        return None
    row = con.execute(read_query("semantic/case_packet.sql"),
                      {"run_id": run_id, "case_id": case_id}).fetchall()
    if not row:
        return None
    cur = con.execute(read_query("semantic/case_view.sql"), {"run_id": run_id,
                                                              "case_id": case_id})
    cols = [d[0] for d in cur.description]
    checks = [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
    packet_json, cache_hit, blended_json = row[0]
    return {"packet": orjson.loads(packet_json), "cache_hit": bool(cache_hit),
            "blended": orjson.loads(blended_json) if blended_json is not None else None,
            "checks": checks}


def load_shadows(store: Connectable, run_id: str) -> dict[str, dict[str, Any]]:
    """Every shadow of run ``run_id`` by case id (:func:`load_shadow` of each case run that has
    one); empty when the run has none (or the store predates migration 0003)."""
    con = _con(store)
    if not has_shadow(con):
        return {}
    ids = [r[0] for r in con.execute(read_query("semantic/run_cases.sql"),
                                     {"run_id": run_id}).fetchall()]
    return {c: s for c in ids if (s := load_shadow(con, run_id, c)) is not None}


Cell = tuple[str | None, str] | str
"""A table cell: ``(verdict, suffix)`` -- a styled verdict (``None``: ``-``) and plain text
after it -- or plain text alone."""


def _settings(shadow: dict[str, Any]) -> str:
    """``provider model, prompt id_version, N sample(s)[, from cache]``."""
    s = shadow["packet"]["settings"]
    return (f"{s['provider']}" + (f" {s['model']}" if s.get("model") else "")
            + f", prompt {s['prompt_id']}_{s['prompt_version']}, {s['samples']} sample(s)"
            + (", from cache" if shadow["cache_hit"] else ""))


def _no_second_pass(shadow: dict[str, Any]) -> str:
    sem = shadow["packet"]
    why = ("diagnosis mode deterministic_only" if sem["diagnosis_mode"] != "blended"
           else f"packet status {sem['status']}")
    return f"no second pass ({why}): the deterministic judgment stands"


def _verdict_rows(packet: dict[str, Any],
                  blended: dict[str, Any]) -> list[tuple[str, Cell, Cell]]:
    """(label, deterministic, blended): the verdict, the score, then every bucket."""
    rows: list[tuple[str, Cell, Cell]] = [
        ("verdict", (packet["verdict"], f" ({packet.get('subtype') or ''})"),
         (blended["verdict"], f" ({blended.get('subtype') or ''})")),
        ("score", _score(packet.get("score")), _score(blended.get("score")))]
    bb = {b["bucket"]: b for b in blended.get("buckets", [])}
    for b in packet.get("buckets", []):
        o = bb.get(b["bucket"], {})
        rows.append((b["bucket"], (b["status"], f" {_score(b.get('score'))}"),
                     (o.get("status"), f" {_score(o.get('score'))}")))
    return rows


CHECK_COLUMNS = ("check", "kind", "deterministic", "semantic", "votes", "spread", "rationale")
"""The columns of the per-check table (detectors vs model), in order."""


def _check_rows(shadow: dict[str, Any]) -> list[tuple[dict[str, Any], str, str, bool]]:
    """Per diagnosis check: (row, deterministic verdict, semantic verdict or ``tie``,
    whether the two disagree)."""
    out = []
    for c in shadow["checks"]:
        det = "pass" if c["det_passed"] else "fail"
        sv = "tie" if c["sem_passed"] is None else ("pass" if c["sem_passed"] else "fail")
        out.append((c, det, sv, sv not in ("tie", det)))
    return out


def _rich_cell(cell: Cell) -> str:
    if isinstance(cell, str):
        return escape(cell)
    return _styled(cell[0]) + escape(cell[1])


def side_by_side(packet: dict[str, Any], shadow: dict[str, Any]) -> Group:
    """Rich renderables: the shadow's status line, deterministic vs blended per bucket, and
    per diagnosis check deterministic vs semantic (votes, spread, rationale)."""
    sem = shadow["packet"]
    head = (f"[bold]semantic shadow:[/bold] {_styled(sem['status'])} "
            f"({escape(_settings(shadow))})")
    if sem.get("detail"):
        head += f" [dim]{escape(sem['detail'])}[/dim]"
    parts: list[Any] = [head]
    blended = shadow["blended"]
    if blended is None:
        parts.append(f"[dim]{escape(_no_second_pass(shadow))}[/dim]")
    else:
        t = Table(title="deterministic vs blended", title_justify="left")
        for col in ("", "deterministic", "blended"):
            t.add_column(col)
        for label, det, bl in _verdict_rows(packet, blended):
            t.add_row(label, _rich_cell(det), _rich_cell(bl))
        parts.append(t)
    if shadow["checks"]:
        t = Table(title="diagnosis checks: detectors vs model", title_justify="left")
        for col in CHECK_COLUMNS:
            t.add_column(col, overflow="fold")
        for c, det, sv, differs in _check_rows(shadow):
            t.add_row(escape(c["check_id"]), c["kind"] or "", _styled(det),
                      _styled(sv) + (" [bold]≠[/bold]" if differs else ""),
                      f"{c['votes_pass']}/{c['votes_fail']}", f"{c['spread']:g}",
                      escape(c["rationale"] or ""))
        parts.append(t)
    return Group(*parts)


def _html_verdict(value: str | None) -> str:
    if value is None:
        return "-"
    v = html.escape(value)
    return f'<span class="v-{v}">{v}</span>'


def _html_cell(cell: Cell) -> str:
    if isinstance(cell, str):
        return f"<td>{html.escape(cell)}</td>"
    return f"<td>{_html_verdict(cell[0])}{html.escape(cell[1])}</td>"


def _html_table(caption: str, columns: tuple[str, ...], rows: list[str]) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    return (f'<table class="{TABLE_CLASS}"><caption>{html.escape(caption)}</caption>'
            f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>")


def side_by_side_html(packet: dict[str, Any], shadow: dict[str, Any]) -> str:
    """:func:`side_by_side` as an HTML ``<div class="rcaeval-semantic">`` (escaped, static):
    the status line, the deterministic vs blended table when there was a second pass (else a
    line saying why not), and per diagnosis check the detectors' verdict next to the model's
    (votes, spread, rationale; ``≠`` marks a disagreement)."""
    h = html.escape
    sem = shadow["packet"]
    out = [f'<div class="rcaeval-semantic"><p><b>semantic shadow:</b> '
           f"{_html_verdict(sem['status'])} ({h(_settings(shadow))})"
           + (f" <small>{h(sem['detail'])}</small>" if sem.get("detail") else "") + "</p>"]
    blended = shadow["blended"]
    if blended is None:
        out.append(f"<p><small>{h(_no_second_pass(shadow))}</small></p>")
    else:
        out.append(_html_table("deterministic vs blended", ("", "deterministic", "blended"), [
            f"<tr><th>{h(label)}</th>{_html_cell(det)}{_html_cell(bl)}</tr>"
            for label, det, bl in _verdict_rows(packet, blended)]))
    if shadow["checks"]:
        rows = []
        for c, det, sv, differs in _check_rows(shadow):
            mark = ' <b title="the model disagrees with the detectors">≠</b>' if differs else ""
            rows.append(
                f"<tr><td><code>{h(c['check_id'])}</code></td><td>{h(c['kind'] or '')}</td>"
                f"<td>{_html_verdict(det)}</td><td>{_html_verdict(sv)}{mark}</td>"
                f'<td class="num">{c["votes_pass"]}/{c["votes_fail"]}</td>'
                f'<td class="num">{c["spread"]:g}</td><td>{h(c["rationale"] or "")}</td></tr>')
        out.append(_html_table("diagnosis checks: detectors vs model", CHECK_COLUMNS, rows))
    out.append("</div>")
    return "".join(out)
