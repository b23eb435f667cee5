"""Scenario templates (``scenarios/*.yaml``) and the shared library, as strict models.

A template is data: the incident story, its telemetry shapes, the judge rules it implies and
the texts the recorded agent behaviours answer with. See docs/synth.md for the field guide.
"""

from __future__ import annotations

import re
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from rcaeval._vocab import BUNDLE_CHANNELS
from rcaeval.errors import InputError
from rcaeval.registry import RootCause

_STRICT = ConfigDict(extra="forbid")
_HERE = Path(__file__).resolve().parent
SCENARIO_DIR = _HERE / "scenarios"
LIBRARY_FILE = _HERE / "library.yaml"
CHANNELS = BUNDLE_CHANNELS
REF_RE = re.compile(r"\{(log|metric|query|event):([a-z0-9_]+)(?:@([a-z0-9-]+))?\}")


class Anomaly(BaseModel):
    model_config = _STRICT
    instance: str | None = None
    shape: Literal["level", "ramp", "steps", "gap", "spike"]
    start: float = Field(alias="from", ge=0)
    to: float = Field(ge=0)
    value: float = 0.0


class MetricSpec(BaseModel):
    model_config = _STRICT
    key: str
    name: str
    instances: list[str] = Field(min_length=1)
    labels: dict[str, str] = Field(default_factory=dict)
    unit: str = ""
    base: float = 0.0
    jitter: float = 0.0
    counter: bool = False
    anomaly: Anomaly | None = None


class LogLine(BaseModel):
    model_config = _STRICT
    key: str | None = None
    at: float = Field(ge=0)
    instance: str
    level: Literal["DEBUG", "INFO", "WARN", "ERROR", "FATAL"]
    msg: str
    every: float | None = Field(default=None, gt=0)
    until: float | None = None


class QuerySpec(BaseModel):
    model_config = _STRICT
    key: str
    kind: Literal["slow_query", "top_sql", "plan", "kill"]
    sql_text: str
    instance: str
    exec_count: int
    avg_latency_ms: float
    max_latency_ms: float
    plan: str = ""
    note: str = ""


class EventSpec(BaseModel):
    model_config = _STRICT
    key: str | None = None
    at: float = Field(ge=0)
    type: Literal["Normal", "Warning"]
    object: str
    reason: str
    message: str


class HealthSpec(BaseModel):
    model_config = _STRICT
    instance: str
    status: str
    restarts: int = 0
    last_termination_reason: str | None = None
    uptime_s: int | None = None


class AlertSpec(BaseModel):
    model_config = _STRICT
    name: str
    state: str = "firing"
    severity: str = "critical"
    at: float = 0.0


class TicketSpec(BaseModel):
    model_config = _STRICT
    ticket_id: str
    source: str
    summary: str
    alerts: list[AlertSpec] = Field(min_length=1)


class GateSpec(BaseModel):
    """An alert rule or health gate evaluated over the incident (``incident/alerts.json``)."""

    model_config = _STRICT
    name: str
    status: Literal["pass", "fail", "warn"]
    detail: str
    at: float | None = None
    """Minute of the window it was evaluated (fired) at; default: the end of the window."""
    instance: str | None = None


class JudgeTemplate(BaseModel):
    model_config = _STRICT
    preferred_channels: list[str] = Field(default_factory=lambda: list(CHANNELS))
    min_preferred_channels: int = 1
    asserts: str
    must_not: list[str] = Field(min_length=1)
    missing_data: list[str] = Field(default_factory=list)
    detectors: dict[str, dict[str, Any]] = Field(default_factory=dict)
    critical_evidence: list[dict[str, Any]] = Field(min_length=1)
    supporting_checks: list[dict[str, Any]] = Field(default_factory=list)


class EvidenceItem(BaseModel):
    model_config = _STRICT
    role: Literal["key", "supporting"] = "supporting"
    claim: str
    refs: list[str] = Field(default_factory=list)


class AnswerSpec(BaseModel):
    model_config = _STRICT
    root_cause: str
    confidence: str = "high"
    evidence: list[EvidenceItem] = Field(min_length=1)
    ruled_out: list[str] = Field(default_factory=list)
    missing_data: list[str] = Field(default_factory=list)
    actions: list[str] = Field(min_length=1)
    followup: str | None = None


class MisdiagnosisSpec(BaseModel):
    model_config = _STRICT
    family: str
    root_cause: str
    evidence: list[EvidenceItem] = Field(min_length=1)
    actions: list[str] = Field(min_length=1)


