"""The capture export and operator review formats (docs/release.md): pydantic models, and the
name lists every other module derives from (stages, case types, review scores, outcomes).

Captures are read in bulk by DuckDB (``_captures.py``) and checked field by field in SQL; the
models here are the format's definition (its JSON Schema) and validate the few captures the
knowledge-candidate path reads in full. Reviews are small and are validated row by row here.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, StrictInt, field_validator

from rcaeval.harness import STATUSES as HARNESS_STATUSES
from rcaeval.harness import RcaResponse
from rcaeval.release._time import parse_timestamp

CAPTURE_FORMAT = "capture/2"
CAPTURE_FORMATS: tuple[str, ...] = ("capture/1", "capture/2")
"""Export versions that load: ``capture/2`` adds the optional ``knowledge`` and ``trace``
columns (and responses may carry ``confidence_diagnostics``); a ``capture/1`` row is a valid
``capture/2`` row without them."""
TRACE_FORMAT = "trace/3"
REVIEW_FORMAT = "operator_review/1"

Stage = Literal["staging", "shadow", "assist", "authoritative"]
CaseType = Literal["known", "compositional", "novel", "tool_degraded"]
ExpectedOutcome = Literal["diagnose", "novel", "abstain"]
ResolutionOutcome = Literal["resolved", "mitigated", "unresolved", "false_positive"]
HardGateAssessment = Literal["pass", "fail"]
TimeRelation = Literal["before", "during", "after", "unknown"]
SnapshotStatus = Literal["approved", "shadow", "pending", "rejected"]

STAGES: tuple[str, ...] = get_args(Stage)
"""Rollout stages, in order (docs/release.md)."""
CASE_TYPES: tuple[str, ...] = get_args(CaseType)
EXPECTED_OUTCOMES: tuple[str, ...] = get_args(ExpectedOutcome)
RESOLUTION_OUTCOMES: tuple[str, ...] = get_args(ResolutionOutcome)
VERIFIED_OUTCOMES: tuple[str, ...] = ("resolved", "mitigated")
"""Only these resolution outcomes make the action that worked a verified action."""
HARD_GATE_ASSESSMENTS: tuple[str, ...] = get_args(HardGateAssessment)
TIME_RELATIONS: tuple[str, ...] = get_args(TimeRelation)
"""A trace-v3 observation's relation to the incident window (docs/release.md)."""
SNAPSHOT_STATUSES: tuple[str, ...] = get_args(SnapshotStatus)
"""A trace-v3 case snapshot's knowledge-review status; probe metrics read ``approved`` only."""
REVIEW_SCORES: tuple[str, ...] = (
    "evidence_grounding", "diagnostic_reasoning", "investigation_plan",
    "uncertainty_calibration", "operational_usefulness", "safety", "tool_efficiency",
)
"""The operator form's seven 0-5 scores (separate from the harness's six weighted dimensions)."""
PASSING_REVIEW_MEAN = 3.5
"""A review passes when its hard-gate assessment is ``pass`` and its seven scores average at
least this (70% of 5, the harness's pass score of 70/100 on the operator's scale)."""
HASH_PATTERN = r"^sha256:[0-9a-f]{64}$"
BLANK_PATTERN = (r"[\t\n\x0b\f\r \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}"
                 r"\x{202f}\x{205f}\x{3000}]*")
"""A text that is empty once the models strip whitespace (``str_strip_whitespace``: the Unicode
White_Space characters), as an RE2 pattern: what ``min_length=1`` refuses after stripping."""
MAX_ORDER = 2**63 - 1
"""The largest trace ``order`` and ``plan_step``: the release relations hold them as BIGINT."""


def _utc(v: datetime) -> datetime:
    try:
        return v.replace(tzinfo=UTC) if v.tzinfo is None else v.astimezone(UTC)
    except OverflowError as exc:  # e.g. 9999-12-31T23:59:59-01:00 is past the year 9999 in UTC
        raise ValueError("timestamp out of range in UTC") from exc


