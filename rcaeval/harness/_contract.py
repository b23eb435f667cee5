"""The RCA response contract (docs/rca-response-contract.md): pydantic models, the canonical
``analysis_hash`` and the JSON Schema export.

Nested objects reject unknown keys (a typo such as ``target_verfied`` must not silently turn
into the conservative default); the top-level response keeps unknown keys (agent metadata such
as an incident id or model name) and includes them in the hash.
"""

from __future__ import annotations

import hashlib
import math
import unicodedata
from typing import Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, field_validator

from rcaeval.harness._patterns import generic_state_match

CONTRACT_VERSION = "rca_response/1"
CONTRACT_VERSIONS: tuple[str, ...] = ("rca_response/1", "rca_response/2")
"""Versions that load: ``rca_response/2`` adds the optional ``confidence_diagnostics`` block
(a version-1 response has none; both validate against the same model)."""

Confidence = Literal["high", "medium", "low", "none"]
Outcome = Literal["diagnosed", "provisional", "insufficient_evidence", "degraded"]
Origin = Literal["current_run", "historical"]

CONFIDENCE_RANK: dict[str, int] = {"none": 0, "low": 1, "medium": 2, "high": 3}

_NO_FAMILY = {"", "none", "null", "unknown", "n/a"}


class _Nested(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class Alert(_Nested):
    type: str = Field(min_length=1, description="Alert name, e.g. KubePodNotReady.")
    generic_state: bool | None = Field(
        default=None,
        description="True when the alert describes a generic state (non-ready, waiting, "
        "replicas, rollout, crash loop) rather than a cause. Null or false: derived from "
        "`type` and `summary` (a false declaration cannot hide a generic alert).",
    )
    target: str | None = Field(default=None, description="The object the alert fires on.")
    summary: str = ""

    def is_generic_state(self) -> bool:
        """Declared generic, or the type or summary names a generic state
        (rcaeval/harness/patterns.yaml: the kubernetes-mixin rule names in any spelling,
        kubelet reasons, Chinese alert titles). A ``false`` declaration does not override
        them: an agent cannot opt a ``KubePodNotReady`` out of gate 4."""
        return bool(self.generic_state) or generic_state_match(self.type, self.summary) \
            is not None


class Hypothesis(_Nested):
    family: str = Field(min_length=1, description="Root-cause family, e.g. oom_kill.")
    mechanism: str = Field(default="", description="How this family would produce the alert.")
    score: float | None = Field(default=None, ge=0, description="Ranker score (higher first).")

    @field_validator("score")
    @classmethod
    def _finite(cls, v: float | None) -> float | None:
        if v is not None and not math.isfinite(v):
            raise ValueError("score must be finite")
        return v


class RootCause(_Nested):
    family: str | None = Field(
        default=None, description="The named root-cause family; null (or 'none') for none."
    )
    confidence: Confidence = "none"
    claim: str = Field(default="", description="The root-cause statement shown to operators.")
    evidence_ids: list[str] = Field(default_factory=list)

    @field_validator("family", mode="before")
    @classmethod
    def _none_family(cls, v: Any) -> Any:
        if isinstance(v, str) and v.strip().lower() in _NO_FAMILY:
            return None
        return v


class EvidenceArtifact(_Nested):
    id: str | None = Field(default=None, description="Assigned E01, E02, ... by the harness.")
    source_ref: str | None = Field(
        default=None, description="The artifact's original id, kept when the harness renumbers."
    )
    source: str = Field(min_length=1, description="Where it came from: prometheus, logs, ...")
    source_group: str | None = Field(
        default=None,
        description="Independent source group (telemetry plane); defaults to `source`.",
    )
    origin: Origin = Field(
        description="current_run: observed in this investigation; historical: knowledge-base "
        "context (never a substitute for current evidence)."
    )
    usable: bool = Field(default=True, description="False when collection failed or is partial.")
    target_verified: bool = Field(
        default=False, description="The observation was made on the alert's target itself."
    )
    target: str | None = Field(
        default=None,
        description="The object observed. When both this and `alert.target` are set they must "
        "match (case-insensitively) for `target_verified` to count.",
    )
    dispositive_signature: str | None = Field(
        default=None, description="Name of a signature that by itself decides the family."
    )
    supports: list[str] = Field(
        default_factory=list, description="Hypothesis families this artifact supports."
    )
    summary: str = ""

    def group(self) -> str:
        """The independent source group, compared case-insensitively: ``Metrics`` and
        ``metrics`` are one group, not two."""
        return (self.source_group or self.source).casefold()

    def supports_family(self, family: str) -> bool:
        """Neutral (no ``supports`` declared) or declared for ``family``. An artifact that
        declares only other families is not evidence for this one."""
        return not self.supports or family in self.supports


class Claim(_Nested):
    id: str | None = Field(default=None, description="Assigned C01, C02, ... by the harness.")
    text: str = Field(min_length=1)
    material: bool = Field(default=False, description="The conclusion depends on this claim.")
    family: str | None = Field(default=None, description="The hypothesis family it is about.")
    evidence_ids: list[str] = Field(default_factory=list)


class PlanStep(_Nested):
    probe: str = Field(min_length=1, description="The read-only probe to run.")
    expected_observation: str = ""
    discriminates: list[str] = Field(
        default_factory=list, description="Hypothesis families the probe tells apart."
    )


class Action(_Nested):
    text: str = Field(min_length=1)
    disruptive: bool | None = Field(
        default=None,
        description="Null or false still counts as disruptive when the text reads as a change "
        "to the system (rcaeval/harness/patterns.yaml: restart, delete, drain, DROP TABLE, "
        "rm -rf, 重启, ...).",
    )
    read_only_verification: str | None = None
    impact_rollback: str | None = None
    operator_approval: bool = Field(
        default=False, description="The action is gated on explicit operator approval."
    )


class ToolError(_Nested):
    tool: str = ""
    message: str = ""


def _finite_or_none(v: float | None, name: str, *, unit: bool = False) -> float | None:
    if v is not None and not math.isfinite(v):
        raise ValueError(f"{name} must be finite")
    if v is not None and unit and not 0.0 <= v <= 1.0:
        raise ValueError(f"{name} must be a probability in [0, 1]")
    return v


class RankerAdjustment(_Nested):
    name: str = Field(min_length=1, description="The ranker feature, e.g. two_source_groups.")
    delta: float = Field(description="Additive adjustment to the ranker score.")
    reason: str = ""

    @field_validator("delta")
    @classmethod
    def _finite(cls, v: float) -> float:
        return _finite_or_none(v, "delta")  # type: ignore[return-value]


class ConfidenceGate(_Nested):
    gate: str = Field(min_length=1,
                      description="The confidence gate, e.g. two_source_groups_or_dispositive.")
    passed: bool
    detail: str = ""


class SelfCheck(_Nested):
    adjusted_from: Confidence | None = Field(
        default=None, description="The label before the self-check (null: unchanged).")
    calibrated_probability: float | None = Field(
        default=None, description="The self-check's calibrated probability, in [0, 1].")
    notes: str = ""

    @field_validator("calibrated_probability")
    @classmethod
    def _unit(cls, v: float | None) -> float | None:
        return _finite_or_none(v, "calibrated_probability", unit=True)


class ConfidenceDiagnostics(_Nested):
    """The ranker's confidence breakdown (``rca_response/2``): additive adjustments,
    independent source groups, confidence gates and the self-check calibration."""

    base_score: float | None = Field(default=None, description="Ranker score before adjustments.")
    adjustments: list[RankerAdjustment] = Field(default_factory=list)
    final_score: float | None = Field(default=None, description="Ranker score after adjustments.")
    probability: float | None = Field(
        default=None, description="The ranker's confidence that the named root cause is right, "
        "in [0, 1] (what release calibration measures).")
    independent_source_groups: list[str] = Field(default_factory=list)
    gates: list[ConfidenceGate] = Field(default_factory=list)
    self_check: SelfCheck | None = None

    @field_validator("base_score", "final_score")
    @classmethod
    def _finite(cls, v: float | None) -> float | None:
        return _finite_or_none(v, "score")

    @field_validator("probability")
    @classmethod
    def _unit(cls, v: float | None) -> float | None:
        return _finite_or_none(v, "probability", unit=True)


class RcaResponse(BaseModel):
    """One RCA report as an RCA agent hands it to the harness."""

    model_config = ConfigDict(extra="allow", str_strip_whitespace=True)

    contract_version: str = CONTRACT_VERSION
    alert: Alert
    hypotheses: list[Hypothesis] = Field(default_factory=list)
    root_cause: RootCause = Field(default_factory=RootCause)
    evidence: list[EvidenceArtifact] = Field(default_factory=list)
    claims: list[Claim] = Field(default_factory=list)
    investigation_plan: list[PlanStep] = Field(default_factory=list)
    actions: list[Action] = Field(default_factory=list)
    outcome: Outcome
    novel: bool = False
    tool_errors: list[ToolError] = Field(default_factory=list)
    confidence_diagnostics: ConfidenceDiagnostics | None = Field(
        default=None, description="rca_response/2: the ranker's confidence breakdown; absent "
        "in older responses (which keep loading and hashing as before).")
    analysis_hash: str | None = Field(
        default=None, description="sha256 of the canonical response without this field."
    )


def canonical_data(response: RcaResponse, *, normalized: bool = False) -> dict[str, Any]:
    """The canonical JSON value of a response: what ``analysis_hash`` digests.

    Two responses that mean the same hash alike, so the value is built from a *numbered* copy
    (``E01``…/``C01``…, references rewritten) and leaves out what the harness itself adds or
    derives: ``analysis_hash``, ``source_ref`` and the agent's original evidence/claim ids.
    Every field is present (omitted and explicit defaults agree); ``source_group`` is resolved
    (null = ``source``) and ``alert.generic_state`` is the effective value. Strings and keys
    are NFC-normalised; an integral float is written as an integer and ``-0.0`` as ``0`` (JSON
    has one number type: ``1`` and ``1.0`` are equal). ``normalized=True`` says the response
    is already numbered (the harness's own copy), which saves a deep copy."""
    if not normalized:
        from rcaeval.harness._ledger import normalize

        response = RcaResponse.model_validate(response.model_dump())  # a copy
        normalize(response)
    data = response.model_dump(mode="json", exclude={"analysis_hash"})
    if data.get("confidence_diagnostics") is None:  # a version-1 response hashes as before
        data.pop("confidence_diagnostics", None)
    for art, dumped in zip(response.evidence, data["evidence"], strict=True):
        dumped.pop("source_ref", None)
        dumped["source_group"] = art.source_group or art.source
    data["alert"]["generic_state"] = response.alert.is_generic_state()
    return _canon(data)  # type: ignore[no-any-return]


_MAX_EXACT_INT = 2**53


def _canon(value: Any) -> Any:
    if isinstance(value, str):
        return value if value.isascii() else unicodedata.normalize("NFC", value)
    if isinstance(value, dict):
        return {_canon(k): _canon(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_canon(v) for v in value]
    if isinstance(value, float) and value.is_integer() and abs(value) < _MAX_EXACT_INT:
        return int(value)
    return value


def canonical_json(response: RcaResponse, *, normalized: bool = False) -> bytes:
    """Canonical bytes: :func:`canonical_data`, keys sorted (recursively), compact."""
    return orjson.dumps(canonical_data(response, normalized=normalized),
                        option=orjson.OPT_SORT_KEYS)


def analysis_hash(response: RcaResponse, *, normalized: bool = False) -> str:
    """``"sha256:" + sha256(canonical_json(response))``; never modifies ``response``."""
    return "sha256:" + hashlib.sha256(canonical_json(response, normalized=normalized)).hexdigest()


def json_schema() -> dict[str, Any]:
    """The JSON Schema of :class:`RcaResponse` (docs/schema/rca_response.schema.json); the same
    shape ``rcaeval schema`` writes for every registered model."""
    schema = RcaResponse.model_json_schema(by_alias=True, mode="validation")
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


def json_schema_text() -> str:
    """Deterministic text of the schema: sorted keys, two-space indent, trailing newline."""
    opts = orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2
    return orjson.dumps(json_schema(), option=opts).decode() + "\n"
