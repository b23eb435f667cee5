"""``rcaeval explain``'s semantic part: the deterministic and the blended judgment of one case
run side by side, and per diagnosis check the detectors' verdict next to the model's."""

from __future__ import annotations

from typing import Any

import orjson
from rich.console import Group
from rich.markup import escape
from rich.table import Table

from rcaeval._paths import read_query

_STYLE = {"pass": "green", "partial": "yellow", "fail": "red", "invalid": "magenta",
          "not_evaluated": "dim", "tie": "yellow"}


def _con(store: Any) -> Any:
    return getattr(store, "con", store)


def _styled(value: str | None) -> str:
    if value is None:
        return "-"
    return f"[{_STYLE.get(value, 'white')}]{escape(value)}[/]"


def _score(value: Any) -> str:
    return "-" if value is None else f"{value:g}"


def has_shadow(con: Any) -> bool:
    """Whether the store has the shadow's tables (stores older than migration 0003 do not)."""
    return bool(con.execute(read_query("semantic/has_shadow.sql")).fetchall()[0][0])


def load_shadow(store: Any, run_id: str, case_id: str) -> dict[str, Any] | None:
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


def side_by_side(packet: dict[str, Any], shadow: dict[str, Any]) -> Group:
    """Rich renderables: the shadow's status line, deterministic vs blended per bucket, and
    per diagnosis check deterministic vs semantic (votes, spread, rationale)."""
    sem = shadow["packet"]
    s = sem["settings"]
    head = (f"[bold]semantic shadow:[/bold] {_styled(sem['status'])} "
            f"({escape(str(s['provider']))}"
            + (f" {escape(str(s['model']))}" if s.get("model") else "")
            + f", prompt {s['prompt_id']}_{s['prompt_version']}, {s['samples']} sample(s)"
            + (", from cache" if shadow["cache_hit"] else "") + ")")
    if sem.get("detail"):
        head += f" [dim]{escape(sem['detail'])}[/dim]"
    parts: list[Any] = [head]
    blended = shadow["blended"]
    if blended is None:
        why = ("diagnosis mode deterministic_only" if sem["diagnosis_mode"] != "blended"
               else f"packet status {sem['status']}")
        parts.append(f"[dim]no second pass ({why}): the deterministic judgment stands[/dim]")
    else:
        t = Table(title="deterministic vs blended", title_justify="left")
        for col in ("", "deterministic", "blended"):
            t.add_column(col)
        t.add_row("verdict", f"{_styled(packet['verdict'])} ({packet.get('subtype') or ''})",
                  f"{_styled(blended['verdict'])} ({blended.get('subtype') or ''})")
        t.add_row("score", _score(packet.get("score")), _score(blended.get("score")))
        bb = {b["bucket"]: b for b in blended.get("buckets", [])}
        for b in packet.get("buckets", []):
            o = bb.get(b["bucket"], {})
            t.add_row(b["bucket"], f"{_styled(b['status'])} {_score(b.get('score'))}",
                      f"{_styled(o.get('status'))} {_score(o.get('score'))}")
        parts.append(t)
    if shadow["checks"]:
        t = Table(title="diagnosis checks: detectors vs model", title_justify="left")
        for col in ("check", "kind", "deterministic", "semantic", "votes", "spread",
                    "rationale"):
            t.add_column(col, overflow="fold")
        for c in shadow["checks"]:
            det = "pass" if c["det_passed"] else "fail"
            sv = "tie" if c["sem_passed"] is None else ("pass" if c["sem_passed"] else "fail")
            mark = "" if sv in ("tie", det) else " [bold]≠[/bold]"
            t.add_row(escape(c["check_id"]), c["kind"] or "", _styled(det), _styled(sv) + mark,
                      f"{c['votes_pass']}/{c['votes_fail']}", f"{c['spread']:g}",
                      escape(c["rationale"] or ""))
        parts.append(t)
    return Group(*parts)
