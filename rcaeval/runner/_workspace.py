"""Fresh per-(run, case) workspaces and the agent's explicit environment.

A workspace holds only run-visible material: ``prompt.md``, ``case.json`` (see
:meth:`RunCase.case_json`) and a copy of the case's ``incident/`` data. The agent process gets
a minimal, documented environment built here, never the parent's environment. Neither names
the case id: the agent sees an opaque case reference (:func:`opaque_case_ref`) unless the run
exposes case ids.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import stat
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from rcaeval.errors import InputError
from rcaeval.runner._case import RunCase, opaque_case_ref, to_run_case
from rcaeval.runner._sandbox import NO_SANDBOX, Sandbox

RUNNER_DIR = ".rcaeval"
"""Runner-owned dir inside a workspace: agent stderr, per-turn stdout, raw ACP log."""

# Names that are judge-only wherever they appear; an incident dir holding one is refused.
_FORBIDDEN_INCIDENT_NAMES = frozenset({"judge.yaml", "judge.yml", "expected.md"})

DEFAULT_LANG = "C.UTF-8"


@dataclass(frozen=True)
class Workspace:
    """One fresh directory an agent runs in."""

    path: Path
    workspace_id: str
    case: RunCase
    run_id: str | None = None
    attempt: int = 1
    case_ref: str = ""
    """What the agent is told the case is called (``case.json``, ``RCAEVAL_CASE_ID``): an
    opaque reference, or the real id when the run exposes case ids."""
    tools: str = "files"
    """How the agent gets the incident data: ``mcp`` | ``files`` | ``both`` (runner/_mcp.py)."""
    sandbox: Sandbox = NO_SANDBOX
    """What the agent runs under (runner/_sandbox.py)."""
    ident: tuple[int, int] = (0, 0)
    """``(st_dev, st_ino)`` of the directory the runner made: :func:`open_workspace` opens
    it only while the same directory is still there."""

    @property
    def home(self) -> Path:
        return self.path / ".home"

    @property
    def tmp(self) -> Path:
        return self.path / ".tmp"

    @property
    def runner_dir(self) -> Path:
        return self.path / RUNNER_DIR

    @property
    def prompt_file(self) -> Path:
        return self.path / "prompt.md"


def runner_dir_problem(ws: Workspace) -> str | None:
    """Why ``.rcaeval/`` can no longer be trusted (the agent replaced it with a symlink or a
    file, or removed it), or ``None``. The runner never writes or reads through it then."""
    try:
        st = os.lstat(ws.runner_dir)
    except FileNotFoundError:
        return f"the agent removed the runner-owned {RUNNER_DIR}/ directory"
    except OSError as exc:
        return f"the runner-owned {RUNNER_DIR}/ directory is unreadable: {exc.strerror}"
    if stat.S_ISLNK(st.st_mode):
        return f"the agent replaced the runner-owned {RUNNER_DIR}/ directory with a symlink"
    if not stat.S_ISDIR(st.st_mode):
        return f"the agent replaced the runner-owned {RUNNER_DIR}/ directory with a file"
    return None


def workspace_problem(ws: Workspace) -> str | None:
    """Why the workspace the runner made is no longer at ``ws.path`` (the agent deleted it
    or replaced it with a symlink or another directory), or ``None``."""
    try:
        st = os.lstat(ws.path)
    except FileNotFoundError:
        return "the agent deleted its workspace"
    except OSError as exc:
        return f"the agent's workspace is unreadable: {exc.strerror}"
    if stat.S_ISLNK(st.st_mode):
        return "the agent replaced its workspace with a symlink"
    if ws.ident != (0, 0) and (st.st_dev, st.st_ino) != ws.ident:
        return "the agent replaced its workspace with another directory"
    return None


def open_workspace(ws: Workspace) -> int | None:
    """A directory fd of the workspace the runner made (``O_NOFOLLOW``, identity checked), or
    ``None`` when the agent deleted or replaced it: runner writes go through this fd
    (``dir_fd=``), so a symlink an agent leaves in place of its workspace redirects none."""
    try:
        fd = os.open(ws.path, _DIR_FLAGS)
    except OSError:
        return None
    st = os.fstat(fd)
    if ws.ident != (0, 0) and (st.st_dev, st.st_ino) != ws.ident:
        os.close(fd)
        return None
    return fd


def new_workspace_id() -> str:
    return "ws-" + secrets.token_hex(6)


def create_workspace(
    base_dir: str | Path,
    case: Any,
    *,
    run_id: str | None = None,
    attempt: int = 1,
    case_dir: str | Path | None = None,
    workspace_id: str | None = None,
    case_ref: str | None = None,
    expose_case_id: bool = False,
    tools: str | None = None,
    sandbox: Sandbox = NO_SANDBOX,
) -> Workspace:
    """Make ``<base_dir>/<workspace_id>/`` holding only the case's run-visible material.

    ``case`` is a :class:`RunCase`, a registry case model or a ``case.yaml`` mapping. The
    directory is named by an opaque workspace id. The agent is told the case is ``case_ref``;
    by default the opaque :func:`opaque_case_ref` of ``(run_id, case_id)``, the real case id
    with ``expose_case_id=True``. Symlinks (and other non-regular files) in the incident dir
    are refused with :class:`InputError`, as are judge-only file names. ``tools`` (default:
    the suite default, ``both``) decides whether the incident tools' MCP configs are written
    and where the incident data goes (``incident/``, or ``.rcaeval/incident/`` for ``mcp``).
    """
    from rcaeval.runner._mcp import check_tools_mode, incident_path, write_configs

    mode = check_tools_mode(tools)
    rc = to_run_case(case, case_dir)
    if case_ref is None:
        case_ref = rc.case_id if expose_case_id else opaque_case_ref(run_id, rc.case_id)
    wid = workspace_id or new_workspace_id()
    base = Path(base_dir)
    base.mkdir(parents=True, exist_ok=True)
    path = base / wid
    path.mkdir()
    st = os.lstat(path)
    ws = Workspace(path=path.resolve(), workspace_id=wid, case=rc, run_id=run_id,
                   attempt=attempt, case_ref=case_ref, tools=mode, sandbox=sandbox,
                   ident=(st.st_dev, st.st_ino))
    try:
        for d in (ws.home, ws.tmp, ws.runner_dir):
            d.mkdir()
        ws.prompt_file.write_text(rc.prompt, encoding="utf-8")
        (ws.path / "case.json").write_bytes(
            orjson.dumps(rc.case_json(ws.case_ref),
                         option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
        )
        if rc.incident_dir is not None:
            copy_tree_strict(rc.incident_dir, incident_path(ws))
        elif mode != "files":
            incident_path(ws).mkdir()
        write_configs(ws)
    except BaseException:
        remove_tree(ws.path)
        raise
    return ws


def copy_tree_strict(src: Path, dst: Path) -> None:
    """Copy regular files and dirs of ``src`` to ``dst``; refuse symlinks, hard links and
    special files.

    Nothing is skipped: the copy is whole, or the case fails with an :class:`InputError`
    naming the offending file (a symlink, a special file, a judge-only name). The walk is
    iterative and works through directory file descriptors (``openat``/``mkdirat``), so a tree
    thousands of levels deep or with paths longer than ``PATH_MAX`` is copied in full; only the
    two directories being copied are open at a time (the walk climbs back with ``..`` and
    checks it arrived where it came from)."""
    src = Path(src)
    st = os.lstat(src)
    if stat.S_ISLNK(st.st_mode):
        raise InputError("incident data is a symlink; refusing to copy", file=str(src))
    dst.mkdir(parents=True)
    sfd = os.open(src, _DIR_FLAGS)
    try:
        dfd = os.open(dst, _DIR_FLAGS)
    except BaseException:
        os.close(sfd)
        raise
    # One frame per directory level: its remaining entry names and the (dev, ino) of the
    # source and destination dirs, to check each climb back up through "..".
    names: list[str] = []  # path components below src, for error messages only
    frames: list[tuple[list[str], tuple[int, int], tuple[int, int]]] = []
    try:
        frames.append((_sorted_names(sfd), _ident(sfd), _ident(dfd)))
        while frames:
            todo, _sid, _did = frames[-1]
            if not todo:
                frames.pop()
                if not frames:
                    break
                names.pop()
                sfd = _climb(sfd, frames[-1][1], src, names)
                dfd = _climb(dfd, frames[-1][2], dst, names)
                continue
            name = todo.pop()
            where = src.joinpath(*names, name) if len(names) < 64 else f"{src}/.../{name}"
            est = os.lstat(name, dir_fd=sfd)
            if stat.S_ISLNK(est.st_mode):
                raise InputError("symlink in incident data; refusing to copy", file=str(where))
            if name.lower() in _FORBIDDEN_INCIDENT_NAMES:
                raise InputError("judge-only file in incident data (information boundary)",
                                 file=str(where))
            if stat.S_ISDIR(est.st_mode):
                os.mkdir(name, 0o777, dir_fd=dfd)
                sfd = _descend(sfd, name)
                dfd = _descend(dfd, name)
                names.append(name)
                frames.append((_sorted_names(sfd), _ident(sfd), _ident(dfd)))
            elif stat.S_ISREG(est.st_mode):
                if est.st_nlink > 1:  # perhaps judge.yaml under another name
                    raise InputError("hard link in incident data (it may be a judge-only "
                                     "file under another name); refusing to copy",
                                     file=str(where))
                _copy_file_nofollow(name, sfd, dfd)
            else:
                raise InputError("not a regular file in incident data", file=str(where))
    finally:
        os.close(sfd)
        os.close(dfd)


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def _sorted_names(fd: int) -> list[str]:
    """The dir's entry names, reverse-sorted (popped from the end: sorted order)."""
    return sorted(os.listdir(fd), reverse=True)


