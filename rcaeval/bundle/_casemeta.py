"""The run-visible scope of a case - cluster, window (with tolerance), prompt - read from a
workspace's ``case.json`` or a registry ``case.yaml``; never anything judge-only."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from rcaeval.errors import InputError, NotFoundError


def _str(value: Any) -> str | None:
    if isinstance(value, datetime):
        dt = value if value.tzinfo else value.replace(tzinfo=UTC)
        return dt.isoformat().replace("+00:00", "Z")
    return None if value is None else str(value)


def read_case_meta(case_dir: str | Path, *, required: bool = False) -> dict[str, Any]:
    """``{cluster_id, start, end, tolerance_s, prompt}`` of ``case_dir`` (``case.json`` first,
    then ``case.yaml``); ``{}`` when it has neither, unless ``required`` (a case dir the user
    named): then a missing dir is not found (exit 6), and a file, or a dir with neither, is
    an input error (exit 3). A ``case.json`` that is not a regular file (a FIFO) is an input
    error naming it, never read."""
    from rcaeval._inputs import read_input

    base = Path(case_dir)
    if required:
        if not base.exists():
            raise NotFoundError(f"{base}: no such case dir")
        if not base.is_dir():
            raise InputError("is not a directory: name the case dir (holding case.yaml or "
                             "case.json)", file=str(base), field="--case")
        if not any(os.path.lexists(base / n) for n in ("case.json", "case.yaml")):
            raise InputError("holds no case.json or case.yaml: not a case dir",
                             file=str(base), field="--case")
    cj = base / "case.json"
    if os.path.lexists(cj):
        try:
            doc = orjson.loads(read_input(cj, "registry"))
        except orjson.JSONDecodeError as exc:
            raise InputError(f"case.json is not valid JSON: {exc}", file=str(cj)) from exc
        if not isinstance(doc, dict):
            raise InputError("case.json is not a JSON object", file=str(cj))
        prompt = doc.get("prompt")
    else:
        cy = base / "case.yaml"
        if not (cy.is_file() or (required and os.path.lexists(cy))):
            return {}
        from rcaeval.registry import parse_yaml

        ydoc, problems = parse_yaml(cy, str(cy))
        errors = [p for p in problems if p.severity == "error"]
        if ydoc is None or errors:
            p = errors[0]
            raise InputError(p.message, file=str(cy), field=p.field or None, line=p.line)
        doc, prompt = ydoc.data, ydoc.data.get("prompt")
    env = doc.get("environment") if isinstance(doc.get("environment"), dict) else {}
    win = doc.get("time_window") if isinstance(doc.get("time_window"), dict) else {}
    return {"cluster_id": _str(env.get("cluster_id")), "start": _str(win.get("start")),
            "end": _str(win.get("end")), "tolerance_s": win.get("tolerance_s"),
            "prompt": (prompt.get("text") if isinstance(prompt, dict) else prompt) or ""}
