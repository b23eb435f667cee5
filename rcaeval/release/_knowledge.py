"""The knowledge package an artifact measured (``provenance.knowledge``, capture/2) and the
gate's ``--require-package`` / ``--require-activation-path`` check (docs/release.md
"Knowledge package and freshness").

An artifact decides the gate only for what it measured: re-measure after every material
knowledge package or activation-path change. A required package (or path) must be the only
one the window's captures record, and every measured capture must record one; otherwise the
artifact is refused (exit 3), like an artifact of another stage."""

from __future__ import annotations

from typing import Any

from rcaeval.errors import InputError


def validate_knowledge(doc: dict[str, Any], where: str) -> dict[str, Any] | None:
    """``provenance.knowledge`` as validated (None when the artifact predates capture/2 and
    records none); a malformed block is refused, naming the field."""
    know = (doc.get("provenance") or {}).get("knowledge")
    if know is None:
        return None

    def fail(field: str, msg: str) -> InputError:
        return InputError(f"refused: {field} {msg}", file=where, field=field)

    if not isinstance(know, dict):
        raise fail("provenance.knowledge", "must be an object")
    packages = know.get("packages")
    if not isinstance(packages, list):
        raise fail("provenance.knowledge.packages", "must be a list")
    for i, p in enumerate(packages):
        f = f"provenance.knowledge.packages[{i}]"
        if not isinstance(p, dict):
            raise fail(f, "must be an object")
        for key in ("package_id", "activation_path"):
            if type(p.get(key)) is not str or not p[key].strip():
                raise fail(f"{f}.{key}", f"must be a non-empty string, got {p.get(key)!r}")
        if type(p.get("captures")) is not int or p["captures"] < 1:
            raise fail(f"{f}.captures", f"must be a positive integer, got {p.get('captures')!r}")
    unrecorded = know.get("unrecorded")
    if type(unrecorded) is not int or unrecorded < 0:
        raise fail("provenance.knowledge.unrecorded",
                   f"must be a non-negative integer, got {unrecorded!r}")
    return know


def measured_packages(know: dict[str, Any] | None) -> tuple[list[str], list[str]]:
    """The distinct package ids and activation paths an artifact measured (sorted)."""
    packages = (know or {}).get("packages") or []
    return (sorted({p["package_id"] for p in packages}),
            sorted({p["activation_path"] for p in packages}))


def check_package(doc: dict[str, Any], package: str | None, activation_path: str | None,
                  where: str) -> list[tuple[str, str, str]]:
    """``(check, measured, required)`` rows for the gate table when the artifact measured
    exactly the required package (and activation path); else refused (InputError, exit 3)."""
    if package is None and activation_path is None:
        return []
    know = validate_knowledge(doc, where)
    if know is None:
        raise InputError("refused: the artifact records no knowledge package "
                         "(provenance.knowledge: measured from a capture/1 export or by an "
                         "older rcaeval), so it cannot show which package it measured; "
                         "measure a capture/2 window", file=where, field="provenance.knowledge")
    ids, paths = measured_packages(know)
    if know["unrecorded"]:
        raise InputError(f"refused: {know['unrecorded']} measured capture(s) record no "
                         "knowledge package, so the window is not a measurement of one "
                         "package", file=where, field="provenance.knowledge.unrecorded")
    rows = []
    for name, required, measured, field in (
            ("knowledge_package", package, ids, "package_id"),
            ("activation_path", activation_path, paths, "activation_path")):
        if required is None:
            continue
        if measured != [required]:
            raise InputError(f"refused: the artifact measured {name.replace('_', ' ')} "
                             f"{', '.join(measured) or 'none'}, not {required}: re-run "
                             f"`release metrics` on a window served by {required}",
                             file=where, field=f"provenance.knowledge.packages[].{field}")
        rows.append((name, required, required))
    return rows
