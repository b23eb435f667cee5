"""Offline fixtures (docs/offline.md): one JSON object per line, one evaluated case each.

A fixture pairs a captured, post-harness RCA response (the ``rca_response/1`` contract) with
its review labels: the case type, the expected family, the expected outcome(s) and the
reviewer-labelled relevant evidence ids. A malformed line marks that one case invalid (the
error names the file, the line and the field) and loses nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from rcaeval._inputs import read_input
from rcaeval.errors import InputError, NotFoundError, validation_error
from rcaeval.harness import RcaResponse

FIXTURE_FORMAT = "rcaeval.offline_fixture/1"
CASE_TYPES: tuple[str, ...] = ("known", "compositional", "novel", "tool_degraded")
OUTCOMES: tuple[str, ...] = ("diagnosed", "provisional", "insufficient_evidence", "degraded")
LEGACY_KEYS: dict[str, str] = {
    "novel_hypothesis": (
        "the legacy 'novel_hypothesis' input is rejected: offline evaluation grades the "
        "system's own captured response ('response'), never a novel conclusion the fixture "
        "supplies; export the post-harness response and label 'expected_outcome' instead"),
}

CaseType = Literal["known", "compositional", "novel", "tool_degraded"]
Outcome = Literal["diagnosed", "provisional", "insufficient_evidence", "degraded"]


class HarnessCapture(BaseModel):
    """What the runtime harness said about the captured response (its final pass)."""

    model_config = ConfigDict(extra="forbid")

    status: Literal["passed", "repaired", "degraded", "insufficient_evidence", "disabled"]
    gates: dict[str, bool] = Field(
        default_factory=dict, description="Final gate results by gate id (gate1_... gate4_...).")


class Fixture(BaseModel):
    """One offline case. Unknown top-level keys are rejected (a typo would silently drop a
    label); ``response`` follows the RCA response contract."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    case_id: str = Field(min_length=1)
    case_type: CaseType
    expected_family: str | None = Field(
        default=None, description="The true root-cause family; required for known and "
        "compositional cases, optional (the novel mechanism) for novel ones.")
    expected_outcome: list[Outcome] = Field(
        min_length=1, description="The acceptable outcome(s); a string is one outcome.")
    expected_novel: bool | None = Field(
        default=None, description="Whether a correct answer flags the incident novel; "
        "default: case_type == 'novel'.")
    relevant_evidence_ids: list[str] = Field(
        default_factory=list, description="Reviewer-labelled evidence ids (as in the "
        "captured response's evidence[].id) a correct answer links its claims to.")
    familiar_families: list[str] | None = Field(
        default=None, description="Families the system already knows; naming one for a novel "
        "case is a forced familiar family. Default: every known case's expected_family.")
    causal_chain: list[str] = Field(
        default_factory=list, description="Compositional: families in causal order, root "
        "first (the root is expected_family).")
    missing_sources: list[str] = Field(
        default_factory=list, description="Tool-degraded: the data sources that were down.")
    source: str | None = Field(default=None, description="Where the case came from (a known "
                               "case id and mutation, a capture export, ...).")
    note: str = ""
    harness: HarnessCapture | None = Field(
        default=None, description="The harness's final result for the response; missing = "
        "the response never passed the final safety gate.")
    response: RcaResponse

    @field_validator("expected_outcome", mode="before")
    @classmethod
    def _one_or_many(cls, v: Any) -> Any:
        return [v] if isinstance(v, str) else v

    @model_validator(mode="after")
    def _consistent(self) -> Fixture:
        if self.case_type in ("known", "compositional") and not self.expected_family:
            raise ValueError(f"a {self.case_type} case needs expected_family")
        if self.causal_chain and self.causal_chain[0] != self.expected_family:
            raise ValueError("causal_chain must start with expected_family (the root)")
        return self

    def novel_expected(self) -> bool:
        return self.case_type == "novel" if self.expected_novel is None else self.expected_novel


@dataclass(slots=True)
class FixtureError:
    """One line that could not be used, and why."""

    file: str
    line: int
    case_id: str | None
    field: str | None
    message: str

    def render(self) -> str:
        return InputError(self.message, file=self.file, line=self.line, field=self.field).render()

    def as_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "case_id": self.case_id,
                "field": self.field, "message": self.message}


@dataclass(slots=True)
class FixtureSet:
    """The valid fixtures of one file (with their line numbers), the invalid lines, and (for
    a capture export) the valid captures left ungraded because nothing labels them."""

    path: str
    fixtures: list[Fixture] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    errors: list[FixtureError] = field(default_factory=list)
    skipped: list[FixtureError] = field(default_factory=list)

    def familiar_families(self) -> list[str]:
        """Default familiar families: the expected families of the known cases."""
        return sorted({f.expected_family for f in self.fixtures
                       if f.case_type == "known" and f.expected_family})


def parse_fixture(obj: Any, *, file: str = "<input>", line: int = 1) -> Fixture:
    """Validate one fixture object; raise :class:`InputError` naming file, line and field."""
    if not isinstance(obj, dict):
        raise InputError(f"a fixture must be a JSON object, got {type(obj).__name__}",
                         file=file, line=line)
    for key, why in LEGACY_KEYS.items():
        if key in obj:
            raise InputError(why, file=file, line=line, field=key)
    try:
        return Fixture.model_validate(obj)
    except ValidationError as exc:
        raise validation_error(exc, file=file, line=line) from None


def read_fixtures(path: str | Path) -> FixtureSet:
    """Read a JSONL fixture file. Bad lines become :class:`FixtureError` rows; the file as a
    whole fails only when it is missing, unreadable or holds no fixture line at all."""
    p = Path(path)
    if not p.exists():
        raise NotFoundError(f"{p}: no such fixture file")
    text = read_input(p, "offline")  # a regular file within the cap (rcaeval._inputs)
    out = FixtureSet(str(p))
    seen: dict[str, int] = {}
    for lineno, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        cid: str | None = None
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            out.errors.append(FixtureError(str(p), lineno, None, None, f"invalid JSON: {exc}"))
            continue
        if isinstance(obj, dict) and isinstance(obj.get("case_id"), str):
            cid = obj["case_id"]
        try:
            fx = parse_fixture(obj, file=str(p), line=lineno)
        except InputError as exc:
            out.errors.append(FixtureError(str(p), lineno, cid, exc.field, exc.message))
            continue
        if fx.case_id in seen:
            out.errors.append(FixtureError(
                str(p), lineno, fx.case_id, "case_id",
                f"duplicate case_id {fx.case_id!r} (first on line {seen[fx.case_id]})"))
            continue
        seen[fx.case_id] = lineno
        out.fixtures.append(fx)
        out.lines.append(lineno)
    if not out.fixtures and not out.errors:
        raise InputError("holds no fixtures", file=str(p))
    return out


def dump_fixtures(fixtures: list[Fixture] | list[dict[str, Any]]) -> bytes:
    """JSONL bytes of fixtures (defaults omitted, keys in model order)."""
    lines = []
    for fx in fixtures:
        data = fx.model_dump(mode="json", exclude_none=True, exclude_defaults=True) \
            if isinstance(fx, Fixture) else fx
        if isinstance(fx, Fixture):
            data["expected_outcome"] = list(fx.expected_outcome)
            data["response"] = fx.response.model_dump(mode="json", exclude_none=True)
        lines.append(orjson.dumps(data))
    return b"\n".join(lines) + b"\n"
