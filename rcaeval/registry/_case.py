"""The run-visible case model: ``cases/<case_id>/case.yaml`` (docs/registry.md)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import PurePosixPath
from typing import Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, field_validator, model_validator

from rcaeval.registry._common import INT32_MAX, Id
from rcaeval.registry._conditions import NonEmptyStr

_STRICT = ConfigDict(extra="forbid", allow_inf_nan=False)

JUDGE_ONLY_FIELDS = ("ground_truth", "judge", "root_cause", "expected", "detectors")
"""Keys that must never appear in case.yaml: they would cross the information boundary."""

CaseType = Literal["known", "compositional", "novel", "tool_degraded"]


class Prompt(BaseModel):
    model_config = _STRICT
    text: NonEmptyStr


class Environment(BaseModel):
    model_config = _STRICT
    cluster_id: NonEmptyStr
    product: str | None = None
    region: str | None = None


class TimeWindow(BaseModel):
    """The incident window, normalised to UTC; a run may deviate by ``tolerance_s``."""

    model_config = _STRICT
    start: AwareDatetime
    end: AwareDatetime
    tolerance_s: int = Field(default=600, ge=0, le=INT32_MAX)

    @field_validator("start", "end", mode="before")
    @classmethod
    def _timestamp_not_number(cls, value: object) -> object:
        # pydantic would read a number as seconds since the epoch: `start: 0` is 1970, which is
        # never what a registry author meant. Require a timestamp with a timezone.
        if isinstance(value, bool | int | float):
            raise ValueError(f"must be an ISO-8601 timestamp with a timezone, e.g. "
                             f"2026-10-03T14:00:00Z (got the number {value!r})")
        return value

    @field_validator("start", "end")
    @classmethod
    def _to_utc(cls, value: datetime) -> datetime:
        return value.astimezone(UTC)

    @model_validator(mode="after")
    def _ordered(self) -> TimeWindow:
        if self.start >= self.end:
            raise ValueError(
                f"time_window.start ({self.start.isoformat()}) must be before "
                f"time_window.end ({self.end.isoformat()})"
            )
        return self


class CaseExecution(BaseModel):
    model_config = _STRICT
    max_turns: int | None = Field(default=None, ge=1)
    timeout_s: float | None = Field(default=None, gt=0)
    cpus: float | None = Field(default=None, gt=0, description=(
        "CPUs this case asks of a Ray node (default: the suite's execution.cpus)"))
    memory_mb: int | None = Field(default=None, ge=1, description=(
        "memory (MiB) this case asks of a Ray node (default: the suite's execution.memory_mb)"))


class Followup(BaseModel):
    model_config = _STRICT
    text: NonEmptyStr


class CaseSpec(BaseModel):
    """``cases/<case_id>/case.yaml``: everything here is visible to the agent."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, title="CaseSpec")
    case_id: Id
    title: NonEmptyStr
    case_type: CaseType
    tags: list[str] = Field(default_factory=list)
    prompt: Prompt
    environment: Environment
    time_window: TimeWindow
    execution: CaseExecution = Field(default_factory=CaseExecution)
    followup: list[Followup] = Field(default_factory=list)
    incident_data: str | None = Field(
        default=None, description="A directory relative to the case dir, copied into the workspace."
    )
    draft: bool = Field(default=False, exclude=True, description=(
        "Written by `rcaeval case new` and not yet reviewed: `validate` warns until it is "
        "removed. Never shown to the agent."))

    @field_validator("incident_data")
    @classmethod
    def _relative_dir(cls, value: str | None) -> str | None:
        if value is None:
            return None
        p = PurePosixPath(value)
        if (not value.strip() or p.is_absolute() or ".." in p.parts or "\\" in value
                or not p.parts):  # "." or "./": the case dir itself, judge.yaml included
            raise ValueError(
                f"incident_data {value!r} must be a relative directory inside the case dir"
            )
        return value