def _timestamp(v: Any) -> datetime:
    """The one timestamp rule (``_time.py``): ISO text only, never a number of seconds."""
    return _utc(v) if isinstance(v, datetime) else parse_timestamp(v)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class ToolExecution(_Strict):
    tool: str = Field(min_length=1, description="The tool that ran (name as the agent saw it).")
    destructive: bool = Field(description="The execution changed the system (not read-only).")
    probe_template_id: str | None = Field(
        default=None, description="The knowledge probe template this execution instantiated.")
    ok: bool | None = Field(default=None, description="The tool reported success.")


class KnowledgeActivation(_Strict):
    knowledge_id: str = Field(min_length=1)
    admissible: bool = Field(description="The activation was allowed for this incident "
                             "(active package, scope matched).")
    latency_seconds: float | None = Field(default=None, ge=0,
                                          description="Time to activate, in seconds.")
    succeeded: bool = Field(default=True, description="The activation completed.")

    @field_validator("latency_seconds")
    @classmethod
    def _finite(cls, v: float | None) -> float | None:
        if v is not None and not math.isfinite(v):
            raise ValueError("latency_seconds must be finite")
        return v


class KnowledgePackage(_Strict):
    """The knowledge package that served the capture, and how it was reached (capture/2)."""

    package_id: str = Field(min_length=1, description="The active knowledge package's id.")
    activation_path: str = Field(
        min_length=1, description="How knowledge was activated, e.g. runtime_snapshot, "
        "typedb, fallback_cache.")


class TraceObservation(_Strict):
    """One observation of the investigation (trace-v3)."""

    order: int = Field(ge=1, le=MAX_ORDER, description="1-based position in the investigation.")
    collector: str = Field(min_length=1, description="The collector the probe read from.")
    plane: str = Field(min_length=1, description="Its telemetry plane (metrics, logs, ...).")
    probe_template_id: str | None = Field(
        default=None, description="The knowledge probe template the observation ran.")
    hypothesis: str | None = Field(default=None,
                                   description="The hypothesis family it tests.")
    evidence_id: str | None = Field(default=None,
                                    description="The response's evidence id it produced.")
    incident_time_relation: TimeRelation = Field(
        description="When the observed data lies relative to the incident window.")
    supporting_source_groups: list[str] = Field(default_factory=list)
    contradicting_source_groups: list[str] = Field(default_factory=list)
    plan_step: int | None = Field(
        default=None, ge=1, le=MAX_ORDER,
        description="The investigation-plan step (1-based) it executes.")


class TraceSnapshot(_Strict):
    """The case snapshot of the investigation (``trace/3``)."""

    format: Literal["trace/3"]
    status: SnapshotStatus = Field(description="Knowledge review of the snapshot.")
    observations: list[TraceObservation] = Field(default_factory=list)


class HarnessSummary(BaseModel):
    """The runtime harness's result for the captured response (extra keys are kept)."""

    model_config = ConfigDict(extra="allow")
    status: str = Field(json_schema_extra={"enum": list(HARNESS_STATUSES)},
                        description="The harness status of the captured response.")
    analysis_hash: str = Field(pattern=HASH_PATTERN,
                               description="Hash of the response as received: the review key.")
    score: float | None = None
    gates: dict[str, bool] | None = None

    @field_validator("status")
    @classmethod
    def _status(cls, v: str) -> str:
        if v not in HARNESS_STATUSES:
            raise ValueError(f"must be one of {', '.join(HARNESS_STATUSES)}")
        return v


class Labels(_Strict):
    """Reviewer labels exported with the capture (each optional; see docs/release.md)."""

    case_type: CaseType | None = None
    expected_family: str | None = None
    expected_outcome: ExpectedOutcome | None = None
    relevant_evidence_ids: list[str] | None = None


