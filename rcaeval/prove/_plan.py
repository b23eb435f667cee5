"""A case's proof plan: what the three reference agents do, derived from judge.yaml
runner-side (docs/registry.md, "Prove it").

- The **oracle** sweeps every tool the server offers, then makes one targeted call per
  critical-evidence condition (``keyword_any`` over logs -> ``search_logs`` with the
  keywords; ``numeric_series_any_gt`` -> ``query_metrics`` with the series and labels;
  ``span_error_any`` -> ``search_traces`` for error spans of its service; a method over a
  file -> the tool that writes that file), cites what those calls return, and
  answers with the ground truth (``root_cause.summary`` and ``mechanism``).
- The **lazy** agent does the same but never calls the tools of one preferred channel.
- The **wrong** agent investigates like the oracle and names a misdiagnosis the case guards
  against (the detector of the first diagnosis hard check with ``expect: false``).

The plan reaches the agent process as a JSON file the runner passes on its command line
(bound read-only into the sandbox); judge.yaml itself never enters the workspace.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

import rcaeval.tools as catalog
from rcaeval.bundle import REF_TYPES
from rcaeval.prove._reach import (
    Unreachable,
    unavailable_channels,
    unreachable_checks,
)
from rcaeval.registry import (
    DetectorCondition,
    FactCondition,
    JsonListNonempty,
    JsonTextContainsAny,
    KeywordAny,
    MergedCase,
    NumericSeriesAnyGt,
    SpanErrorAny,
)

ROLES: tuple[str, ...] = ("oracle", "lazy", "wrong")
"""The reference agents of a proof, in table order."""

POINTS_MAX = 1000
"""``query_metrics``' largest ``max_points``: a targeted metric call must not sample away
the point that crosses the threshold."""

_REF_OF_CHANNEL = {channel: ref for ref, channel in REF_TYPES.items()}


@dataclass(frozen=True)
class PlanCall:
    """One targeted tool call of the oracle, made for one critical-evidence check."""

    check_id: str
    tool: str
    args: dict[str, Any]
    channel: str | None
    ref: str | None
    """The ``submit_report`` ref type of the records it returns (None: not citable)."""
    match: tuple[str, ...] = ()
    """Cite only records whose JSON text holds one of these (case-insensitive); empty: all."""
    threshold: float | None = None
    """Cite only series with a point above this."""


@dataclass(frozen=True)
class WrongAnswer:
    check_id: str
    detector: str
    phrase: str
    """The misdiagnosis as the wrong agent names it, e.g. ``storage node panic``."""


@dataclass
class CasePlan:
    """Everything a proof of one case needs, derived from its judge.yaml."""

    case_id: str
    case_type: str
    summary: str
    mechanism: str | None
    calls: list[PlanCall]
    unreachable: list[Unreachable]
    unavailable: list[str]
    lazy_channel: str | None
    lazy_tools: list[str]
    wrong: WrongAnswer | None
    exempt: str | None = None
    no_wrong_reason: str | None = field(default=None)

    def agent_plan(self) -> dict[str, Any]:
        """The JSON the reference agent process reads (no check definitions, no detectors:
        only the calls to make and the answers to give)."""
        return {
            "case_id": self.case_id, "novel": self.case_type == "novel",
            "calls": [asdict(c) for c in self.calls],
            "answers": {"oracle": self.summary, "lazy": self.summary,
                        "wrong": wrong_root_cause(self.wrong.phrase) if self.wrong else None},
            "mechanism": self.mechanism,
            "skip_tools": {"lazy": self.lazy_tools},
            "tool_channels": {r.tool: r.channel for r in catalog.TOOL_OUTPUTS if r.channel},
        }


def family_phrase(detector_id: str) -> str:
    """``asserts_storage_node_panic`` -> ``storage node panic``."""
    name = re.sub(r"^asserts?_", "", detector_id)
    return re.sub(r"[_.-]+", " ", name).strip()


def wrong_root_cause(phrase: str) -> str:
    return f"The root cause is a {phrase}."


def _tool_call(check_id: str, tool: str, args: dict[str, Any], match: tuple[str, ...] = (),
               threshold: float | None = None) -> PlanCall:
    row = catalog.tool_output(tool)
    return PlanCall(check_id, tool, args, row.channel, _REF_OF_CHANNEL.get(row.channel or ""),
                    match, threshold)


def _condition_calls(check_id: str, cond: object, unavailable: list[str]) -> list[PlanCall]:
    if isinstance(cond, (FactCondition, DetectorCondition)):
        return []  # facts come from the sweep; detectors from the answer
    if isinstance(cond, KeywordAny) and cond.source == "logs":
        pattern = "|".join(re.escape(k) for k in cond.keywords)
        return [_tool_call(check_id, "search_logs", {"pattern": pattern, "limit": 200},
                           tuple(cond.keywords))]
    if isinstance(cond, NumericSeriesAnyGt) and catalog.bundle_path(cond.file) == \
            "evidences/metrics.json":
        args: dict[str, Any] = {"name": cond.series, "max_points": POINTS_MAX}
        if cond.labels:
            args["labels"] = dict(cond.labels)
        return [_tool_call(check_id, "query_metrics", args, threshold=cond.threshold)]
    if isinstance(cond, SpanErrorAny) and catalog.bundle_path(cond.file) == "evidences/traces.json":
        if "traces" in unavailable:
            return []
        span_args: dict[str, Any] = {"status": "error", "limit": 200}
        if cond.service:
            span_args["service"] = cond.service
        return [_tool_call(check_id, "search_traces", span_args, tuple(cond.keywords))]
    file = cond.source if isinstance(cond, KeywordAny) else cond.file  # type: ignore[attr-defined]
    match: tuple[str, ...] = ()
    if isinstance(cond, KeywordAny):
        match = tuple(cond.keywords)
    elif isinstance(cond, JsonTextContainsAny):
        match = tuple(cond.needles)
    elif not isinstance(cond, JsonListNonempty):
        return []
    out = []
    for row in catalog.tools_writing(str(file)):
        if row.channel in unavailable:
            continue
        out.append(_tool_call(check_id, row.tool, {}, match))
    return out


def _lazy_channel(case: MergedCase, calls: list[PlanCall], unavailable: list[str]
                  ) -> str | None:
    """The preferred channel the lazy agent skips: the available one the most
    critical-evidence weight reads (ties: preferred order)."""
    ec = case.judge.judge.evidence_collection
    preferred = [c for c in (ec.preferred_channels if ec else []) if c not in unavailable]
    if not preferred:
        return None
    weight = {c.id: c.weight for c in case.judge.judge.critical_evidence.checks}
    load = {ch: 0.0 for ch in preferred}
    for call in calls:
        if call.channel in load:
            load[call.channel] += weight.get(call.check_id, 0.0)
    return max(preferred, key=lambda ch: (load[ch], -preferred.index(ch)))


def _wrong(case: MergedCase) -> WrongAnswer | None:
    for chk in case.judge.judge.diagnosis.hard_checks:
        for cond in chk.conditions:
            if isinstance(cond, DetectorCondition) and not cond.expect:
                return WrongAnswer(chk.id, cond.detector, family_phrase(cond.detector))
            if isinstance(cond, FactCondition) and not cond.expect and \
                    cond.fact.startswith("detector."):
                det = cond.fact.removeprefix("detector.")
                return WrongAnswer(chk.id, det, family_phrase(det))
    return None


def plan_case(case: MergedCase) -> CasePlan:
    """The proof plan of ``case`` (a :class:`MergedCase`, defaults applied)."""
    unavailable = unavailable_channels(case)
    calls: list[PlanCall] = []
    for chk in case.judge.judge.critical_evidence.checks:
        for cond in chk.conditions:
            calls += _condition_calls(chk.id, cond, unavailable)
    lazy = _lazy_channel(case, calls, unavailable)
    lazy_tools = [r.tool for r in catalog.tools_of_channel(lazy)] if lazy else []
    wrong = _wrong(case)
    rc = case.judge.ground_truth.root_cause
    proof = case.judge.proof
    return CasePlan(
        case_id=case.case_id, case_type=case.case.case_type, summary=rc.summary,
        mechanism=rc.mechanism, calls=calls, unreachable=unreachable_checks(case),
        unavailable=unavailable, lazy_channel=lazy, lazy_tools=lazy_tools, wrong=wrong,
        exempt=proof.exempt if proof is not None else None,
        no_wrong_reason=None if wrong else (
            "diagnosis: no hard check guards against a misdiagnosis (a detector with "
            "expect: false), so there is no wrong answer to try"))
