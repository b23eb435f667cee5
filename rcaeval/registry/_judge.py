"""The judge-only model: ``cases/<case_id>/judge.yaml`` (docs/registry.md)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

from rcaeval._vocab import (
    BUCKETS,
    BUNDLE_CHANNELS,
    EVIDENCE_CHANNELS,
    SCORELESS_BUCKETS,
    STRUCTURED_CHECK_ID,
)
from rcaeval.grammar import Grammar, merge_extensions
from rcaeval.registry._common import INT32_MAX, Id
from rcaeval.registry._conditions import Condition, EvidenceCondition, NonEmptyStr
from rcaeval.registry._regex import re2_problem

_STRICT = ConfigDict(extra="forbid", allow_inf_nan=False)

DRAFT_HELP = ("Written by `rcaeval case new` from the incident data and not yet reviewed: "
              "`validate` warns until it is removed. Not part of rules_hash.")


Channel = Literal[EVIDENCE_CHANNELS]  # type: ignore[valid-type]


class _CheckBase(BaseModel):
    model_config = _STRICT
    id: Id
    description: str | None = None
    required: bool | None = Field(
        default=None,
        description="Default: true in contract, execution_contract and diagnosis hard_checks; "
        "false elsewhere.",
    )
    weight: float = Field(default=1.0, gt=0, description="Relative weight within the bucket.")
    soft: bool | None = Field(
        default=None,
        description="Score only: failing it lowers the bucket's score but never its status "
        "(never partial, never fail). Default: true for attempted_events_collection_persisted, "
        "false elsewhere. Not allowed in contract and execution_contract (they carry no score).",
    )
    draft: bool = Field(default=False, exclude=True, description=DRAFT_HELP)

    @model_validator(mode="after")
    def _exactly_one_combinator(self) -> _CheckBase:
        all_of = getattr(self, "all_of", None)
        any_of = getattr(self, "any_of", None)
        if (all_of is None) == (any_of is None):
            raise ValueError(
                f"check {self.id!r} needs exactly one of all_of / any_of (a non-empty list)"
            )
        return self

    @property
    def combinator(self) -> Literal["all_of", "any_of"]:
        return "all_of" if getattr(self, "all_of", None) is not None else "any_of"

    @property
    def conditions(self) -> list:
        return list(getattr(self, self.combinator))


class Check(_CheckBase):
    """A check of an ordinary bucket or of diagnosis: conditions over facts and detectors."""

    all_of: list[Condition] | None = Field(default=None, min_length=1)
    any_of: list[Condition] | None = Field(default=None, min_length=1)


class EvidenceCheck(_CheckBase):
    """A critical_evidence check: conditions may also be evidence methods."""

    all_of: list[EvidenceCondition] | None = Field(default=None, min_length=1)
    any_of: list[EvidenceCondition] | None = Field(default=None, min_length=1)


class RootCause(BaseModel):
    model_config = _STRICT
    family: NonEmptyStr
    synonyms: list[NonEmptyStr] = Field(
        default_factory=list,
        description="Other names of the family a structured answer may give (judge-only: "
        "the agent never sees judge.yaml). Matched like the family: case-insensitive, any run "
        "of non-alphanumerics read as '_'.",
    )
    component: str | None = None
    component_synonyms: list[NonEmptyStr] = Field(
        default_factory=list, description="Other names of the component (e.g. a pod and its "
        "node), matched like synonyms.")
    summary: NonEmptyStr
    mechanism: str | None = None
    draft: bool = Field(default=False, exclude=True, description=DRAFT_HELP)


class GroundTruth(BaseModel):
    model_config = _STRICT
    root_cause: RootCause


class DetectorExamples(BaseModel):
    """Answers a detector must fire on / stay silent on. ``rcaeval validate`` judges each one
    as a whole final answer with the judge's own detector SQL (scope, negation, grammar and
    the case's other detectors included) and reports one that disagrees as an error."""

    model_config = _STRICT
    fires: list[NonEmptyStr] = Field(default_factory=list)
    silent: list[NonEmptyStr] = Field(default_factory=list)


