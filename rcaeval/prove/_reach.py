"""Can an agent reach what a check reads? The static half of a case proof, and the
``unreachable_evidence`` warning of ``rcaeval validate``.

A check is reachable when something an agent is given produces what it reads: an incident
tool writes the file or milestone (the tools' own table, ``rcaeval.tools.TOOL_OUTPUTS``), or
the runner writes it for every case (``manifest.json``, ``output.txt``, ``transcript.json``).
Tools whose channel the case's ``incident/tool_status.json`` lists as unavailable produce
nothing but ``collection_errors.json``. Detectors (the answer) and facts expected false are
always reachable. Whether the incident data holds what a check looks for is the proof's job
(the oracle agent), not this one's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import orjson

import rcaeval.tools as catalog
from rcaeval.registry import (
    FACT_INPUTS,
    DetectorCondition,
    FactCondition,
    KeywordAny,
    MergedCase,
    NumericSeriesAnyGt,
    check_yaml_path,
    iter_checks,
)

RUNNER_FILES: tuple[str, ...] = ("manifest.json", "output.txt", "transcript.json")
"""Bundle files the runner writes for every case it runs (docs/agents.md): the manifest, and
the answer and transcript when the agent wrote none."""

EVERY_CALL_MILESTONES: tuple[str, ...] = ("diagnosis_run.initialized",
                                          "evidence_collection.started", "tool.call",
                                          "tool.error")
"""Milestones the tool server adds on any call (``rcaeval.tools.TOOL_OUTPUTS``' doc)."""

LOG_SOURCES: tuple[str, ...] = ("evidences/logs.json", "logs/")
"""What ``keyword_any`` with ``source: logs`` reads (docs/registry.md)."""


@dataclass(frozen=True)
class Unreachable:
    """A check nothing the agent is given can satisfy."""

    bucket: str
    check_id: str
    field: tuple[str | int, ...]
    """The check's key path in judge.yaml."""
    message: str
    """``<bucket> check <id> reads <file>, which no tool writes`` and the like."""


def unavailable_channels(case: MergedCase) -> list[str]:
    """The channels ``incident/tool_status.json`` lists as unavailable (empty without one)."""
    if case.incident_dir is None:
        return []
    path = Path(case.incident_dir) / "tool_status.json"
    try:
        doc = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return []
    got = doc.get("unavailable") if isinstance(doc, dict) else None
    return [str(c) for c in got] if isinstance(got, list) else []


def writers(path: str, unavailable: list[str]) -> tuple[list[str], str | None]:
    """The tools that write the bundle-relative ``path`` in this case, or why none does."""
    rel = path
    if rel in catalog.ALWAYS_WRITTEN or rel in RUNNER_FILES:
        return ["(every call)" if rel in catalog.ALWAYS_WRITTEN else "(the runner)"], None
    rows = [r for r in catalog.TOOL_OUTPUTS if rel in r.writes]
    live = [r.tool for r in rows if r.channel not in unavailable]
    if live:
        return live, None
    if rows:
        down = sorted({r.channel for r in rows if r.channel})
        return [], (f"reads {rel}, which only {', '.join(r.tool for r in rows)} "
                    f"write{'s' if len(rows) == 1 else ''}, and the {', '.join(down)} backend "
                    "is unavailable in this case (incident/tool_status.json)")
    if rel in catalog.ON_OUTAGE:
        if unavailable:
            return ["(a channel outage)"], None
        return [], (f"reads {rel}, which the tools write only when a channel is down, and "
                    "incident/tool_status.json lists no unavailable channel")
    return [], f"reads {rel}, which no tool writes"


def _milestone_tools(event: str, unavailable: list[str]) -> list[str]:
    if event in EVERY_CALL_MILESTONES:
        return ["(every call)"]
    return [r.tool for r in catalog.TOOL_OUTPUTS
            if event in r.milestones and r.channel not in unavailable]


def _fact_problem(fact: str, unavailable: list[str], seen: frozenset[str] = frozenset()
                  ) -> str | None:
    inputs = FACT_INPUTS.get(fact)
    if inputs is None or fact in seen:
        return None  # detector.* facts, unknown facts (another lint reports those)
    reasons = []
    for src in inputs:
        if src.startswith("fact:"):
            why = _fact_problem(src[5:], unavailable, seen | {fact})
        elif src.startswith("milestone:"):
            why = None if _milestone_tools(src[10:], unavailable) else \
                f"reads the telemetry milestone {src[10:]}, which no tool adds"
        else:
            why = writers(src, unavailable)[1]
        if why is None:
            return None
        reasons.append(why)
    if len(reasons) == 1:
        return f"needs fact {fact}, which {reasons[0]}"
    if not reasons:
        return f"needs fact {fact}, which nothing an agent is given produces"
    return f"needs fact {fact}, which " + "; and ".join(reasons)


def condition_problem(cond: object, unavailable: list[str]) -> str | None:
    """Why no agent can make ``cond`` hold, or None when something produces its input."""
    if isinstance(cond, DetectorCondition):
        return None
    if isinstance(cond, FactCondition):
        return None if not cond.expect else _fact_problem(cond.fact, unavailable)
    if isinstance(cond, KeywordAny) and cond.source == "logs":
        for src in LOG_SOURCES:
            if writers(src, unavailable)[1] is None:
                return None
        return writers(LOG_SOURCES[0], unavailable)[1]
    file = cond.source if isinstance(cond, KeywordAny) else \
        cond.file if not isinstance(cond, NumericSeriesAnyGt) else cond.file
    return writers(catalog.bundle_path(str(file)), unavailable)[1]


def unreachable_checks(case: MergedCase) -> list[Unreachable]:
    """Every check of ``case`` (defaults applied) that nothing the agent is given can pass:
    ``all_of`` with one unreachable condition, ``any_of`` with every condition unreachable."""
    unavailable = unavailable_channels(case)
    out: list[Unreachable] = []
    for bucket, kind, index, chk in iter_checks(case.judge.judge):
        problems = [condition_problem(c, unavailable) for c in chk.conditions]
        bad = [p for p in problems if p]
        if not bad or (chk.combinator == "any_of" and len(bad) < len(problems)):
            continue
        out.append(Unreachable(bucket, chk.id, check_yaml_path(bucket, kind, index),
                               f"{bucket} check {chk.id} {bad[0]}"))
    return out


def lint_unreachable(case: MergedCase, rel_judge: str) -> list:
    """``rcaeval validate``'s ``unreachable_evidence`` warnings of one case: one per check
    nothing the agent is given can pass (file, line and dotted field of the check)."""
    from rcaeval.registry import Problem, dotted, parse_yaml

    found = unreachable_checks(case)
    if not found:
        return []
    doc, _ = parse_yaml(Path(case.case_dir) / "judge.yaml", rel_judge)
    return [Problem(rel_judge, doc.line_of(u.field) if doc is not None else None,
                    dotted(u.field), "unreachable_evidence",
                    f"{u.message}: no agent can pass this check through the incident tools "
                    "(rcaeval case prove shows it)", severity="warning")
            for u in found]
