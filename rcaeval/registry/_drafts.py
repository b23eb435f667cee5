"""``draft: true`` marks (written by ``rcaeval case new``): a warning for each part of a case
still awaiting review (docs/registry.md, "Writing a case")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rcaeval.registry._common import Problem
from rcaeval.registry._judge import check_yaml_path, iter_checks
from rcaeval.registry._yamlsrc import dotted, parse_yaml

DRAFT_CODE = "draft"


def draft_warnings(root: Path, merged: Any) -> list[Problem]:
    """A ``draft`` warning for every part of a case still marked ``draft: true`` (written by
    ``rcaeval case new``, not yet reviewed)."""
    found: list[tuple[str, tuple[Any, ...], str]] = []
    if merged.case.draft:
        found.append(("case.yaml", ("draft",), "the case (prompt, window, cluster)"))
    judge = merged.judge
    if judge.ground_truth.root_cause.draft:
        found.append(("judge.yaml", ("ground_truth", "root_cause", "draft"), "the ground truth"))
    for det_id, det in judge.detectors.items():
        if det.draft:
            found.append(("judge.yaml", ("detectors", det_id, "draft"), f"detector {det_id}"))
    for bucket, kind, i, chk in iter_checks(judge.judge):
        if chk.draft:
            found.append(("judge.yaml", (*check_yaml_path(bucket, kind, i), "draft"),
                          f"{bucket} check {chk.id}"))
    problems = []
    docs: dict[str, Any] = {}
    for name, path, what in found:
        rel = f"cases/{merged.case_id}/{name}"
        if rel not in docs:
            docs[rel], _ = parse_yaml(root / rel, rel)
        doc = docs[rel]
        problems.append(Problem(
            rel, doc.line_of(path) if doc is not None else None,
            dotted(path), DRAFT_CODE,
            f"{what} is a draft from `rcaeval case new`: review it against the incident, "
            "then delete `draft: true`", severity="warning"))
    return problems
