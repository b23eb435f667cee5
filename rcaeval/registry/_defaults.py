"""Bucket defaults (``judge_defaults.yaml``) and their application to a parsed judge spec."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import TypeVar

import yaml
from pydantic import BaseModel, ConfigDict

from rcaeval._vocab import REQUIRED_BY_DEFAULT, SOFT_BY_DEFAULT
from rcaeval.registry._judge import (
    Bucket,
    Diagnosis,
    EvidenceCollectionBucket,
    JudgeSpec,
    _CheckBase,
)

DEFAULTS_RESOURCE = "judge_defaults.yaml"
_C = TypeVar("_C", bound=_CheckBase)


class JudgeDefaults(BaseModel):
    """The shape of judge_defaults.yaml: every defaultable bucket with its checks."""

    model_config = ConfigDict(extra="forbid")
    contract: Bucket
    workflow: Bucket
    execution_contract: Bucket
    evidence_collection: EvidenceCollectionBucket
    evidence_routing: Bucket


@lru_cache(maxsize=1)
def judge_defaults() -> JudgeDefaults:
    """The packaged bucket defaults (parsed and validated once)."""
    text = resources.files("rcaeval.registry").joinpath(DEFAULTS_RESOURCE).read_text("utf-8")
    defaults = JudgeDefaults.model_validate(yaml.safe_load(text))
    for name in JudgeDefaults.model_fields:
        if getattr(defaults, name).checks is None:
            raise ValueError(f"{DEFAULTS_RESOURCE}: bucket {name!r} has no checks")
    return defaults


def _resolve(checks: list[_C], required_default: bool) -> list[_C]:
    """``required`` and ``soft`` of each check resolved to a bool (docs/registry.md)."""
    out = []
    for c in checks:
        update: dict[str, bool] = {}
        if c.required is None:
            update["required"] = required_default
        if c.soft is None:
            update["soft"] = c.id in SOFT_BY_DEFAULT
        out.append(c.model_copy(update=update) if update else c)
    return out


def apply_defaults(spec: JudgeSpec) -> JudgeSpec:
    """A copy of ``spec`` whose every bucket is present, with default checks where a bucket (or
    its ``checks``) was omitted, and every check's ``required`` and ``soft`` resolved to a bool."""
    defaults = judge_defaults()
    rules = spec.judge
    update: dict[str, object] = {}
    for name in ("contract", "workflow", "execution_contract", "evidence_routing"):
        given: Bucket | None = getattr(rules, name)
        checks = given.checks if given is not None and given.checks is not None else None
        if checks is None:
            checks = getattr(defaults, name).checks or []
        update[name] = Bucket(checks=_resolve(checks, name in REQUIRED_BY_DEFAULT))
    ec = rules.evidence_collection
    if ec is None:
        ec = defaults.evidence_collection
    checks = ec.checks if ec.checks is not None else defaults.evidence_collection.checks or []
    update["evidence_collection"] = ec.model_copy(
        update={"checks": _resolve(checks, "evidence_collection" in REQUIRED_BY_DEFAULT)}
    )
    ce = rules.critical_evidence
    update["critical_evidence"] = ce.model_copy(
        update={"checks": _resolve(ce.checks, "critical_evidence" in REQUIRED_BY_DEFAULT)}
    )
    dg = rules.diagnosis
    update["diagnosis"] = Diagnosis(
        mode=dg.mode,
        hard_checks=_resolve(dg.hard_checks, "diagnosis.hard" in REQUIRED_BY_DEFAULT),
        supporting_checks=_resolve(
            dg.supporting_checks, "diagnosis.supporting" in REQUIRED_BY_DEFAULT
        ),
    )
    new_rules = rules.model_copy(update=update)
    return spec.model_copy(update={"judge": new_rules})


__all__ = ["JudgeDefaults", "apply_defaults", "judge_defaults"]