class Detector(BaseModel):
    """An output detector over the sentences of the final answer (RE2, case-insensitive)."""

    model_config = _STRICT
    description: NonEmptyStr
    any: list[NonEmptyStr] = Field(min_length=1)
    all: list[NonEmptyStr] = Field(default_factory=list)
    scope: Literal["root_cause", "anywhere", "alternatives"] = "root_cause"
    negation: bool = True
    grammar: Grammar | None = Field(
        default=None,
        description="Extends the detector grammar (docs/registry.md, 'Detector grammar') for "
        "this detector only: labels, causal / hedge / role / consequence / negation cues, "
        "clause breaks.",
    )
    fuzzy: bool = Field(
        default=False,
        description="Tolerate one-edit misspellings (Damerau-Levenshtein distance 1: one "
        "letter added, dropped, changed or two swapped) of the Latin-script words of at least "
        "five letters written literally in `any` / `all` ('paniced' reads as 'panicked'). Off "
        "by default; CJK text is never corrected.",
    )
    examples: DetectorExamples | None = Field(
        default=None, exclude=True,
        description="Answers this detector must fire on (`fires`) and must not (`silent`), "
        "checked by `rcaeval validate` with the judge's own SQL. Not part of rules_hash.",
    )
    draft: bool = Field(default=False, exclude=True, description=DRAFT_HELP)

    @model_serializer(mode="wrap")
    def _drop_unset_grammar(self, handler: SerializerFunctionWrapHandler) -> dict:
        # a detector without a grammar extension serialises as before the key existed, so
        # rules_hash of existing judge specs is unchanged
        data = handler(self)
        if isinstance(data, dict) and data.get("grammar") is None:
            data.pop("grammar", None)
        if isinstance(data, dict) and not data.get("fuzzy"):
            data.pop("fuzzy", None)  # likewise for the misspelling opt-in
        return data

    @field_validator("any", "all")
    @classmethod
    def _re2_patterns(cls, patterns: list[str]) -> list[str]:
        for pattern in patterns:
            problem = re2_problem(pattern)
            if problem:
                raise ValueError(problem)
        return patterns


class Bucket(BaseModel):
    """An ordinary bucket. ``checks`` omitted ⇒ the bucket's default checks apply."""

    model_config = _STRICT
    checks: list[Check] | None = None


class EvidenceCollectionBucket(Bucket):
    preferred_channels: list[Channel] = Field(
        default_factory=lambda: list(BUNDLE_CHANNELS), min_length=1
    )
    min_preferred_channels: int = Field(default=1, ge=0)

    @model_validator(mode="after")
    def _channels_consistent(self) -> EvidenceCollectionBucket:
        if len(set(self.preferred_channels)) != len(self.preferred_channels):
            raise ValueError("preferred_channels lists a channel twice")
        if self.min_preferred_channels > len(self.preferred_channels):
            raise ValueError(
                f"min_preferred_channels ({self.min_preferred_channels}) exceeds the number of "
                f"preferred_channels ({len(self.preferred_channels)})"
            )
        return self


class CriticalEvidenceBucket(BaseModel):
    model_config = _STRICT
    checks: list[EvidenceCheck] = Field(min_length=1)


class Diagnosis(BaseModel):
    model_config = _STRICT
    mode: Literal["deterministic_only", "blended"] = "deterministic_only"
    hard_checks: list[Check] = Field(min_length=1)
    supporting_checks: list[Check] = Field(default_factory=list)

    @model_validator(mode="after")
    def _reserved_check_id(self) -> Diagnosis:
        for chk in [*self.hard_checks, *self.supporting_checks]:
            if chk.id == STRUCTURED_CHECK_ID:
                raise ValueError(f"diagnosis check id {chk.id!r} is reserved for the judge's "
                                 "structured root-cause check (docs/judge.md)")
        return self


class JudgeRules(BaseModel):
    """The ``judge:`` block: one entry per bucket."""

    model_config = _STRICT
    contract: Bucket | None = None
    workflow: Bucket | None = None
    execution_contract: Bucket | None = None
    evidence_collection: EvidenceCollectionBucket | None = None
    critical_evidence: CriticalEvidenceBucket
    evidence_routing: Bucket | None = None
    diagnosis: Diagnosis

    @model_validator(mode="after")
    def _no_soft_gate_checks(self) -> JudgeRules:
        for name in sorted(SCORELESS_BUCKETS):
            bucket = getattr(self, name)
            for chk in (bucket.checks or []) if bucket is not None else []:
                if chk.soft:
                    raise ValueError(f"{name} check {chk.id!r}: soft: true has no effect in a "
                                     "gate bucket, which carries no score")
        return self


class ProofSpec(BaseModel):
    """``proof:``: how ``rcaeval case prove`` treats the case (docs/registry.md, "Prove it").
    Not part of ``rules_hash``: it never changes a judgment."""

    model_config = _STRICT
    exempt: NonEmptyStr = Field(
        description="Why the case is exempt from proofs (a reference agent cannot show it; "
        "e.g. it needs evidence only a human operator has). The proof report lists the case "
        "and this reason instead of proving it.")


