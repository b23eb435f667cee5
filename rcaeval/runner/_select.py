"""Choosing which cases of a suite run: ``--case``, ``--tag``, ``--case-type``, ``--limit``
(docs/running.md). The result is a list of case ids in suite order for ``run_suite``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rcaeval.errors import InputError, NotFoundError


def select_cases(
    registry_root: str | Path | None,
    suite_id: str,
    *,
    case_ids: Sequence[str] | None = None,
    tags: Sequence[str] | None = None,
    case_types: Sequence[str] | None = None,
    limit: int | None = None,
) -> list[str] | None:
    """The suite's cases (suite order) that are among ``case_ids`` (when given), carry one of
    ``tags`` (the suite entry's tags or the case.yaml's; when given) and have one of
    ``case_types`` (case.yaml ``case_type``; when given), cut to the first ``limit``.

    ``None`` when no filter is given (every case). A case whose files do not load has no
    known type or case tags: it is selected by its suite tags or ``--case`` only, and then
    ends ``errored`` with its problems. :class:`NotFoundError` when nothing matches or a
    ``--case`` is not in the suite."""
    from rcaeval.registry import iter_suite_cases, load_suite

    if limit is not None and limit < 1:
        raise InputError(f"--limit must be at least 1, got {limit}", field="--limit")
    if not (case_ids or tags or case_types or limit):
        return None
    suite = load_suite(registry_root, suite_id)
    if case_ids:
        unknown = [c for c in dict.fromkeys(case_ids) if c not in suite.case_ids]
        if unknown:
            raise NotFoundError(f"case(s) {', '.join(unknown)} not in suite {suite_id!r}")
    need_files = bool(tags or case_types)
    entries = iter_suite_cases(registry_root, suite_id) if need_files else \
        ((e, None) for e in suite.cases)
    out: list[str] = []
    for item in entries:
        entry, merged = (item.entry, item.case) if need_files else item
        if case_ids and entry.id not in case_ids:
            continue
        if tags:
            own = set(entry.tags) | set(merged.case.tags if merged is not None else ())
            if not own & set(tags):
                continue
        if case_types and (merged is None or merged.case.case_type not in case_types):
            continue
        out.append(entry.id)
    if not out:
        what = "; ".join(f"{name} {', '.join(vals)}" for name, vals in (
            ("--case", case_ids), ("--tag", tags), ("--case-type", case_types)) if vals)
        raise NotFoundError(f"no case of suite {suite_id!r} matches {what}")
    return out[:limit] if limit else out
