"""The detector grammar's vocabularies: the shipped defaults (``defaults.yaml``), the model a
registry or a detector extends them with, and merging.

A vocabulary is a list of RE2 patterns, or a mapping ``language -> list`` (the groups are for
people; the judge uses their union, in order, duplicates dropped). Extensions only add.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Annotated, Any

import yaml
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationInfo

DEFAULTS_RESOURCE = "defaults.yaml"


def _flat(v: list[str] | dict[str, list[str]] | None) -> list[str]:
    if v is None:
        return []
    if isinstance(v, dict):
        return [p for group in v.values() for p in group]
    return list(v)


_SHIPPED = "shipped"
"""Validation context key: the packaged defaults, whose patterns tests/judge/test_grammar.py
compiles with RE2 once, so a process loading them does not (a DuckDB query per pattern)."""


def _check(v: list[str] | dict[str, list[str]],
           info: ValidationInfo) -> list[str] | dict[str, list[str]]:
    from rcaeval.registry import re2_problem

    shipped = bool(info.context and info.context.get(_SHIPPED))
    for pattern in _flat(v):
        if not isinstance(pattern, str) or not pattern.strip():
            raise ValueError("a grammar entry must be a non-empty RE2 pattern")
        if shipped:
            continue
        problem = re2_problem(pattern)
        if problem:
            raise ValueError(problem)
    return v


Vocab = Annotated[list[str] | dict[str, list[str]], AfterValidator(_check)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Cues(_Strict):
    """Cues that act on what follows them (``before``) or on what precedes them (``after``)."""

    before: Vocab = Field(default_factory=list)
    after: Vocab = Field(default_factory=list)


class RoleCues(_Strict):
    """Wording that names a mention as something other than the cause."""

    symptom: Cues = Field(default_factory=Cues)
    contributing: Cues = Field(default_factory=Cues)
    consequence: Cues = Field(default_factory=Cues)


class Grammar(_Strict):
    """The detector grammar (docs/registry.md, "Detector grammar"). As an extension (a
    registry's ``grammar.yaml``, a detector's ``grammar:``) every key is optional and adds to
    the defaults."""

    conclusion_labels: Vocab = Field(default_factory=list)
    alternative_labels: Vocab = Field(default_factory=list)
    role_labels: Vocab = Field(default_factory=list)
    evidence_labels: Vocab = Field(default_factory=list)
    subordinate_labels: Vocab = Field(default_factory=list)
    causal_cues: Vocab = Field(default_factory=list)
    anaphoric_claims: Vocab = Field(default_factory=list)
    negation_cues: Cues = Field(default_factory=Cues)
    hedge_cues: Cues = Field(default_factory=Cues)
    role_cues: RoleCues = Field(default_factory=RoleCues)
    consequence_cues: Cues = Field(default_factory=Cues)
    pick_cues: Vocab = Field(default_factory=list)
    retraction_cues: Vocab = Field(default_factory=list)
    subject_breaks: Vocab = Field(default_factory=list)
    clause_breaks: Vocab = Field(default_factory=list)

    def is_empty(self) -> bool:
        return not any(flat_items(self).values())


def flat_items(g: Grammar) -> dict[str, list[str]]:
    """Every vocabulary of ``g`` as a flat list, keyed by its dotted name
    (``negation_cues.before``, ``role_cues.symptom.after``, ...)."""
    out: dict[str, list[str]] = {}
    for name in ("conclusion_labels", "alternative_labels", "role_labels", "evidence_labels",
                 "subordinate_labels", "causal_cues", "anaphoric_claims", "pick_cues",
                 "retraction_cues", "subject_breaks", "clause_breaks"):
        out[name] = _flat(getattr(g, name))
    for name in ("negation_cues", "hedge_cues", "consequence_cues"):
        cues: Cues = getattr(g, name)
        out[f"{name}.before"] = _flat(cues.before)
        out[f"{name}.after"] = _flat(cues.after)
    for role in ("symptom", "contributing", "consequence"):
        cues = getattr(g.role_cues, role)
        out[f"role_cues.{role}.before"] = _flat(cues.before)
        out[f"role_cues.{role}.after"] = _flat(cues.after)
    return out


def _as_dict(g: Grammar | dict[str, Any] | None) -> dict[str, list[str]]:
    if g is None:
        return {k: [] for k in flat_items(Grammar())}
    if not isinstance(g, Grammar):
        g = Grammar.model_validate(g)
    return flat_items(g)


@lru_cache(maxsize=1)
def _defaults_text() -> str:
    return resources.files("rcaeval.grammar").joinpath(DEFAULTS_RESOURCE).read_text("utf-8")


@lru_cache(maxsize=1)
def default_grammar() -> Grammar:
    """The shipped English + Chinese defaults (parsed and validated once; their RE2 syntax is
    checked by the tests, not at every load)."""
    return Grammar.model_validate(yaml.safe_load(_defaults_text()), context={_SHIPPED: True})


def defaults_digest_bytes() -> bytes:
    """The defaults file's bytes (the judge's SQL digest covers them)."""
    return _defaults_text().encode("utf-8")


def merged(*extensions: Grammar | dict[str, Any] | None) -> dict[str, list[str]]:
    """The defaults extended by each of ``extensions`` in order: ``{dotted name: patterns}``,
    duplicates dropped (first occurrence kept)."""
    out = flat_items(default_grammar())
    for ext in extensions:
        if ext is None:
            continue
        for key, patterns in _as_dict(ext).items():
            out[key] = list(dict.fromkeys(out[key] + patterns))
    return out


def merge_extensions(*extensions: Grammar | dict[str, Any] | None) -> dict[str, Any] | None:
    """Several extensions as one (registry first, then detector), in the Grammar shape with
    flat lists; ``None`` when all are empty."""
    acc = {k: [] for k in flat_items(Grammar())}
    for ext in extensions:
        if ext is None:
            continue
        for key, patterns in _as_dict(ext).items():
            acc[key] = list(dict.fromkeys(acc[key] + patterns))
    if not any(acc.values()):
        return None
    doc: dict[str, Any] = {}
    for key, patterns in acc.items():
        if not patterns:
            continue
        parts = key.split(".")
        node = doc
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        node[parts[-1]] = patterns
    return doc