def _ident(fd: int) -> tuple[int, int]:
    st = os.fstat(fd)
    return st.st_dev, st.st_ino


def _descend(fd: int, name: str) -> int:
    new = os.open(name, _DIR_FLAGS, dir_fd=fd)
    os.close(fd)
    return new


def _climb(fd: int, expect: tuple[int, int], root: Path, names: list[str]) -> int:
    new = os.open("..", _DIR_FLAGS, dir_fd=fd)
    if _ident(new) != expect:
        os.close(new)
        raise InputError("incident data changed while it was copied",
                         file=str(root.joinpath(*names[:64])))
    os.close(fd)
    return new


def _copy_file_nofollow(name: str, src_dir: int, dst_dir: int) -> None:
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0),
                 dir_fd=src_dir)
    with os.fdopen(fd, "rb") as fin:
        out = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0),
                      0o666, dir_fd=dst_dir)
        with os.fdopen(out, "wb") as fout:
            shutil.copyfileobj(fin, fout, 1 << 20)


def remove_tree(path: Path) -> bool:
    """Remove a workspace (or any agent-made tree) however the agent left it: read-only
    parts, trees thousands of levels deep or longer than PATH_MAX. Never raises; returns
    whether ``path`` is gone.

    Shallow trees go through ``shutil.rmtree``; whatever it cannot remove (RecursionError,
    ENAMETOOLONG, permissions) is left to GNU ``rm -rf`` (which walks with ``openat`` and no
    depth limit) after ``chmod -R u+rwx``."""
    path = Path(path)

    def _onerror(func: Any, p: str, _exc: Any) -> None:
        try:
            os.chmod(os.path.dirname(p), 0o700)
            os.chmod(p, 0o700)
            func(p)
        except OSError:
            pass

    if not (path.exists() or path.is_symlink()):
        return True
    if path.is_symlink() or not path.is_dir():
        with contextlib.suppress(OSError):
            path.unlink()
        return not path.is_symlink() and not path.exists()
    with contextlib.suppress(OSError, RecursionError):
        shutil.rmtree(path, onerror=_onerror)
    if path.exists() and shutil.which("rm"):
        for argv in (["rm", "-rf", "--", str(path)], ["chmod", "-R", "u+rwx", "--", str(path)],
                     ["rm", "-rf", "--", str(path)]):
            with contextlib.suppress(OSError, subprocess.SubprocessError):
                subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, check=False, timeout=600)
            if not path.exists():
                break
    return not path.exists()


