"""What the judge consumes for one case: case + judge (defaults applied) + paths + rules hash."""

from __future__ import annotations

import hashlib
from pathlib import Path

import orjson
from pydantic import BaseModel, ConfigDict

from rcaeval.registry._case import CaseSpec
from rcaeval.registry._judge import JudgeSpec


class MergedCase(BaseModel):
    """One case ready for judging. ``judge`` has every bucket present and every check's
    ``required`` resolved (see :func:`rcaeval.registry.apply_defaults`)."""

    model_config = ConfigDict(frozen=True)
    case: CaseSpec
    judge: JudgeSpec
    case_dir: Path
    incident_dir: Path | None = None
    expected_md: Path | None = None

    @property
    def case_id(self) -> str:
        return self.case.case_id

    @property
    def rules_hash(self) -> str:
        return rules_hash(self)


CaseBundle = MergedCase
"""Alias: the registry's bundle of everything known about one case."""


def canonical_judge_json(judge: JudgeSpec) -> bytes:
    """Canonical JSON (sorted keys, compact) of a judge spec as given, without its ``proof``
    block (a proof exemption never changes a judgment)."""
    return orjson.dumps(judge.model_dump(mode="json", exclude={"proof"}),
                        option=orjson.OPT_SORT_KEYS)


def rules_hash(merged: MergedCase | JudgeSpec) -> str:
    """sha256 hex of the canonical JSON of the judge spec with defaults applied. Pass a
    :class:`MergedCase` (already defaulted) or a parsed :class:`JudgeSpec` (defaulted here)."""
    if isinstance(merged, MergedCase):
        judge = merged.judge
    else:
        from rcaeval.registry._defaults import apply_defaults

        judge = apply_defaults(merged)
    return hashlib.sha256(canonical_judge_json(judge)).hexdigest()
