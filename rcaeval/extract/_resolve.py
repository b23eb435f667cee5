"""Run-bundle resolution (judge step 0): which directory of a case dir holds the bundle."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from rcaeval.extract._safe import CaseFS, parse_json

REPORT = "evidences/workspace_evidence_report.json"
MAX_WORKSPACE_DEPTH = 3

RESOLVED = "resolved"
BUNDLE_MISSING = "bundle_missing"
BUNDLE_AMBIGUOUS = "bundle_ambiguous"
EXTRACT_ERROR = "extract_error"


@dataclass(frozen=True)
class BundleResolution:
    status: str
    """``resolved`` | ``bundle_missing`` | ``bundle_ambiguous``."""
    reason: str
    bundle_dir: str | None
    """The bundle dir relative to the case dir (``.`` for the case dir itself), or None."""
    candidates: tuple[str, ...]


def _join(base: str, rel: str) -> str:
    return rel if base in ("", ".") else f"{base}/{rel}"


def _where(rel: str) -> str:
    return "the case dir" if rel == "." else rel


def find_candidates(fs: CaseFS) -> tuple[list[str], list[str]]:
    """``(candidates, refused)``: dirs holding a usable report (the case dir, then dirs up to
    three levels below ``workspace/``, symlinked dirs not followed), and paths that exist but
    were refused, each recorded in ``fs`` (never opened): reports outside the case dir or not
    regular files, the report of a ``workspace/…`` dir that is a symlink resolving outside the
    case dir, and a ``workspace`` dir that itself resolves outside (not listed)."""
    cands: list[str] = []
    refused: list[str] = []

    def probe(rel: str) -> None:
        report = _join(rel, REPORT)
        if fs.is_regular_inside(report):
            cands.append(rel)
        elif fs.lexists(report):
            refused.append(report)
            fs.read(report, report, "report")  # records why it does not count

    probe(".")
    if fs.lexists("workspace") and not fs.inside("workspace"):
        fs.listdir("workspace", "workspace", "evidences")  # records outside_bundle
        refused.append("workspace")
    elif fs.is_real_dir("workspace"):
        frontier = ["workspace"]
        for _ in range(MAX_WORKSPACE_DEPTH):
            nxt: list[str] = []
            for d in frontier:
                try:
                    names = sorted(os.listdir(fs.root / d))
                except OSError:
                    continue
                for name in names:
                    rel = f"{d}/{name}"
                    if name == "evidences":
                        continue
                    if not fs.is_real_dir(rel):
                        if os.path.islink(fs.root / rel) and not fs.inside(rel):
                            probe(rel)  # refused: a symlinked bundle dir outside the case dir
                        continue
                    probe(rel)
                    nxt.append(rel)
            frontier = nxt
    return cands, refused


def manifest_workspace_id(manifest: Any) -> str | None:
    if isinstance(manifest, dict):
        wid = manifest.get("workspace_id")
        if isinstance(wid, str) and wid.strip():
            return wid.strip()
    return None


def resolve_bundle(fs: CaseFS) -> BundleResolution:
    """Resolve the bundle of one case dir per docs/bundle-contract.md."""
    cands, refused = find_candidates(fs)
    listed = ", ".join(_where(c) for c in cands)
    if len(cands) == 1:
        return BundleResolution(RESOLVED, f"one bundle at {_where(cands[0])}", cands[0],
                                tuple(cands))
    if not cands:
        reason = f"no {REPORT} in the case dir or under workspace/<id>/"
        if refused:
            reason += "; refused: " + ", ".join(
                f"{r} ({fs.record(r, 'report').status})" for r in refused)
        return BundleResolution(BUNDLE_MISSING, reason, None, ())
    manifest = None
    if fs.is_regular_inside("manifest.json"):
        _, data = fs.read("manifest.json", "manifest.json", "manifest", keep=False)
        if data is not None:
            _, manifest = parse_json(data)
    wid = manifest_workspace_id(manifest)
    head = f"{len(cands)} bundles ({listed})"
    if wid is None:
        return BundleResolution(BUNDLE_AMBIGUOUS, f"{head} and no manifest workspace_id",
                                None, tuple(cands))
    want = f"workspace/{wid}"
    picked = [c for c in cands if c == want] or [c for c in cands if c.startswith(want + "/")]
    if len(picked) == 1:
        return BundleResolution(
            RESOLVED, f"{head}; manifest workspace_id {wid!r} selects {picked[0]}", picked[0],
            tuple(cands))
    what = "matches none" if not picked else f"matches {len(picked)}"
    return BundleResolution(BUNDLE_AMBIGUOUS, f"{head}; manifest workspace_id {wid!r} {what}",
                            None, tuple(cands))


def workspace_id_of(bundle_dir: str | None, manifest: Any) -> str | None:
    """The manifest's ``workspace_id``, else ``<id>`` of a ``workspace/<id>/…`` bundle dir."""
    wid = manifest_workspace_id(manifest)
    if wid is None and bundle_dir and bundle_dir.startswith("workspace/"):
        return bundle_dir.split("/")[1]
    return wid