class EfficiencyBudget(BaseModel):
    """``efficiency:``: optional budgets of one case run (docs/registry.md, "Efficiency
    budgets"). Over budget is reported in the judgment's ``efficiency`` section; it changes the
    verdict only with ``enforce: true``."""

    model_config = _STRICT
    max_steps: int | None = Field(default=None, ge=0, le=INT32_MAX,
                                  description="Most tool calls (steps).")
    max_tokens: int | None = Field(default=None, ge=0,
                                   description="Most input + output tokens the agent reported.")
    max_seconds: float | None = Field(default=None, ge=0, allow_inf_nan=False,
                                      description="Most wall-clock seconds of the case run.")
    enforce: bool = Field(
        default=False, description="Opt in: an over-budget case that would pass is judged "
        "fail (subtype over_budget, precedence step 12, score capped at the profile's "
        "no-gate ceiling).")

    @model_validator(mode="after")
    def _some_budget(self) -> EfficiencyBudget:
        if self.max_steps is None and self.max_tokens is None and self.max_seconds is None:
            raise ValueError("efficiency needs at least one of max_steps, max_tokens, "
                             "max_seconds")
        return self


class CorpusSpec(BaseModel):
    """``corpus:``: where an imported case comes from in a public corpus, and that corpus's
    own ground truth (docs/import.md, "Public corpora"). ``kind: openrca`` carries the
    task's ``scoring_points``, which the OpenRCA profile scores answers against exactly as
    OpenRCA's evaluator does. Judge-only, like the rest of judge.yaml."""

    model_config = _STRICT
    kind: Literal["openrca", "rcaeval"]
    system: NonEmptyStr = Field(description="The corpus system or dataset (Bank, RE2-OB, ...).")
    row_id: int | None = Field(default=None, description="OpenRCA: the task's row in query.csv.")
    task_index: str | None = Field(default=None, description="OpenRCA: task_1 .. task_7.")
    scoring_points: str | None = Field(default=None, description="OpenRCA: the task's scoring "
                                       "points, as query.csv gives them.")
    source: str | None = Field(default=None, description="RCAEval: the case folder, relative "
                               "to the dataset dir (it names the fault: judge-only).")


class JudgeSpec(BaseModel):
    """``cases/<case_id>/judge.yaml``: ground truth, output detectors and per-bucket checks."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, title="JudgeSpec")
    case_id: Id
    ground_truth: GroundTruth
    scoring_profile: Id = "default"
    detectors: dict[Id, Detector] = Field(default_factory=dict)
    judge: JudgeRules
    proof: ProofSpec | None = Field(
        default=None, description="Proof exemption (rcaeval case prove); omitted: the case "
        "must be proven.")
    corpus: CorpusSpec | None = Field(
        default=None, description="The public corpus an imported case comes from (rcaeval "
        "import openrca / rcaeval); omitted for a case written by hand.")
    efficiency: EfficiencyBudget | None = Field(
        default=None, description="Budgets of steps, tokens and seconds (reported as the "
        "judgment's efficiency section; verdict-changing only with enforce: true).")

    @model_serializer(mode="wrap")
    def _drop_unset_efficiency(self, handler: SerializerFunctionWrapHandler) -> dict:
        # a spec without budgets (or without a corpus block) serialises as before the key
        # existed (rules_hash unchanged)
        data = handler(self)
        if isinstance(data, dict):
            for key in ("efficiency", "corpus"):
                if data.get(key) is None:
                    data.pop(key, None)
        return data


def apply_registry_grammar(spec: JudgeSpec, registry_grammar: Grammar | None) -> JudgeSpec:
    """A copy of ``spec`` whose every detector's ``grammar`` also holds the registry's
    extension (registry entries first), so ``rules_hash`` covers it. ``None`` / an empty
    registry grammar returns ``spec`` unchanged."""
    if registry_grammar is None or registry_grammar.is_empty() or not spec.detectors:
        return spec
    dets = {}
    for det_id, det in spec.detectors.items():
        doc = merge_extensions(registry_grammar, det.grammar)
        dets[det_id] = det.model_copy(
            update={"grammar": Grammar.model_validate(doc) if doc else None})
    return spec.model_copy(update={"detectors": dets})


CheckKind = Literal["check", "hard", "supporting"]


def iter_checks(rules: JudgeRules) -> Iterator[tuple[str, CheckKind, int, _CheckBase]]:
    """Every check as ``(bucket, kind, index, check)`` in bucket order; kind is ``hard`` /
    ``supporting`` for diagnosis and ``check`` elsewhere. Omitted buckets yield nothing."""
    for bucket in BUCKETS:
        if bucket == "diagnosis":
            for i, chk in enumerate(rules.diagnosis.hard_checks):
                yield bucket, "hard", i, chk
            for i, chk in enumerate(rules.diagnosis.supporting_checks):
                yield bucket, "supporting", i, chk
            continue
        spec = getattr(rules, bucket)
        if spec is None or spec.checks is None:
            continue
        for i, chk in enumerate(spec.checks):
            yield bucket, "check", i, chk


def check_yaml_path(bucket: str, kind: CheckKind, index: int) -> tuple[str | int, ...]:
    """The YAML key path of a check inside judge.yaml."""
    if bucket == "diagnosis":
        key = "hard_checks" if kind == "hard" else "supporting_checks"
        return ("judge", "diagnosis", key, index)
    return ("judge", bucket, "checks", index)