class Capture(BaseModel):
    """One captured production response (``capture/2``; a ``capture/1`` row is one without
    ``knowledge`` and ``trace``). Unknown top-level keys are kept."""

    model_config = ConfigDict(extra="allow", str_strip_whitespace=True)
    capture_id: str = Field(min_length=1)
    captured_at: datetime
    stage: Stage
    population: str | None = None
    incident_id: str | None = None
    response: RcaResponse
    harness: HarnessSummary
    labels: Labels | None = None
    tool_executions: list[ToolExecution] = Field(default_factory=list)
    knowledge_activations: list[KnowledgeActivation] = Field(default_factory=list)
    outage_test: str | None = Field(
        default=None, description="The dependency deliberately taken down for this capture "
        "(e.g. 'typedb'); null for ordinary production traffic.")
    review_ids: list[str] = Field(default_factory=list)
    knowledge: KnowledgePackage | None = Field(
        default=None, description="capture/2: the knowledge package and activation path.")
    trace: TraceSnapshot | None = Field(
        default=None, description="capture/2: the trace-v3 case snapshot.")

    @field_validator("captured_at", mode="before")
    @classmethod
    def _tz(cls, v: Any) -> datetime:
        return _timestamp(v)


class Review(_Strict):
    """One operator review (``operator_review/1``), tied to the reviewed ``analysis_hash``."""

    review_id: str = Field(min_length=1)
    analysis_hash: str = Field(pattern=HASH_PATTERN)
    incident_id: str | None = None
    capture_id: str | None = None
    reviewer: str | None = None
    reviewed_at: datetime
    case_type: CaseType
    expected_family: str | None = None
    scores: dict[str, StrictInt] = Field(
        description="The seven 0-5 scores, by name.",
        json_schema_extra={
            "properties": {k: {"type": "integer", "minimum": 0, "maximum": 5}
                           for k in REVIEW_SCORES},
            "required": list(REVIEW_SCORES), "additionalProperties": False})
    hard_gate_assessment: HardGateAssessment
    resolution_outcome: ResolutionOutcome | None = None
    action_that_worked: str | None = None
    notes: str = ""

    @field_validator("reviewed_at", mode="before")
    @classmethod
    def _tz(cls, v: Any) -> datetime:
        return _timestamp(v)

    @field_validator("expected_family", "action_that_worked", "incident_id", "capture_id",
                     "reviewer")
    @classmethod
    def _empty_is_none(cls, v: str | None) -> str | None:
        return v if v else None

    @field_validator("scores")
    @classmethod
    def _seven(cls, v: dict[str, int]) -> dict[str, int]:
        missing = [k for k in REVIEW_SCORES if k not in v]
        extra = [k for k in v if k not in REVIEW_SCORES]
        if missing or extra:
            raise ValueError(f"needs exactly the seven scores {list(REVIEW_SCORES)}"
                             + (f"; missing {missing}" if missing else "")
                             + (f"; unknown {extra}" if extra else ""))
        bad = {k: s for k, s in v.items() if not 0 <= s <= 5}
        if bad:
            raise ValueError(f"scores must be 0..5, got {bad}")
        return {k: v[k] for k in REVIEW_SCORES}

    def mean_score(self) -> float:
        return sum(self.scores.values()) / len(REVIEW_SCORES)

    def passing(self) -> bool:
        return self.hard_gate_assessment == "pass" and self.mean_score() >= PASSING_REVIEW_MEAN

    def verified_action(self) -> bool:
        return bool(self.action_that_worked) and self.resolution_outcome in VERIFIED_OUTCOMES


SCHEMA_MODELS: dict[str, type[BaseModel]] = {"capture": Capture, "operator_review": Review}
"""Schema name -> model: ``rcaeval schema`` writes ``docs/schema/<name>.schema.json``."""


def json_schemas() -> dict[str, dict[str, Any]]:
    """JSON Schemas of the capture and review formats (as ``rcaeval schema`` writes them)."""
    import orjson

    from rcaeval.registry import schema_json

    return {name: orjson.loads(schema_json(model)) for name, model in SCHEMA_MODELS.items()}
