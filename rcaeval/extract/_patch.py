"""``analysis_patch.json`` → ``raw_patch_item`` / ``raw_patch_ref`` with shape validation.

Refs are evidence *ids*: they are stored as given and never used to open a file.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from rcaeval.extract._schema import TableBuilder
from rcaeval.extract._values import text

ROLES = ("key", "supporting")
REF_TYPES = ("metric", "query", "log", "event")


def _nonempty_str(v: Any) -> bool:
    return isinstance(v, str) and bool(v.strip())


def _item_problems(item: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    if not _nonempty_str(item.get("id")):
        problems.append("id must be a non-empty string")
    if not _nonempty_str(item.get("claim")):
        problems.append("claim must be a non-empty string")
    role = item.get("role")
    if role not in ROLES:
        problems.append(f"role must be one of key|supporting (got {text(role)!r})")
    refs = item.get("refs")
    if not isinstance(refs, list):
        problems.append("refs must be a list")
        return problems
    for j, ref in enumerate(refs):
        if not isinstance(ref, dict):
            problems.append(f"refs[{j}] is not an object")
            continue
        if ref.get("type") not in REF_TYPES:
            problems.append(
                f"refs[{j}].type must be one of metric|query|log|event "
                f"(got {text(ref.get('type'))!r})")
        if not _nonempty_str(ref.get("id")):
            problems.append(f"refs[{j}].id must be a non-empty string")
    return problems


def flatten_patch(obj: Any, notes: list[str] | None = None) -> tuple[pa.Table, pa.Table]:
    """``(raw_patch_item, raw_patch_ref)`` payload tables of a parsed patch document."""
    items_b = TableBuilder("raw_patch_item")
    refs_b = TableBuilder("raw_patch_ref")
    items = obj.get("items") if isinstance(obj, dict) else None
    if not isinstance(items, list):
        if notes is not None:
            notes.append("patch is not an object with an 'items' list")
        return items_b.finish(), refs_b.finish()
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            items_b.add(idx=i, shape_ok=False, problem="item is not an object")
            continue
        problems = _item_problems(item)
        items_b.add(idx=i, item_id=text(item.get("id")), role=text(item.get("role")),
                    claim=text(item.get("claim")), shape_ok=not problems,
                    problem="; ".join(problems) if problems else None)
        refs = item.get("refs")
        for j, ref in enumerate(refs if isinstance(refs, list) else ()):
            if isinstance(ref, dict):
                refs_b.add(item_idx=i, ref_idx=j, ref_type=text(ref.get("type")),
                           ref_id=text(ref.get("id")))
            else:
                refs_b.add(item_idx=i, ref_idx=j, ref_id=text(ref))
    return items_b.finish(), refs_b.finish()
