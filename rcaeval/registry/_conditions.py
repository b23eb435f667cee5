"""Check conditions: facts, detectors and the critical-evidence methods.

A condition is a discriminated union keyed on which of ``fact`` / ``detector`` / ``method`` it
carries. Ordinary buckets accept :data:`Condition` (facts and detectors); critical_evidence
accepts :data:`EvidenceCondition` (those plus the evidence methods).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag

from rcaeval._vocab import EVIDENCE_METHODS
from rcaeval.registry._common import FileName, Id, JsonPathLite

_STRICT = ConfigDict(extra="forbid", allow_inf_nan=False)
NonEmptyStr = Annotated[str, Field(min_length=1)]


class FactCondition(BaseModel):
    """``{fact: NAME}``: a catalog fact is true (or false with ``expect: false``)."""

    model_config = _STRICT
    fact: str = Field(min_length=1, description="A fact name from the catalog (docs/registry.md).")
    expect: bool = True


class DetectorCondition(BaseModel):
    """``{detector: ID}``: an output detector declared in this judge.yaml fired (or not)."""

    model_config = _STRICT
    detector: Id
    expect: bool = True


class KeywordAny(BaseModel):
    """Some line/text of ``source`` contains one of ``keywords`` (case-insensitive)."""

    model_config = _STRICT
    method: Literal["keyword_any"]
    source: FileName = Field(
        description="'logs' (log lines of logs/ and evidences/logs.json) or an evidence file name"
    )
    keywords: list[NonEmptyStr] = Field(min_length=1)


class JsonListNonempty(BaseModel):
    """The value at ``path`` in ``evidences/<file>`` is a non-empty list."""

    model_config = _STRICT
    method: Literal["json_list_nonempty"]
    file: FileName
    path: JsonPathLite


class JsonTextContainsAny(BaseModel):
    """A string at/under ``path`` (anywhere when omitted) contains a needle (case-insensitive)."""

    model_config = _STRICT
    method: Literal["json_text_contains_any"]
    file: FileName
    path: JsonPathLite | None = None
    needles: list[NonEmptyStr] = Field(min_length=1)


class NumericSeriesAnyGt(BaseModel):
    """Some point of a series named ``series`` (labels matching exactly) is > ``threshold``."""

    model_config = _STRICT
    method: Literal["numeric_series_any_gt"]
    file: FileName = "metrics.json"
    series: NonEmptyStr
    labels: dict[str, str] = Field(default_factory=dict)
    threshold: float


class SpanErrorAny(BaseModel):
    """Some trace span of ``file`` has status ``error`` (of ``service`` when given; with
    ``keywords``, a string at or under the span contains one, case-insensitive)."""

    model_config = _STRICT
    method: Literal["span_error_any"]
    file: FileName = "traces.json"
    service: NonEmptyStr | None = Field(
        default=None, description="Only spans of this service (case-insensitive).")
    keywords: list[NonEmptyStr] = Field(
        default_factory=list, description="Needles one of the span's strings (status message, "
        "attributes, events) must contain; empty: any error span.")


EvidenceMethod = (KeywordAny | JsonListNonempty | JsonTextContainsAny | NumericSeriesAnyGt
                  | SpanErrorAny)


def _condition_tag(value: Any) -> str | None:
    if isinstance(value, BaseModel):
        if isinstance(value, FactCondition):
            return "fact"
        if isinstance(value, DetectorCondition):
            return "detector"
        return getattr(value, "method", None)
    if isinstance(value, dict):
        if "method" in value:
            method = value["method"]
            return method if isinstance(method, str) else None
        if "fact" in value:
            return "fact"
        if "detector" in value:
            return "detector"
    return None


Condition = Annotated[
    Annotated[FactCondition, Tag("fact")] | Annotated[DetectorCondition, Tag("detector")],
    Discriminator(
        _condition_tag,
        custom_error_type="condition_kind",
        custom_error_message=(
            "a condition here is {fact: NAME} or {detector: ID}; evidence methods "
            "(method: ...) are allowed only in judge.critical_evidence checks"
        ),
    ),
]
"""A condition of an ordinary bucket or diagnosis check."""

EvidenceCondition = Annotated[
    Annotated[FactCondition, Tag("fact")]
    | Annotated[DetectorCondition, Tag("detector")]
    | Annotated[KeywordAny, Tag("keyword_any")]
    | Annotated[JsonListNonempty, Tag("json_list_nonempty")]
    | Annotated[JsonTextContainsAny, Tag("json_text_contains_any")]
    | Annotated[NumericSeriesAnyGt, Tag("numeric_series_any_gt")]
    | Annotated[SpanErrorAny, Tag("span_error_any")],
    Discriminator(
        _condition_tag,
        custom_error_type="evidence_condition_kind",
        custom_error_message=(
            "a condition is {fact: NAME}, {detector: ID} or {method: M, ...} with M one of "
            + ", ".join(EVIDENCE_METHODS)
        ),
    ),
]
"""A condition of a critical_evidence check."""
