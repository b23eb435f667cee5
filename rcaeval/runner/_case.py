"""The run-visible view of a case: the only case data the runner hands to an agent.

The registry's pydantic models are one source; plain mappings (a parsed ``case.yaml``) are
another. Both are reduced to :class:`RunCase`, which deliberately has no field for anything
judge-only (ground truth, detectors, expected answers) and none for slicing metadata that
would hint at the answer (``title``, ``case_type``, ``tags``).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rcaeval.errors import InputError

_CASE_DIR_ATTRS = ("case_dir", "dir", "path", "source_dir")

CASE_REF_PREFIX = "case-"


def opaque_case_ref(run_id: str | None, case_id: str, key: str | None = None) -> str:
    """The opaque case reference an agent sees instead of the case id (docs/agents.md):
    ``case-`` + the first 10 hex of sha256(``run_id`` NUL ``case_id``), keyed (HMAC) with the
    run's secret ``key`` when there is one, so an agent that knows the run id cannot confirm a
    guessed case id. Stable within a run (retries, follow-ups and a resume agree), different
    across runs."""
    msg = f"{run_id or ''}\0{case_id}".encode()
    digest = (hmac.new(key.encode(), msg, hashlib.sha256) if key
              else hashlib.sha256(msg)).hexdigest()
    return CASE_REF_PREFIX + digest[:10]


def _get(obj: Any, name: str, default: Any = None) -> Any:
    if obj is None:
        return default
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def iso_utc(value: Any) -> str | None:
    """An ISO-8601 timestamp in UTC with a ``Z`` suffix (naive values are read as UTC)."""
    if value is None:
        return None
    if isinstance(value, datetime):
        dt = value
    else:
        text = str(value).strip()
        try:
            dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError as exc:
            raise InputError(f"not an ISO-8601 timestamp: {text!r}", field="time_window") from exc
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.astimezone(UTC).isoformat().replace("+00:00", "Z")


@dataclass(frozen=True)
class RunCase:
    """Run-visible fields of one case (see docs/agents.md, "What the agent sees").

    ``case_id`` is the real id and stays runner-side (audit dir, manifest, replay lookup):
    the agent sees :attr:`Workspace.case_ref` instead, an opaque reference by default."""

    case_id: str
    prompt: str
    cluster_id: str | None = None
    product: str | None = None
    region: str | None = None
    window_start: str | None = None
    window_end: str | None = None
    tolerance_s: int | None = None
    followups: tuple[str, ...] = ()
    max_turns: int | None = None
    timeout_s: float | None = None
    incident_dir: Path | None = None

    def case_json(self, case_ref: str) -> dict[str, Any]:
        """The document written to ``case.json`` in the workspace. Its ``case_id`` is
        ``case_ref``: the opaque reference (:func:`opaque_case_ref`), or the real id only when
        the run exposes case ids."""
        env = {k: v for k, v in (("cluster_id", self.cluster_id), ("product", self.product),
                                  ("region", self.region)) if v is not None}
        window: dict[str, Any] = {"start": self.window_start, "end": self.window_end}
        if self.tolerance_s is not None:
            window["tolerance_s"] = self.tolerance_s
        return {
            "case_id": case_ref,
            "prompt": {"text": self.prompt},
            "environment": env,
            "time_window": window,
            "followup_count": len(self.followups),
            "max_turns": self.max_turns,
        }

    def turns(self) -> list[str]:
        """The prompt followed by the follow-ups: one entry per prompt turn of the session."""
        return [self.prompt, *self.followups]


def to_run_case(case: Any, case_dir: str | Path | None = None) -> RunCase:
    """Reduce a registry case (``MergedCase`` or ``CaseSpec``) or a ``case.yaml`` mapping to its
    run-visible fields. Of a ``MergedCase`` only ``.case``, ``.case_dir`` and ``.incident_dir``
    are read.

    ``case_dir`` (or a ``case_dir``/``dir``/``path`` attribute of ``case``) locates the
    incident data: ``incident_data`` relative to it, else ``<case_dir>/incident`` if present.
    """
    if isinstance(case, RunCase):
        return case
    incident_override = None
    inner = _get(case, "case")
    if inner is not None and _get(inner, "prompt") is not None:
        # a registry MergedCase: take the run-visible CaseSpec, never the judge part
        if case_dir is None:
            case_dir = _get(case, "case_dir")
        incident_override = _get(case, "incident_dir")
        case = inner
    case_id = _get(case, "case_id") or _get(case, "id")
    if not case_id:
        raise InputError("case has no case_id", field="case_id")
    prompt_obj = _get(case, "prompt")
    prompt = prompt_obj if isinstance(prompt_obj, str) else _get(prompt_obj, "text")
    if not prompt:
        raise InputError("case has no prompt.text", field="prompt.text", file=str(case_id))
    env = _get(case, "environment")
    window = _get(case, "time_window")
    execution = _get(case, "execution")
    followups = []
    for item in _get(case, "followup") or _get(case, "followups") or []:
        text = item if isinstance(item, str) else _get(item, "text")
        if text:
            followups.append(str(text))
    if case_dir is None:
        for attr in _CASE_DIR_ATTRS:
            value = _get(case, attr)
            if isinstance(value, (str, Path)) and Path(value).is_dir():
                case_dir = value
                break
    incident_dir = Path(incident_override) if incident_override is not None else None
    if incident_dir is None and case_dir is not None:
        base = Path(case_dir)
        rel = _get(case, "incident_data")
        if rel:
            cand = (base / str(rel))
            if not cand.resolve().is_relative_to(base.resolve()):
                raise InputError("incident_data leaves the case dir", field="incident_data",
                                 file=str(base / "case.yaml"))
            if not cand.is_dir():
                raise InputError(f"incident_data dir not found: {cand}", field="incident_data",
                                 file=str(base / "case.yaml"))
            incident_dir = cand
        elif (base / "incident").is_dir():
            incident_dir = base / "incident"
    tol = _get(window, "tolerance_s")
    max_turns = _get(execution, "max_turns")
    timeout_s = _get(execution, "timeout_s")
    return RunCase(
        case_id=str(case_id),
        prompt=str(prompt),
        cluster_id=_str_or_none(_get(env, "cluster_id")),
        product=_str_or_none(_get(env, "product")),
        region=_str_or_none(_get(env, "region")),
        window_start=iso_utc(_get(window, "start")),
        window_end=iso_utc(_get(window, "end")),
        tolerance_s=int(tol) if tol is not None else None,
        followups=tuple(followups),
        max_turns=int(max_turns) if max_turns is not None else None,
        timeout_s=float(timeout_s) if timeout_s is not None else None,
        incident_dir=incident_dir,
    )


def _str_or_none(value: Any) -> str | None:
    return None if value is None else str(value)
