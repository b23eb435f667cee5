"""Incident data thousands of levels deep (paths far beyond PATH_MAX) is copied into the
workspace in full, iteratively: no RecursionError, no ENAMETOOLONG, nothing lost; a symlink
at the bottom still refuses the case with a clear input error."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rcaeval.errors import InputError
from rcaeval.runner import create_workspace
from rcaeval.runner._workspace import copy_tree_strict, remove_tree

DEPTH = 1600
NAME = "level-dir"  # 1600 x 10 chars: about 16 KB of path, four times PATH_MAX
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW


def _build_deep(root: Path, depth: int, *, leaf_symlink: bool = False) -> None:
    """``root/level-dir/.../level-dir`` with a file at every 100th level and at the bottom,
    made through dir fds so no path is ever longer than one name."""
    root.mkdir(parents=True)
    fd = os.open(root, _DIR)
    try:
        for level in range(1, depth + 1):
            os.mkdir(NAME, dir_fd=fd)
            new = os.open(NAME, _DIR, dir_fd=fd)
            os.close(fd)
            fd = new
            if level % 100 == 0 or level == depth:
                out = os.open(f"at-{level}.log", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644,
                              dir_fd=fd)
                os.write(out, f"level {level}\n".encode())
                os.close(out)
        if leaf_symlink:
            os.symlink("/etc/hostname", "sneaky", dir_fd=fd)
    finally:
        os.close(fd)


def _read_deep(root: Path) -> tuple[int, dict[str, bytes]]:
    """Walk ``root`` down its single chain of dirs; returns (depth, {file name: content})."""
    files: dict[str, bytes] = {}
    depth = 0
    fd = os.open(root, _DIR)
    try:
        while True:
            names = sorted(os.listdir(fd))
            for n in names:
                if n != NAME:
                    rfd = os.open(n, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=fd)
                    with os.fdopen(rfd, "rb") as f:
                        files[n] = f.read()
            if NAME not in names:
                return depth, files
            new = os.open(NAME, _DIR, dir_fd=fd)
            os.close(fd)
            fd = new
            depth += 1
    finally:
        os.close(fd)


@pytest.fixture
def deep_case(make_case, panic_incident):
    case, case_dir = make_case(incident=panic_incident)
    _build_deep(case_dir / "incident" / "deep", DEPTH)
    yield case, case_dir
    assert remove_tree(case_dir / "incident" / "deep")


def test_deep_incident_tree_is_copied_whole(deep_case, tmp_path):
    case, case_dir = deep_case
    ws = create_workspace(tmp_path / "ws", case, run_id="run-deep", case_dir=case_dir)
    try:
        depth, files = _read_deep(ws.path / "incident" / "deep")
        assert depth == DEPTH
        expected = {f"at-{n}.log": f"level {n}\n".encode()
                    for n in [*range(100, DEPTH + 1, 100), DEPTH]}
        assert files == expected
        # the rest of the incident data came along untouched
        assert (ws.path / "incident" / "logs" / "tikv-2.log").read_text().endswith(
            "corrupted raft entry\n")
    finally:
        assert remove_tree(ws.path)


def test_symlink_at_the_bottom_of_a_deep_tree_is_refused(tmp_path):
    src = tmp_path / "incident"
    _build_deep(src, DEPTH, leaf_symlink=True)
    try:
        with pytest.raises(InputError, match="symlink in incident data") as err:
            copy_tree_strict(src, tmp_path / "copy")
        assert err.value.file is not None and err.value.file.endswith("sneaky")
    finally:
        assert remove_tree(src)
        assert remove_tree(tmp_path / "copy")