def agent_env(
    ws: Workspace,
    extra: Mapping[str, str | None] | None = None,
    *,
    turn: int | None = None,
    prompt_file: Path | None = None,
) -> dict[str, str]:
    """The agent's whole environment (documented in docs/agents.md, "Environment").

    ``extra`` adds user-passed variables; a ``None`` value inherits that name from the
    runner's own environment (skipped when unset there).
    """
    rc = ws.case
    env: dict[str, str] = {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": ws.sandbox.home or str(ws.home),  # --agent-home: one HOME for every case
        "TMPDIR": str(ws.tmp),
        "LANG": DEFAULT_LANG,
        "LC_ALL": DEFAULT_LANG,
        "TZ": "UTC",
        "PYTHONUNBUFFERED": "1",
        "RCAEVAL_WORKSPACE": str(ws.path),
        "RCAEVAL_WORKSPACE_ID": ws.workspace_id,
        "RCAEVAL_CASE_ID": ws.case_ref or opaque_case_ref(ws.run_id, rc.case_id),
        "RCAEVAL_CLUSTER_ID": rc.cluster_id or "",
        "RCAEVAL_WINDOW_START": rc.window_start or "",
        "RCAEVAL_WINDOW_END": rc.window_end or "",
        "RCAEVAL_PROMPT_FILE": str(prompt_file or ws.prompt_file),
    }
    if ws.tools != "files":
        from rcaeval.runner._mcp import MCP_CONFIG, OPENCODE_CONFIG

        env["RCAEVAL_MCP_CONFIG"] = str(ws.runner_dir / MCP_CONFIG)
        env["OPENCODE_CONFIG"] = str(ws.runner_dir / OPENCODE_CONFIG)
    if turn is not None:
        env["RCAEVAL_TURN"] = str(turn)
    for key, value in (extra or {}).items():
        if value is None:
            inherited = os.environ.get(key)
            if inherited is not None:
                env[key] = inherited
        else:
            env[key] = str(value)
    return env


def parse_env_args(items: list[str] | tuple[str, ...]) -> dict[str, str | None]:
    """``["K=V", "NAME"]`` -> ``{"K": "V", "NAME": None}`` (``None``: inherit from the runner)."""
    out: dict[str, str | None] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not key or not key.replace("_", "a").isalnum():
            raise InputError(f"bad environment variable spec: {item!r}", field="--agent-env")
        out[key] = value if sep else None
    return out
