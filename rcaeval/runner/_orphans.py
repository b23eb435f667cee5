"""Workspaces that outlive their runner: a SIGKILLed runner (or a crashed machine) leaves its
temporary ``rcaeval-ws-*`` root behind, possibly with agents still working in it. The next run
or resume removes them (docs/running.md "Resume")."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from rcaeval.runner._proc import kill_processes_under
from rcaeval.runner._workspace import remove_tree

ORPHAN_MARKER = ".rcaeval-runner"
"""In a temporary workspace root: ``<pid> <start time>`` of the runner that owns it."""


def _proc_start(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    fields = data[data.rfind(b")") + 2:].split()
    return fields[19].decode() if len(fields) > 19 else None


def _runner_alive(marker: Path) -> bool:
    try:
        pid_s, start = marker.read_text().split()
    except (OSError, ValueError):
        return False
    return _proc_start(int(pid_s)) == start


def clean_orphaned_workspaces(tmp_dir: str | Path | None = None) -> list[Path]:
    """Remove ``rcaeval-ws-*`` temporary workspace roots whose runner is gone (killed with
    SIGKILL, a crashed machine), after killing any agent process still working in them.
    Roots without an owner marker (older rcaeval) count as orphaned once an hour old."""
    base = Path(tmp_dir or tempfile.gettempdir())
    removed = []
    try:
        candidates = sorted(base.glob("rcaeval-ws-*"))
    except OSError:
        return removed
    for path in candidates:
        marker = path / ORPHAN_MARKER
        try:
            if not path.is_dir() or path.is_symlink() or path.stat().st_uid != os.getuid():
                continue
            if marker.exists():
                if _runner_alive(marker):
                    continue
            elif time.time() - path.stat().st_mtime < 3600:
                continue
        except OSError:
            continue
        kill_processes_under(path)
        if remove_tree(path):
            removed.append(path)
    return removed


def workspace_root_for(workspace_root: str | Path | None, run_id: str, resume: bool) -> Path:
    """The run's workspace root. Without ``--workspace-root``: a fresh temporary dir marked
    with this runner's identity, after removing the orphans of dead runners. With one, a
    resume first kills and removes what the interrupted run left in ``<root>/<run_id>/``."""
    if workspace_root is None:
        clean_orphaned_workspaces()
        path = Path(tempfile.mkdtemp(prefix="rcaeval-ws-")).resolve()
        # written whole then renamed: a runner cleaning up concurrently must never read an
        # empty marker (it would take a live root for an orphan and kill its agents)
        tmp = path / f"{ORPHAN_MARKER}.tmp"
        tmp.write_text(f"{os.getpid()} {_proc_start(os.getpid()) or 0}\n")
        os.replace(tmp, path / ORPHAN_MARKER)
        return path
    path = Path(workspace_root).resolve()
    if resume and (path / run_id).is_dir():
        kill_processes_under(path / run_id)
        remove_tree(path / run_id)
    return path
