"""Fault scenarios of the lab: one YAML file each (``rcaeval/lab/scenarios/``), validated
here. A scenario names its injector (from a fixed catalog), the alert its fault is expected to
fire, the ground truth, the judge's rules and the recovery check. Bad input is an
:class:`~rcaeval.errors.InputError` naming the file and the field."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from rcaeval._paths import queries_dir
from rcaeval._vocab import EVIDENCE_CHANNELS
from rcaeval.errors import InputError, NotFoundError, validation_error

SCENARIO_DIR = Path(__file__).parent / "scenarios"
RULES_FILE = Path(__file__).parent / "config" / "rules.yml"
STOPPABLE = ("node_exporter", "pg_exporter", "service", "loadgen", "workload")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SqlInjector(_Model):
    """Run one SQL file once as the lab's superuser; ``revert`` undoes it."""

    kind: Literal["sql"]
    file: str
    revert: str


class SessionInjector(_Model):
    """A pgbench script held open by ``clients`` connections until reverted."""

    kind: Literal["session"]
    script: str
    clients: int = Field(ge=1, le=50)
    role: Literal["app", "lab"] = "app"


class StopInjector(_Model):
    """Stop one lab component; reverting starts it again."""

    kind: Literal["stop_component"]
    component: Literal[STOPPABLE]  # type: ignore[valid-type]


class CpuHogInjector(_Model):
    """``stress-ng --cpu N --cpu-load L`` beside the database, as the lab user."""

    kind: Literal["cpu_hog"]
    cpu_workers: int = Field(ge=1, le=8)
    cpu_load: int = Field(default=100, ge=10, le=100)


class FillVolumeInjector(_Model):
    """A ``size_mb`` tmpfs at ``LAB/disk`` holding tablespace ``volume`` (with ``tables``
    moved into it), filled to the last byte by ``file`` (needs root)."""

    kind: Literal["fill_volume"]
    volume: str = Field(pattern=r"^[a-z][a-z0-9_]{0,30}$")
    size_mb: int = Field(ge=8, le=256)
    tables: list[str] = Field(min_length=1)
    file: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,80}$")

    @field_validator("tables")
    @classmethod
    def _table_names(cls, value: list[str]) -> list[str]:
        for name in value:
            if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", name):
                raise ValueError(f"{name!r} is not a plain table name")
        return value


class SquatPortInjector(_Model):
    """A stray debug file server takes ``component``'s port while it restarts, so every
    restart fails to listen (a crash loop under the lab's supervisor)."""

    kind: Literal["squat_port"]
    component: Literal["service"]


Injector = Annotated[SqlInjector | SessionInjector | StopInjector | CpuHogInjector
                     | FillVolumeInjector | SquatPortInjector, Field(discriminator="kind")]


class ExpectedAlert(_Model):
    name: str
    within_s: int = Field(ge=5, le=900)


class GroundTruth(_Model):
    family: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    component: str = Field(min_length=1)
    summary: str = Field(min_length=1)
    mechanism: str | None = None


class Detector(_Model):
    description: str = Field(min_length=1)
    any: list[str] = Field(min_length=1)
    all: list[str] = []

    @field_validator("any", "all")
    @classmethod
    def _regexes(cls, value: list[str]) -> list[str]:
        for i, pattern in enumerate(value):
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"pattern {i} ({pattern!r}) is not a regex: {exc}") from None
        return value


class Misdiagnosis(Detector):
    """The wrong cause the scenario invites: its detector ``id`` (``asserts_<family>``)
    becomes the case's guard (``avoids_<family>_misdiagnosis``), the answer a wrong agent
    gives."""

    id: str = Field(pattern=r"^asserts_[a-z][a-z0-9_]*$")


class JudgeRules(_Model):
    required_channels: list[Literal[EVIDENCE_CHANNELS]] = Field(min_length=1)  # type: ignore[valid-type]
    key_metrics: list[str] = []
    detectors: dict[str, Detector] = Field(min_length=1)
    critical: list[dict] = Field(min_length=1)
    """Critical-evidence checks in judge.yaml's form (checked when the case loads)."""
    misdiagnosis: Misdiagnosis


class Recovery(_Model):
    """Healthy when ``promql`` returns a non-empty vector continuously for ``hold_s``
    seconds, within ``within_s`` seconds of the mitigation."""

    promql: str = Field(min_length=1)
    hold_s: int = Field(ge=2, le=600)
    within_s: int = Field(ge=5, le=1800)


