"""The agent sandbox (``--sandbox auto|bwrap|none``, ``--no-network``): bubblewrap.

Inside the sandbox an agent sees its workspace (read-write), the system's read-only runtime,
the runner's Python runtime read-only (so ``{python} -m …`` agents and the incident tools
work) and nothing else of the machine: not the registry, the store, the audit root, other
runs' workspaces or the user's home. It runs in its own PID namespace with a fresh ``/proc``
(the runner's ``/proc/<pid>/environ`` and ``cmdline`` do not exist there) and, when its first
process ends or is killed, the kernel kills every process left in the namespace - ``setsid``
and double-forked descendants included. Its environment is the runner's allow-list
(docs/agents.md, "Environment"). Network is on by default (agents call LLM APIs);
``--no-network`` gives it only its own loopback.

The sandbox is a command-line *wrapper*: ``bwrap <options> -- <agent argv>``. The spawn point
(:mod:`rcaeval.runner._proc`) composes it with its process containment.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rcaeval.errors import InputError

if TYPE_CHECKING:
    from rcaeval.runner._workspace import Workspace

SANDBOX_MODES = ("auto", "bwrap", "none")
DEFAULT_SANDBOX = "auto"

SYSTEM_RO = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt",
             "/nix/store")
"""The system's read-only runtime (those that exist)."""

ETC_RO = ("alternatives", "ca-certificates", "ca-certificates.conf", "fonts", "gai.conf",
          "group", "host.conf", "hostname", "hosts", "ld.so.cache", "ld.so.conf",
          "ld.so.conf.d", "localtime", "mime.types", "nsswitch.conf", "passwd", "pki",
          "protocols", "resolv.conf", "services", "ssl", "timezone")
"""The parts of ``/etc`` programs need (name resolution, TLS roots, users, zoneinfo); never
``shadow``, ``sudoers`` or anything else of ``/etc``."""

HIDDEN_PACKAGE_DIRS = ("synth",)
"""Dirs of the rcaeval package masked with an empty tmpfs inside the sandbox: the sample-data
generator's scenarios name the sample cases' root causes."""


@dataclass(frozen=True)
class Sandbox:
    """What agents run under: ``mode`` ``bwrap`` or ``none``; ``network`` shared or not."""

    mode: str = "none"
    network: bool = True

    def describe(self) -> str:
        if self.mode == "none":
            return "none"
        return "bwrap" + ("" if self.network else " (no network)")


NO_SANDBOX = Sandbox()


@functools.cache
def bwrap_path() -> str | None:
    """``bwrap`` when it is installed and works here (probed once), else ``None``."""
    exe = shutil.which("bwrap")
    if exe is None:
        return None
    try:
        done = subprocess.run([exe, "--unshare-pid", "--ro-bind", "/", "/", "true"],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return exe if done.returncode == 0 else None


def resolve_sandbox(mode: str | None = DEFAULT_SANDBOX, *, network: bool = True) -> Sandbox:
    """``auto``: bubblewrap where it works, else none with a one-line warning; ``bwrap``:
    require it (``InputError`` when it does not work); ``none``: no sandbox."""
    mode = (mode or DEFAULT_SANDBOX).strip().lower()
    if mode not in SANDBOX_MODES:
        raise InputError(f"unknown sandbox {mode!r} ({' | '.join(SANDBOX_MODES)})",
                         field="--sandbox")
    if mode == "none":
        if not network:
            raise InputError("--no-network needs the bubblewrap sandbox (--sandbox bwrap or "
                             "auto)", field="--no-network")
        return NO_SANDBOX
    if bwrap_path() is None:
        if mode == "bwrap" or not network:
            raise InputError("the sandbox needs bubblewrap: `bwrap --unshare-pid --ro-bind / / "
                             "true` does not work here (apt-get install bubblewrap)",
                             field="--sandbox")
        _warn_once()
        return NO_SANDBOX
    return Sandbox("bwrap", network)


@functools.cache
def _warn_once() -> None:
    warnings.warn("rcaeval: bubblewrap is not available, agents run without a sandbox "
                  "(install bubblewrap, or pass --sandbox none to silence this)",
                  RuntimeWarning, stacklevel=3)


def _python_runtime() -> list[Path]:
    """The runner's interpreter and packages: what ``{python} -m …`` and the incident tools
    need. The rcaeval package dir alone (an editable install lives in a checkout, whose
    registry and store must stay hidden)."""
    import rcaeval

    paths = {Path(sys.base_prefix), Path(sys.prefix), Path(sys.exec_prefix),
             Path(rcaeval.__file__).resolve().parent}
    for entry in sys.path:
        p = Path(entry or ".").resolve()
        if p.name in ("site-packages", "dist-packages") or p.suffix == ".zip":
            paths.add(p)
    exe = Path(sys.executable)
    paths.add(exe.parent)
    return sorted(p for p in paths if p.exists())


def _is_under(path: Path, roots: Sequence[str]) -> bool:
    return any(path == Path(r) or Path(r) in path.parents for r in roots)


def wrapper(sb: Sandbox, ws: Workspace, argv: Sequence[str] = ()) -> list[str]:
    """The ``bwrap … --`` prefix for an agent in ``ws`` (``[]`` without a sandbox).

    Absolute paths on the agent's own command line that exist (its script, its binary) are
    bound read-only too, so ``command:/opt/agents/run.sh`` or ``{python} /path/agent.py``
    run as given.
    """
    if sb.mode == "none":
        return []
    exe = bwrap_path()
    assert exe is not None, "resolve_sandbox() checked bubblewrap"
    args = [exe, "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--hostname", "rcaeval-agent"]
    if not sb.network:
        args.append("--unshare-net")
    for d in SYSTEM_RO:
        if os.path.lexists(d):
            args += ["--ro-bind-try", d, d] if not os.path.islink(d) else \
                ["--symlink", os.readlink(d), d]
    for name in ETC_RO:
        p = f"/etc/{name}"
        if os.path.exists(p):
            args += ["--ro-bind", p, p]
    args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/run",
             "--tmpfs", "/var"]
    bound: list[Path] = []
    extra = [Path(a) for a in argv if a.startswith("/") and os.path.exists(a)]
    for p in [*_python_runtime(), *extra]:
        real = p.resolve()
        if _is_under(real, SYSTEM_RO) or any(real == b or b in real.parents for b in bound):
            continue
        bound.append(real)
        args += ["--ro-bind", str(real), str(real)]
        if p != real and not _is_under(p, SYSTEM_RO):
            args += ["--ro-bind", str(real), str(p)]
    import rcaeval

    pkg = Path(rcaeval.__file__).resolve().parent
    for name in HIDDEN_PACKAGE_DIRS:
        if (pkg / name).is_dir():
            args += ["--tmpfs", str(pkg / name)]
    args += ["--bind", str(ws.path), str(ws.path), "--chdir", str(ws.path), "--"]
    return args


def sandbox_wrapper(ws: Workspace, argv: Sequence[str]) -> list[str]:
    """The wrapper for an agent ``argv`` in ``ws`` (``[]`` without a sandbox), for the spawn
    point's ``wrapper=``."""
    return wrapper(ws.sandbox, ws, argv)
