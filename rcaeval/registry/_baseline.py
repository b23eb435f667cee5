"""The baseline model: ``baselines/<suite_id>.yaml``, the blessed result of a suite version.

Baselines are written by ``rcaeval`` itself, so unknown extra keys are kept (``extra="allow"``)
rather than rejected: a newer writer may record more than this model knows.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, field_validator

from rcaeval._vocab import VERDICTS
from rcaeval.registry._common import Id
from rcaeval.registry._conditions import NonEmptyStr

_LENIENT = ConfigDict(extra="allow", populate_by_name=True, allow_inf_nan=False)

Verdict = Literal[VERDICTS]  # type: ignore[valid-type]


class BaselineSummary(BaseModel):
    model_config = _LENIENT
    cases: int = Field(ge=0)
    pass_: int = Field(ge=0, alias="pass")
    fail: int = Field(ge=0)
    invalid: int = Field(ge=0)
    total_score: float


class BaselineCase(BaseModel):
    model_config = _LENIENT
    case_id: Id
    verdict: Verdict
    score: float
    subtype: str | None = None
    baseline_eligible: bool = True


class BaselineSpec(BaseModel):
    """``baselines/<suite_id>.yaml``."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, allow_inf_nan=False,
                              title="BaselineSpec")
    suite_id: Id
    suite_version: NonEmptyStr
    run_id: NonEmptyStr
    promoted_at: AwareDatetime
    judge_version: NonEmptyStr
    rules_hash: str | None = None
    summary: BaselineSummary
    cases: list[BaselineCase] = Field(default_factory=list)

    @field_validator("promoted_at")
    @classmethod
    def _to_utc(cls, value: datetime) -> datetime:
        return value.astimezone(UTC)