class Window(BaseModel):
    model_config = _STRICT
    start: datetime
    minutes: int = Field(gt=0, le=24 * 60)
    tolerance_s: int = 600


class Scenario(BaseModel):
    """One incident template (scenarios/<case_id>.yaml)."""

    model_config = _STRICT
    case_id: str
    title: str
    case_type: Literal["known", "compositional", "novel", "tool_degraded"]
    tags: list[str] = Field(default_factory=list)
    cluster_id: str
    region: str = "us-east-1"
    window: Window
    topology: dict[Literal["tidb", "tikv", "pd"], int]
    prompt: str
    followup: list[str] = Field(default_factory=list)
    story: str
    ground_truth: RootCause  # the registry's own model: the template writes it verbatim
    ticket: TicketSpec
    unavailable: list[Literal[BUNDLE_CHANNELS]] = Field(  # type: ignore[valid-type]
        default_factory=list
    )
    noise_lines: int = Field(default=20, ge=0)
    logs: list[LogLine] = Field(default_factory=list)
    metrics: list[MetricSpec] = Field(default_factory=list)
    queries: list[QuerySpec] = Field(default_factory=list)
    events: list[EventSpec] = Field(default_factory=list)
    component_health: list[HealthSpec] = Field(default_factory=list)
    gate_checks: list[GateSpec] = Field(default_factory=list)
    judge: JudgeTemplate
    answer: AnswerSpec
    answer_zh: AnswerSpec | None = Field(
        default=None, description="The thorough answer written in Chinese (behaviour "
        "thorough_zh, recorded only for scenarios that have one).")
    misdiagnosis: MisdiagnosisSpec
    shallow: str

    @model_validator(mode="after")
    def _consistent(self) -> Scenario:
        lib = load_library()
        fams = lib["families"]
        for fam in [self.judge.asserts, *self.judge.must_not]:
            if fam not in fams:
                raise ValueError(f"unknown family {fam!r} (library.yaml families)")
        if self.misdiagnosis.family not in self.judge.must_not:
            raise ValueError("misdiagnosis.family must be one of judge.must_not")
        if self.judge.asserts != self.ground_truth.family:
            raise ValueError("judge.asserts must equal ground_truth.family")
        if sorted(self.judge.missing_data) != sorted(self.unavailable):
            raise ValueError("judge.missing_data must list exactly the unavailable channels")
        if (self.case_type == "tool_degraded") != bool(self.unavailable):
            raise ValueError("tool_degraded cases (and only they) declare unavailable channels")
        for ch in self.unavailable:
            if ch in self.judge.preferred_channels:
                raise ValueError(f"unavailable channel {ch!r} cannot be preferred")
        instances = set(self.instances())
        for spec in [*self.logs, *self.component_health]:
            if spec.instance not in instances:
                raise ValueError(f"unknown instance {spec.instance!r}")
        for m in self.metrics:
            for inst in m.instances:
                if inst not in instances:
                    raise ValueError(f"metric {m.key}: unknown instance {inst!r}")
        return self

    def instances(self) -> list[str]:
        out: list[str] = []
        for comp in ("pd", "tidb", "tikv"):
            out.extend(f"{comp}-{i}" for i in range(self.topology.get(comp, 0)))
        return out


def _read_yaml(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise InputError(f"malformed YAML: {exc}", file=str(path)) from exc


@cache
def load_library() -> dict[str, Any]:
    """The shared detector families, generic detectors and log-noise templates."""
    data = _read_yaml(LIBRARY_FILE)
    for key in ("families", "generic_detectors", "missing_data", "noise"):
        if not isinstance(data.get(key), dict):
            raise InputError(f"missing mapping {key!r}", file=str(LIBRARY_FILE))
    return data


def load_scenario(path: Path) -> Scenario:
    try:
        sc = Scenario.model_validate(_read_yaml(path))
    except ValidationError as exc:
        raise InputError(f"invalid scenario template:\n{exc}", file=str(path)) from exc
    if sc.case_id != path.stem:
        raise InputError(f"case_id {sc.case_id!r} != file name", file=str(path))
    return sc


def load_scenarios(directory: Path | None = None) -> list[Scenario]:
    """All scenario templates, sorted by case id (file name)."""
    directory = directory or SCENARIO_DIR
    paths = sorted(p for p in directory.glob("*.yaml") if not p.name.startswith("_"))
    if not paths:
        raise InputError("no scenario templates found", file=str(directory))
    return [load_scenario(p) for p in paths]
