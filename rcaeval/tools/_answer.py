"""submit_report's structured root cause: ``root_cause`` given as ``{summary, family,
component?}`` rather than a sentence. The family and component go into the report as
``analysis.structured_root_cause``; the judge decides the diagnosis by them against the
case's ground truth (docs/judge.md "Structured root causes")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def structured_root_cause(root_cause: Any, error: type[Exception] = ValueError
                          ) -> dict[str, str] | None:
    """``{family, component?}`` of an object ``root_cause`` (``None`` for a sentence); a
    missing or empty family raises ``error`` (the tools' ``ToolInputError``)."""
    if not isinstance(root_cause, Mapping):
        return None
    family, component = root_cause.get("family"), root_cause.get("component")
    if not isinstance(family, str) or not family.strip():
        raise error("root_cause.family must name the root-cause family")
    if component is not None and not isinstance(component, str):
        raise error("root_cause.component must be a string")
    out = {"family": family.strip()}
    if component and component.strip():
        out["component"] = component.strip()
    return out
