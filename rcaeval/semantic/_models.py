"""The two semantic-shadow files as pydantic models (docs/semantic.md, docs/schema/):
``semantic_context_v1.json`` (what the provider is asked) and ``semantic_packet_v1.json``
(what it answered, with status, settings and usage), plus the answer a provider gives for one
sample."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

STATUSES: tuple[str, ...] = (
    "ok", "missing_provider", "provider_failure", "timeout", "unsupported_provider",
)
"""Packet statuses. Only ``ok`` makes the shadow usable (second pass for blended cases)."""

Status = Literal["ok", "missing_provider", "provider_failure", "timeout", "unsupported_provider"]
Verdict = Literal["pass", "fail"]

_STRICT = ConfigDict(extra="forbid")

CONTEXT_VERSION = 1
PACKET_VERSION = 1


class GroundTruth(BaseModel):
    """The case's ground-truth root cause (judge-only: never shown to the agent)."""

    model_config = _STRICT
    family: str
    component: str | None = None
    summary: str
    mechanism: str | None = None


class Criterion(BaseModel):
    """One condition of a check, in words: ``expect`` true means the answer must satisfy the
    description, false that it must not."""

    model_config = _STRICT
    kind: Literal["detector", "fact"]
    name: str
    expect: bool
    description: str | None = None


class InputCheck(BaseModel):
    """A diagnosis check as the provider sees it."""

    model_config = _STRICT
    check_id: str
    kind: Literal["hard", "supporting"]
    required: bool
    weight: float
    description: str | None = None
    combinator: Literal["all_of", "any_of"]
    criteria: list[Criterion]


class JudgeInput(BaseModel):
    """Everything the provider judges: the answer, the ground truth and the checks. The cache
    key covers exactly this (plus prompt and settings), so the same answer judged again --
    whatever the deterministic result -- is served from the cache."""

    model_config = _STRICT
    answer: str = Field(description="The agent's final answer (sections and sentences as "
                        "extracted; follow-up turns marked).")
    ground_truth: GroundTruth | None = None
    checks: list[InputCheck]


class DeterministicCheck(BaseModel):
    model_config = _STRICT
    check_id: str
    passed: bool
    reason: str | None = None


class CheckEvidence(BaseModel):
    model_config = _STRICT
    file: str | None = None
    path: str | None = None
    line: int | None = None
    excerpt: str | None = None


class EvidenceCheck(BaseModel):
    """A critical-evidence or evidence-routing check of the first judgment: what the run's
    evidence showed, with the evidence that decided it (null when nothing did)."""

    model_config = _STRICT
    check_id: str
    required: bool
    weight: float
    passed: bool
    reason: str | None = None
    evidence: CheckEvidence | None = None


class Deterministic(BaseModel):
    """The first (deterministic) judgment, for reference: providers must not copy it."""

    model_config = _STRICT
    verdict: str
    subtype: str | None = None
    score: float | None = None
    raw_score: float | None = None
    buckets: dict[str, str] = Field(description="bucket -> status")
    diagnosis_checks: list[DeterministicCheck]
    critical_evidence_checks: list[EvidenceCheck] = Field(
        default_factory=list, description="the critical_evidence checks, in judge.yaml order")
    routing_checks: list[EvidenceCheck] = Field(
        default_factory=list, description="the evidence_routing checks, in judge.yaml order")


class SemanticContext(BaseModel):
    """``semantic_context_v1.json``: written after the deterministic judgment of a case run;
    the ``command`` provider reads it on stdin."""

    model_config = ConfigDict(extra="forbid", title="SemanticContext")
    context_version: Literal[1] = CONTEXT_VERSION
    run_id: str
    case_id: str
    case_type: str | None = None
    rules_hash: str
    diagnosis_mode: Literal["deterministic_only", "blended"]
    deterministic: Deterministic
    input: JudgeInput


class SampleCheck(BaseModel):
    """One check's verdict in one sample (also the provider answer's item)."""

    model_config = ConfigDict(extra="ignore")
    check_id: str
    verdict: Verdict
    rationale: str | None = None


class Usage(BaseModel):
    model_config = _STRICT
    requests: int = 0
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None


class ProviderAnswer(BaseModel):
    """What a provider returns for one sample: a verdict for every check of the input (the
    ``command`` provider may print a whole packet; only ``checks`` and ``usage`` are read)."""

    model_config = ConfigDict(extra="ignore")
    checks: list[SampleCheck]
    usage: Usage | None = None


class Settings(BaseModel):
    """How the verdicts were obtained; part of the cache key (except ``timeout_s``)."""

    model_config = _STRICT
    provider: str
    model: str | None = None
    base_url: str | None = None
    prompt_id: str
    prompt_version: str
    prompt_sha256: str
    temperature: float
    seed: int | None = None
    samples: int
    timeout_s: float
    response_format: str | None = Field(
        default=None, description="openai: json_schema, or json_object after a fallback")


class Votes(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    pass_: int = Field(alias="pass")
    fail: int


class PacketCheck(BaseModel):
    """One diagnosis check: the deterministic verdict, every sample's verdict, the majority
    (``tie`` when the samples split evenly: the deterministic verdict then stands) and the
    spread (share of samples against the majority)."""

    model_config = _STRICT
    check_id: str
    kind: Literal["hard", "supporting"]
    deterministic: Verdict
    verdict: Literal["pass", "fail", "tie"]
    votes: Votes
    samples: list[Verdict]
    spread: float
    agrees: bool | None = Field(description="majority == deterministic (null on a tie)")
    rationale: str | None = None


class SemanticPacket(BaseModel):
    """``semantic_packet_v1.json``: the shadow's outcome for one case run. Written for every
    status; ``checks`` is empty unless ``status`` is ``ok``."""

    model_config = ConfigDict(extra="forbid", title="SemanticPacket")
    packet_version: Literal[1] = PACKET_VERSION
    run_id: str
    case_id: str
    status: Status
    detail: str | None = None
    shadow_available: bool = Field(description="status == ok")
    diagnosis_mode: Literal["deterministic_only", "blended"]
    second_pass: bool = Field(description="blended and ok: the diagnosis bucket was judged "
                              "again with these verdicts (judgment_blended.json)")
    context_sha256: str
    cache_key: str | None = None
    settings: Settings
    usage: Usage
    checks: list[PacketCheck]
