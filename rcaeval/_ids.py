"""Run ids and case ids that become path parts: the one check every writer applies
(docs/reliability.md, "Ids and paths").

An id that names a directory - ``AUDIT_ROOT/<run_id>/<case_id>/``, ``--out OUT/<run_id>/
<case_id>/``, a workspace ``<root>/<run_id>/`` - must be one plain path component: a
non-empty string of at most :data:`MAX_ID_CHARS` characters with no ``/`` or ``\\``, not ``.``
or ``..``, not starting with ``.`` or ``-``, and without NUL, control, surrogate or line- or
paragraph-separator characters. Ids come from the command line (``rcaeval run --run-id``),
from ``manifest.json`` files (``rcaeval judge``) and from the registry (whose own pattern is
stricter). :func:`child_path` then checks, after resolving symlinks, that the joined path
stays under its root.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

from rcaeval.errors import InputError

MAX_ID_CHARS = 200
"""The longest run or case id accepted as a path part."""

_BAD_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp"})


def id_problem(value: Any) -> str | None:
    """Why ``value`` cannot be a run or case id used as a path part, or ``None`` if it can."""
    if not isinstance(value, str):
        return f"must be a string, got {type(value).__name__}"
    if not value:
        return "must not be empty"
    if len(value) > MAX_ID_CHARS:
        return f"is {len(value)} characters long (at most {MAX_ID_CHARS})"
    if "/" in value or "\\" in value:
        return "must not contain a path separator ('/' or '\\')"
    if value[0] in ".-":
        return f"must not start with {value[0]!r} (no '.', '..' or hidden names)"
    for ch in value:
        if unicodedata.category(ch) in _BAD_CATEGORIES:
            return f"must not contain the control character U+{ord(ch):04X}"
    if value != value.strip():
        return "must not start or end with whitespace"
    return None


def check_id(value: Any, *, field: str, file: str | None = None) -> str:
    """``value`` if it is a safe run or case id (see :func:`id_problem`), else an
    :class:`InputError` naming ``file`` and ``field`` (exit 3)."""
    problem = id_problem(value)
    if problem is not None:
        shown = repr(value)
        shown = shown if len(shown) <= 80 else shown[:77] + "..."
        raise InputError(f"{shown} is not a usable id: it {problem}", file=file, field=field)
    return value


def child_path(root: str | Path, *parts: str, what: str = "path") -> Path:
    """``root/part/...`` after checking every part with :func:`check_id`-like rules (a
    plain component) and, once symlinks are resolved, that the result is still under
    ``root``; an :class:`InputError` otherwise. The last part may be a file name."""
    base = Path(root)
    for part in parts:
        problem = id_problem(part) if part not in ("",) else "must not be empty"
        if problem is not None:
            raise InputError(f"{part!r} cannot be a path part under {base}: it {problem}",
                             field=what)
    target = base.joinpath(*parts)
    real_root = base.resolve()
    real = target.resolve()
    if real != real_root and not real.is_relative_to(real_root):
        raise InputError(f"{target} resolves to {real}, outside {real_root} (a symlink?)",
                         field=what)
    return target
