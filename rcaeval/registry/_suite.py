"""The suite model: ``suites/<suite_id>.yaml`` (docs/registry.md)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from rcaeval.registry._common import Id
from rcaeval.registry._conditions import NonEmptyStr

_STRICT = ConfigDict(extra="forbid", allow_inf_nan=False)

ToolsMode = Literal["mcp", "files", "both"]
"""How agents get the incident data (docs/agents.md, "Incident tools"): the MCP incident tools,
the ``incident/`` file copy, or both."""
DEFAULT_TOOLS_MODE: ToolsMode = "both"


class ExecutionPolicy(BaseModel):
    """Execution-policy metadata the runner honours."""

    model_config = _STRICT
    jobs: int = Field(default=2, ge=1, description="cases in parallel")
    case_timeout_s: float = Field(default=900, gt=0, description="per-case wall clock")
    max_infra_retries: int = Field(default=1, ge=0, description="retries for infra errors only")
    turn_timeout_s: float = Field(default=600, gt=0, description="per prompt turn (ACP)")
    tools: ToolsMode = Field(default=DEFAULT_TOOLS_MODE, description=(
        "incident data as MCP tools (mcp), as incident/ files (files), or both"))
    cpus: float = Field(default=1, gt=0, description=(
        "CPUs one case asks of a Ray node (--executor ray; docs/distributed.md)"))
    memory_mb: int | None = Field(default=None, ge=1, description=(
        "memory (MiB) one case asks of a Ray node (--executor ray); none: no request"))


class SuiteCase(BaseModel):
    model_config = _STRICT
    id: Id
    status: Literal["active", "quarantined"] = "active"
    baseline_eligible: bool = True
    tags: list[str] = Field(default_factory=list)


class SuiteSpec(BaseModel):
    """``suites/<suite_id>.yaml``: which cases run together and how."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, title="SuiteSpec")
    suite_id: Id
    version: NonEmptyStr = Field(description="suite_version: baselines are keyed on it")
    description: str = ""
    execution: ExecutionPolicy = Field(default_factory=ExecutionPolicy)
    cases: list[SuiteCase] = Field(min_length=1)

    @property
    def case_ids(self) -> list[str]:
        return [c.id for c in self.cases]
