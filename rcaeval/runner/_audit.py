"""The audit mirror: copy what the bundle contract names from a workspace into
``<audit_root>/<run_id>/<case_id>/`` and write ``manifest.json``.

Never follows a symlink: a symlink anywhere in the mirrored set (whether it points inside or
outside the workspace) is not copied and is listed in the manifest's ``skipped`` with its
target. Files over the size cap, special files, unreadable files and hard links to files
outside the workspace are skipped likewise. The audit is assembled in a temporary sibling
directory and renamed into place, so an interrupted run never leaves a half-written audit.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from rcaeval._usage import json_safe
from rcaeval.runner._workspace import RUNNER_DIR, remove_tree

MAX_FILE_BYTES = 32 * 1024 * 1024
"""Default per-file cap (the judge does not parse bigger files either)."""

MIRROR_DIRS = ("evidences", "logs", "workspace", RUNNER_DIR)
MIRROR_FILES = ("output.txt", "transcript.json", "analysis_patch.json",
                ".opencode/telemetry.log", "prompt.md", "case.json")


MAX_DEPTH = 32
"""Directory levels mirrored below the workspace; deeper entries are skipped (``too_deep``)."""
MAX_ENTRIES = 20_000
"""Entries (files and dirs) the mirror visits per case; the rest is skipped
(``too_many_entries``, one record naming the first directory cut short)."""


def _walk(
    root: Path, rel: str, budget: list[int] | None = None,
) -> Iterator[tuple[str, os.stat_result | None, str | None]]:
    """Yield ``(relpath, lstat, problem)`` for every non-dir entry under ``root/rel``, in
    sorted order, iteratively (no recursion limit), at most :data:`MAX_DEPTH` levels deep and
    :data:`MAX_ENTRIES` entries in all (``budget`` is the shared remaining count)."""
    budget = budget if budget is not None else [MAX_ENTRIES]
    stack = [rel]
    while stack:
        cur = stack.pop()
        path = root / cur
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            continue
        except OSError as exc:
            yield cur, None, f"unreadable: {exc.strerror}"
            continue
        if not stat.S_ISDIR(st.st_mode):
            yield cur, st, None
            continue
        if cur.count("/") >= MAX_DEPTH:
            yield cur, None, f"too_deep: more than {MAX_DEPTH} directory levels"
            continue
        try:
            with os.scandir(path) as it:
                names = []
                for entry in it:
                    if budget[0] <= 0:
                        break
                    budget[0] -= 1
                    names.append(entry.name)
                else:
                    names.sort()
                    stack.extend(f"{cur}/{n}" for n in reversed(names))
                    continue
        except OSError as exc:
            yield cur, None, f"unreadable dir: {exc.strerror}"
            continue
        yield cur, None, f"too_many_entries: the mirror visits at most {MAX_ENTRIES} entries"
        stack.clear()


def _parent_problem(root: Path, rel: str) -> dict[str, Any] | None:
    """A skip record when an intermediate component of ``rel`` is not a real directory."""
    parts = rel.split("/")[:-1]
    for i in range(1, len(parts) + 1):
        sub = "/".join(parts[:i])
        try:
            st = os.lstat(root / sub)
        except OSError:
            return None  # absent: nothing to mirror
        if stat.S_ISLNK(st.st_mode):
            return _skip_reason(root, sub, st, MAX_FILE_BYTES)
        if not stat.S_ISDIR(st.st_mode):
            return None
    return None


def _inode_counts(root: Path) -> dict[tuple[int, int], int]:
    """How many names inside ``root`` each multiply-linked regular file has."""
    counts: dict[tuple[int, int], int] = {}
    budget = [MAX_ENTRIES]
    try:
        tops = sorted(os.listdir(root))
    except OSError:
        return counts
    for top in tops:  # the same bounded walk as the mirror's, over the whole workspace
        for _rel, st, _problem in _walk(root, top, budget):
            if st is not None and stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
                key = (st.st_dev, st.st_ino)
                counts[key] = counts.get(key, 0) + 1
    return counts


def _skip_reason(
    root: Path, rel: str, st: os.stat_result, cap: int,
    inodes: dict[tuple[int, int], int] | None = None,
) -> dict[str, Any] | None:
    if stat.S_ISLNK(st.st_mode):
        target = os.readlink(root / rel)
        resolved = Path(os.path.realpath(root / rel))
        outside = not resolved.is_relative_to(Path(os.path.realpath(root)))
        return {"path": rel, "reason": "symlink_outside_workspace" if outside else "symlink",
                "target": target}
    if not stat.S_ISREG(st.st_mode):
        return {"path": rel, "reason": "not_regular_file"}
    if st.st_nlink > 1 and (inodes or {}).get((st.st_dev, st.st_ino), 0) < st.st_nlink:
        return {"path": rel, "reason": "hardlink_outside_workspace", "links": st.st_nlink}
    if st.st_size > cap:
        return {"path": rel, "reason": "too_large", "size": st.st_size, "limit": cap}
    return None


def _copy(src: Path, dst: Path, cap: int) -> tuple[str, int] | str:
    """Copy without following symlinks; returns (sha256, size) or a skip reason."""
    try:
        fd = os.open(src, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        return f"unreadable: {exc.strerror}"
    digest = hashlib.sha256()
    size = 0
    dst.parent.mkdir(parents=True, exist_ok=True)
    with os.fdopen(fd, "rb") as fin, open(dst, "xb") as fout:
        if not stat.S_ISREG(os.fstat(fin.fileno()).st_mode):
            return "not_regular_file"
        while chunk := fin.read(1 << 20):
            size += len(chunk)
            if size > cap:
                fout.close()
                dst.unlink()
                return "too_large"
            digest.update(chunk)
            fout.write(chunk)
    return digest.hexdigest(), size


def mirror_audit(
    workspace_dir: str | Path,
    audit_dir: str | Path,
    manifest: dict[str, Any],
    *,
    max_file_bytes: int = MAX_FILE_BYTES,
    overwrite: bool = False,
    runner_files: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Mirror the bundle files of ``workspace_dir`` into ``audit_dir``; return the manifest
    written (``manifest`` plus ``files`` and ``skipped``). ``runner_files`` (top-level name →
    JSON document) are written beside the manifest: runner-side files no workspace file can
    become (the seal key, ``seal.json``).

    An existing ``audit_dir`` raises :class:`FileExistsError` unless ``overwrite``.
    """
    root = Path(workspace_dir)
    dest = Path(audit_dir)
    if dest.exists() and not overwrite:
        raise FileExistsError(f"audit dir already exists: {dest}")
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.parent / f".{dest.name}.partial-{secrets.token_hex(4)}"
    tmp.mkdir()
    files: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    try:
        seen: set[str] = set()
        inodes = _inode_counts(root)
        budget = [MAX_ENTRIES]
        for top in (*MIRROR_DIRS, *MIRROR_FILES):
            parent_problem = _parent_problem(root, top)
            if parent_problem is not None:
                if parent_problem["path"] not in seen:
                    seen.add(parent_problem["path"])
                    skipped.append(parent_problem)
                continue
            for rel, st, problem in _walk(root, top, budget):
                if rel in seen or rel == "manifest.json":
                    continue
                seen.add(rel)
                if problem is not None or st is None:
                    skipped.append({"path": rel, "reason": problem or "unreadable"})
                    continue
                reason = _skip_reason(root, rel, st, max_file_bytes, inodes)
                if reason is not None:
                    skipped.append(reason)
                    continue
                got = _copy(root / rel, tmp / rel, max_file_bytes)
                if isinstance(got, str):
                    skipped.append({"path": rel, "reason": got})
                    continue
                files.append({"path": rel, "sha256": got[0], "size": got[1]})
        files.sort(key=lambda f: f["path"])
        skipped.sort(key=lambda s: s["path"])
        for name, doc in (runner_files or {}).items():
            assert "/" not in name and name not in (*MIRROR_DIRS, *MIRROR_FILES), name
            (tmp / name).write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2))
        final = json_safe({**manifest, "files": files, "skipped": skipped})
        (tmp / "manifest.json").write_bytes(orjson.dumps(
            final, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE, default=str))
        if dest.exists():
            remove_tree(dest)
        os.replace(tmp, dest)
    except BaseException:
        remove_tree(tmp)
        raise
    return final
