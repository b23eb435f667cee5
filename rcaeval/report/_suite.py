"""The suite and baseline a run is compared with, read from the registry when available."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from rcaeval._paths import registry_dir
from rcaeval.errors import InputError, NotFoundError, RcaevalError
from rcaeval.registry import BaselineSpec, SuiteSpec, load_suite


def resolve_registry(registry_root: str | Path | None) -> Path:
    """``registry_root`` or the default registry (``$RCAEVAL_REGISTRY`` / ``<data>/registry``)."""
    return Path(registry_root) if registry_root is not None else registry_dir()


def baseline_path(registry_root: str | Path | None, suite_id: str) -> Path:
    """``<registry>/baselines/<suite_id>.yaml``."""
    return resolve_registry(registry_root) / "baselines" / f"{suite_id}.yaml"


def snapshot_dir(registry_root: str | Path | None, run_id: str) -> Path:
    """``<registry>/baselines/runs/<run_id>/``."""
    return resolve_registry(registry_root) / "baselines" / "runs" / run_id


def _existing(registry_root: str | Path | None, suite_id: str) -> Path | None:
    path = baseline_path(registry_root, suite_id)
    alt = path.with_suffix(".yml")
    return path if path.is_file() else alt if alt.is_file() else None


def load_baseline(registry_root: str | Path | None, suite_id: str) -> BaselineSpec:
    """The baseline of ``suite_id``: :class:`NotFoundError` when the suite has none,
    :class:`InputError` when the file is malformed."""
    path = _existing(registry_root, suite_id)
    if path is None:
        raise NotFoundError(
            f"suite {suite_id!r} has no baseline ({baseline_path(registry_root, suite_id)} "
            "does not exist); promote a run with `rcaeval baseline promote RUN_ID`"
        )
    return read_baseline_file(path)


def read_baseline_file(path: Path) -> BaselineSpec:
    """Parse and validate one baseline YAML file."""
    try:
        doc: Any = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, yaml.YAMLError) as exc:  # ValueError: not UTF-8
        raise InputError(f"cannot read baseline: {exc}", file=str(path)) from exc
    try:
        return BaselineSpec.model_validate(doc)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        raise InputError(f"invalid baseline: {first['msg']}", file=str(path),
                         field=field or None) from exc


def find_baseline(registry_root: str | Path | None, suite_id: str | None) -> BaselineSpec | None:
    """The baseline of ``suite_id``, or ``None`` when there is no suite or no baseline file."""
    if not suite_id or _existing(registry_root, suite_id) is None:
        return None
    return load_baseline(registry_root, suite_id)


@dataclass(frozen=True)
class SuiteInfo:
    """What the registry says about a run's suite."""

    suite_id: str | None
    suite_version: str | None
    """The suite version the run recorded (eval_runs.suite_version)."""
    spec: SuiteSpec | None
    """The registry's suite file, when it could be loaded."""
    note: str
    """One line on where the suite information comes from (or why there is none)."""

    def entry(self, case_id: str) -> Any | None:
        if self.spec is None:
            return None
        for case in self.spec.cases:
            if case.id == case_id:
                return case
        return None


def suite_info(run: dict[str, Any], registry_root: str | Path | None) -> SuiteInfo:
    """The suite of ``run`` (an eval_runs row), loaded from the registry when possible. Never
    raises: a missing registry, suite file or a broken suite is stated in ``note``."""
    suite_id, version = run.get("suite_id"), run.get("suite_version")
    if not suite_id:
        return SuiteInfo(None, version, None, "none recorded (judged from an audit dir?)")
    root = resolve_registry(registry_root)
    try:
        spec = load_suite(root, suite_id)
    except RcaevalError as exc:
        reason = "not in the registry" if isinstance(exc, NotFoundError) else "unreadable"
        return SuiteInfo(suite_id, version, None, f"suite file {reason} ({root})")
    note = f"registry suites/{suite_id}.yaml, version {spec.version}, {len(spec.cases)} cases"
    if version and spec.version != version:
        note += f" (the run used version {version})"
    return SuiteInfo(suite_id, version, spec, note)
