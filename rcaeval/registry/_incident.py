"""What ``validate`` checks in a case's incident data before any run copies it to an agent
(docs/registry.md, "Incident data"): the information boundary, on disk.

The incident dir (``incident_data``, else ``incident/``) must be a real directory strictly
inside the case dir (not the case dir itself, not a symlink), and hold only directories and
regular files that are not hard links (a hard link may be ``judge.yaml`` under another name)
and not named like a judge-only file. The runner's copy refuses the same at any depth; this
walk looks :data:`MAX_DEPTH` levels and :data:`MAX_ENTRIES` entries deep so ``validate`` stays
fast on huge trees.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from rcaeval.registry._common import Problem

MAX_DEPTH = 64
MAX_ENTRIES = 50_000
JUDGE_ONLY_NAMES = frozenset({"judge.yaml", "judge.yml", "expected.md"})
"""File names that are judge-only wherever they appear (the runner refuses them too)."""


def incident_problems(case_dir: Path, rel_case: str, incident_data: str | None,
                      line: int | None) -> list[Problem]:
    """Problems of the case's incident data (empty when it is safe to hand to an agent)."""
    field = "incident_data" if incident_data else ""
    inc = case_dir / incident_data if incident_data else case_dir / "incident"
    shown = incident_data or "incident"

    def problem(message: str) -> Problem:
        return Problem(rel_case, line, field, "unsafe_incident_data", message)

    try:
        top = os.lstat(inc)
    except FileNotFoundError:
        return []  # a missing incident_data dir is reported by the loader
    except OSError as exc:
        return [problem(f"incident data {shown!r} is unreadable: {exc.strerror}")]
    if stat.S_ISLNK(top.st_mode):
        return [problem(f"incident data {shown!r} is a symlink (the runner refuses to copy it)")]
    if not stat.S_ISDIR(top.st_mode):
        return [problem(f"incident data {shown!r} is not a directory")]
    try:
        real_case, real_inc = case_dir.resolve(), inc.resolve()
    except (OSError, RuntimeError) as exc:
        return [problem(f"incident data {shown!r} cannot be resolved: {exc}")]
    if real_inc == real_case or not real_inc.is_relative_to(real_case):
        return [problem(f"incident data {shown!r} must be a subdirectory of the case dir (it "
                        "would hand case.yaml and judge.yaml to the agent)")]
    out: list[Problem] = []
    stack: list[tuple[Path, int]] = [(inc, 0)]
    seen = 0
    while stack and len(out) < 10 and seen < MAX_ENTRIES:
        where, depth = stack.pop()
        try:
            entries = list(os.scandir(where))
        except OSError as exc:
            out.append(problem(f"{_rel(where, case_dir)} is unreadable: {exc.strerror}"))
            continue
        for entry in sorted(entries, key=lambda e: e.name):
            seen += 1
            path = Path(entry.path)
            name = _rel(path, case_dir)
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError as exc:
                out.append(problem(f"{name} is unreadable: {exc.strerror}"))
                continue
            if entry.name.lower() in JUDGE_ONLY_NAMES:
                out.append(problem(f"{name} is a judge-only file inside the incident data"))
            elif stat.S_ISLNK(st.st_mode):
                out.append(problem(f"{name} is a symlink (to {os.readlink(path)!r}); incident "
                                   "data holds only regular files and directories"))
            elif stat.S_ISDIR(st.st_mode):
                if depth + 1 < MAX_DEPTH:
                    stack.append((path, depth + 1))
            elif not stat.S_ISREG(st.st_mode):
                out.append(problem(f"{name} is not a regular file"))
            elif st.st_nlink > 1:
                out.append(problem(f"{name} is a hard link ({st.st_nlink} names for one file, "
                                   "perhaps a judge-only one): copy the file instead"))
    return out


def _rel(path: Path, base: Path) -> str:
    try:
        return str(path.relative_to(base))
    except ValueError:
        return str(path)