class OracleCall(_Model):
    """One read-only tool call of the oracle agent (its results are cited)."""

    tool: str = Field(pattern=r"^[a-z_]+$")
    args: dict[str, Any] = {}


class OracleTarget(_Model):
    """A target read from the result of evidence call ``step``: ``field`` of each row of the
    list ``rows`` (list values flattened) whose fields contain the ``where`` substrings,
    ordered by ``order_by`` (ascending, or ``descending``) when given; ``first`` keeps only
    the first value."""

    step: int = Field(ge=0)
    rows: str = Field(min_length=1)
    field: str = Field(min_length=1)
    where: dict[str, str] = {}
    order_by: str | None = None
    descending: bool = False
    first: bool = False


class OracleAction(_Model):
    action: str = Field(min_length=1)
    target: str | OracleTarget
    verification: str | None = None
    impact_rollback: str = Field(min_length=1)


class Oracle(_Model):
    """What the oracle agent (``rcaeval.examples.lab_agent --behaviour oracle``) does for this
    scenario: the evidence calls, the mitigation, the root cause it reports."""

    evidence: list[OracleCall] = Field(min_length=1)
    action: OracleAction | None = None
    root_cause: str = Field(min_length=1)

    @field_validator("action")
    @classmethod
    def _known_action(cls, value: OracleAction | None) -> OracleAction | None:
        from rcaeval.lab._actions import ACTIONS

        if value is not None and value.action not in ACTIONS:
            raise ValueError(f"action {value.action!r} is not in the catalog "
                             f"({', '.join(ACTIONS)})")
        return value


class Scenario(_Model):
    id: str = Field(pattern=r"^lab-[a-z0-9][a-z0-9-]*$")
    title: str = Field(min_length=1)
    injector: Injector
    expected_alert: ExpectedAlert
    ground_truth: GroundTruth
    judge: JudgeRules
    recovery: Recovery
    oracle: Oracle | None = None


def alert_names(rules_file: Path = RULES_FILE) -> set[str]:
    """The alert names of the lab's rules file."""
    doc = yaml.safe_load(rules_file.read_text(encoding="utf-8"))
    return {r["alert"] for g in doc["groups"] for r in g["rules"] if "alert" in r}


def _check_refs(sc: Scenario, file: str) -> None:
    sql_dir = queries_dir() / "lab"
    inj = sc.injector
    refs = {"sql": [("injector.file", inj.file), ("injector.revert", inj.revert)]
            if isinstance(inj, SqlInjector) else [],
            "session": [("injector.script", inj.script)]
            if isinstance(inj, SessionInjector) else []}
    for fld, name in refs["sql"] + refs["session"]:
        if "/" in name or not (sql_dir / name).is_file():
            raise InputError(f"no SQL file {name!r} in queries/lab/", file=file, field=fld)
    if sc.expected_alert.name not in (names := alert_names()):
        raise InputError(f"alert {sc.expected_alert.name!r} is not a lab alert rule "
                         f"(one of: {', '.join(sorted(names))})", file=file,
                         field="expected_alert.name")


def load_scenario_file(path: Path) -> Scenario:
    """Parse and validate one scenario file."""
    file = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", file=file) from None
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise InputError(f"not YAML: {getattr(exc, 'problem', exc)}", file=file,
                         line=mark.line + 1 if mark else None) from None
    if not isinstance(doc, dict):
        raise InputError("a scenario is a mapping", file=file)
    try:
        sc = Scenario.model_validate(doc)
    except ValidationError as exc:
        raise validation_error(exc, file=file) from None
    if sc.id != path.stem:
        raise InputError(f"id {sc.id!r} differs from the file name {path.stem!r}", file=file,
                         field="id")
    _check_refs(sc, file)
    return sc


def scenario_paths(directory: Path = SCENARIO_DIR) -> list[Path]:
    return sorted(directory.glob("*.yaml"))


def load_scenarios(directory: Path = SCENARIO_DIR) -> list[Scenario]:
    return [load_scenario_file(p) for p in scenario_paths(directory)]


def load_scenario(name: str) -> Scenario:
    """A shipped scenario by id, or a scenario file by path."""
    path = Path(name)
    if path.suffix in (".yaml", ".yml") and path.exists():
        return load_scenario_file(path)
    path = SCENARIO_DIR / f"{name}.yaml"
    if not path.is_file():
        known = ", ".join(p.stem for p in scenario_paths())
        raise NotFoundError(f"lab: no scenario {name!r} (known: {known})")
    return load_scenario_file(path)
