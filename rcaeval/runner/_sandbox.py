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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rcaeval.errors import InputError

if TYPE_CHECKING:
    from rcaeval.runner._workspace import Workspace

SANDBOX_MODES = ("auto", "require", "bwrap", "none")
DEFAULT_SANDBOX = "auto"
SANDBOX_UID = 65534
"""The uid and gid the agent runs as inside its own user namespace (``nobody``), whatever
uid runs rcaeval - root included: no capability, in or out of the namespace."""

CI_TRUTHY = ("1", "true", "yes")

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
class Bind:
    """A path the user declared for the sandbox (``--sandbox-bind PATH[:ro]``)."""

    path: str
    writable: bool = True

    def __str__(self) -> str:
        return self.path + ("" if self.writable else ":ro")


@dataclass(frozen=True)
class Sandbox:
    """What agents run under: ``mode`` ``bwrap`` or ``none``; ``network`` shared or not;
    ``binds`` declared with ``--sandbox-bind``."""

    mode: str = "none"
    network: bool = True
    binds: tuple[Bind, ...] = ()
    endpoints: tuple[tuple[str, int], ...] = ()
    """``--allow-endpoint`` loopback endpoints a ``--no-network`` agent may reach."""
    home: str | None = None
    """``--agent-home DIR``: the agent's ``HOME`` for every case (mounted read-write), instead
    of the workspace's fresh ``.home``."""

    def describe(self) -> str:
        if self.mode == "none":
            return "none"
        if self.network:
            return "bwrap"
        allowed = ", ".join(f"{h}:{p}" for h, p in self.endpoints)
        return "bwrap (no network" + (f"; endpoints {allowed})" if allowed else ")")


NO_SANDBOX = Sandbox()


def _probe_argv(exe: str) -> list[str]:
    return [exe, *_isolation_args(exe), "--ro-bind", "/", "/", "true"]


@functools.cache
def bwrap_path() -> str | None:
    """``bwrap`` when it is installed and makes the sandbox agents run in here - its own user
    namespace without capabilities, PID namespace - (probed once), else ``None``."""
    exe = shutil.which("bwrap")
    if exe is None:
        return None
    try:
        done = subprocess.run(_probe_argv(exe), stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30,
                              check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return exe if done.returncode == 0 else None


@functools.cache
def _bwrap_options(exe: str) -> frozenset[str]:
    """The long options this ``bwrap`` knows (``--disable-userns`` is 0.8.0+)."""
    try:
        done = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=30,
                              check=False)
    except (OSError, subprocess.SubprocessError):
        return frozenset()
    return frozenset(w for w in (done.stdout + done.stderr).split() if w.startswith("--"))


def _isolation_args(exe: str) -> list[str]:
    """No capability and no way back to one: an unprivileged uid in its own user namespace
    (root outside maps to ``nobody`` inside), every capability dropped, no further user
    namespaces (where bwrap supports it), its own session, PID, IPC and UTS namespaces."""
    uid = str(SANDBOX_UID)
    args = ["--unshare-user", "--uid", uid, "--gid", uid, "--cap-drop", "ALL"]
    if "--disable-userns" in _bwrap_options(exe):
        args.append("--disable-userns")
    return [*args, "--new-session", "--die-with-parent", "--unshare-pid", "--unshare-ipc",
            "--unshare-uts", "--unshare-cgroup-try"]


def in_ci(environ: Mapping[str, str] | None = None) -> bool:
    """``CI`` is set to a true value (``CI=true``, as GitHub Actions, GitLab and most CIs
    set it)."""
    return (environ if environ is not None else os.environ).get("CI", "").strip().lower() \
        in CI_TRUTHY


def parse_binds(items: Sequence[str] | None) -> tuple[Bind, ...]:
    """``["/data/models:ro", "./cache"]`` -> binds (absolute; ``:ro`` read-only, ``:rw`` or
    nothing read-write). :class:`InputError` (``--sandbox-bind``) for a path that does not
    exist or is ``/``."""
    out: list[Bind] = []
    for item in items or ():
        path, writable = item, True
        for suffix, flag in ((":ro", False), (":rw", True)):
            if item.endswith(suffix):
                path, writable = item[: -len(suffix)], flag
        if not path or "\0" in path:
            raise InputError(f"bad --sandbox-bind {item!r}: expected PATH or PATH:ro",
                             field="--sandbox-bind")
        real = Path(path).expanduser().absolute()
        if not real.exists():
            raise InputError(f"--sandbox-bind {item!r}: {real} does not exist",
                             field="--sandbox-bind")
        if real.resolve() == Path("/"):
            raise InputError(f"--sandbox-bind {item!r}: the whole filesystem cannot be bound "
                             "(use --sandbox none for a trusted agent)", field="--sandbox-bind")
        out.append(Bind(str(real), writable))
    return tuple(out)


def resolve_sandbox(mode: str | None = DEFAULT_SANDBOX, *, network: bool = True,
                    binds: Sequence[Bind | str] = (),
                    endpoints: Sequence[tuple[str, int] | str] = (),
                    home: str | os.PathLike[str] | None = None,
                    environ: Mapping[str, str] | None = None) -> Sandbox:
    """``auto``: bubblewrap where it works, else none with a one-line warning - an error
    under ``CI=true``; ``require`` (``bwrap``): require it (``InputError`` when it does not
    work); ``none``: no sandbox. ``binds``: ``--sandbox-bind`` paths; ``endpoints``:
    ``--allow-endpoint`` ``HOST:PORT`` (loopback) a ``--no-network`` agent may reach;
    ``home``: ``--agent-home`` (created when missing)."""
    from rcaeval.runner._endpoints import parse_endpoints

    mode = (mode or DEFAULT_SANDBOX).strip().lower()
    if mode not in SANDBOX_MODES:
        raise InputError(f"unknown sandbox {mode!r} ({' | '.join(SANDBOX_MODES)})",
                         field="--sandbox")
    bound = tuple(b if isinstance(b, Bind) else parse_binds([b])[0] for b in binds)
    allowed = tuple(e if isinstance(e, tuple) else parse_endpoints([e])[0] for e in endpoints)
    agent_home = _agent_home(home)
    if allowed and network:
        raise InputError("--allow-endpoint is for --no-network (with the network on, every "
                         "endpoint is reachable already)", field="--allow-endpoint")
    if mode == "none":
        if not network:
            raise InputError("--no-network needs the bubblewrap sandbox (--sandbox require "
                             "or auto)", field="--no-network")
        return Sandbox(home=agent_home) if agent_home else NO_SANDBOX
    if bwrap_path() is None:
        why = ("bubblewrap is not installed" if shutil.which("bwrap") is None else
               "bubblewrap cannot make a sandbox here (`" + " ".join(_probe_argv("bwrap")) +
               "` fails: user namespaces disabled?)")
        if mode != "auto" or not network:
            raise InputError(f"the sandbox needs bubblewrap: {why} (apt-get install "
                             "bubblewrap)", field="--sandbox")
        if in_ci(environ):
            raise InputError(f"CI=true and {why}: agents would run without the sandbox. "
                             "Install bubblewrap (apt-get install bubblewrap), or pass "
                             "--sandbox none to run them unsandboxed on purpose",
                             field="--sandbox")
        _warn_once()
        return Sandbox(home=agent_home) if agent_home else NO_SANDBOX
    return Sandbox("bwrap", network, bound, allowed, agent_home)


def _agent_home(home: str | os.PathLike[str] | None) -> str | None:
    if home is None or str(home) == "":
        return None
    path = Path(home).expanduser().absolute()
    if path.resolve() == Path("/"):
        raise InputError("--agent-home cannot be /", field="--agent-home")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"--agent-home {home}: cannot create it: {exc.strerror}",
                         field="--agent-home") from exc
    if not path.is_dir():
        raise InputError(f"--agent-home {home}: not a directory", field="--agent-home")
    return str(path)


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


def _is_under(path: Path, roots: Sequence[str | Path]) -> bool:
    return any(path == Path(r) or Path(r) in path.parents for r in roots)


def wrapper(sb: Sandbox, ws: Workspace, argv: Sequence[str] = (),
            env: Mapping[str, str] | None = None) -> list[str]:
    """The ``bwrap … --`` prefix for an agent ``argv`` in ``ws`` (``[]`` without a sandbox).

    Mounted read-only besides the system runtime and the runner's Python: the agent's own
    program as :func:`~rcaeval.runner._sandbox_mounts.program_mounts` finds it on ``PATH``
    (from ``env``), and the declared binds; the workspace read-write. Nothing else of the
    command line is mounted.
    """
    if sb.mode == "none":
        return []
    from rcaeval.runner._sandbox_mounts import program_mounts

    exe = bwrap_path()
    assert exe is not None, "resolve_sandbox() checked bubblewrap"
    args = [exe, *_isolation_args(exe), "--hostname", "rcaeval-agent"]
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
    path_env = (env or {}).get("PATH", os.environ.get("PATH", os.defpath))
    bound: list[Path] = []
    for p in [*_python_runtime(), *program_mounts(argv, path_env)]:
        real = p.resolve()
        if _is_under(real, SYSTEM_RO) or _is_under(real, bound) or real == Path("/") or \
                _is_under(ws.path, [real]):
            continue  # a program dir holding the workspace would expose its neighbours
        bound.append(real)
        args += ["--ro-bind", str(real), str(real)]
        if p != real and not _is_under(p, SYSTEM_RO) and not _is_under(p, bound):
            # a link stays a link: a copy of its target at the link's path would make a
            # program that finds its own files from its real path (node's ESM imports of
            # an npm package's ``.bin/`` entry) look beside the link
            args += ["--symlink", str(real), str(p)]
    for b in sb.binds:
        args += ["--bind" if b.writable else "--ro-bind", b.path, b.path]
    if sb.home:
        args += ["--bind", sb.home, sb.home]
    import rcaeval

    pkg = Path(rcaeval.__file__).resolve().parent
    for name in HIDDEN_PACKAGE_DIRS:
        if (pkg / name).is_dir():
            args += ["--tmpfs", str(pkg / name)]
    args += ["--bind", str(ws.path), str(ws.path), "--chdir", str(ws.path)]
    return [*args, *_endpoint_args(sb), "--", *_forwarder(sb)]


def _endpoint_args(sb: Sandbox) -> list[str]:
    if sb.network or not sb.endpoints:
        return []
    from rcaeval.runner._endpoints import SANDBOX_SOCKET_DIR, endpoint_socket

    out = ["--dir", SANDBOX_SOCKET_DIR]
    for host, port in sb.endpoints:
        out += ["--ro-bind", endpoint_socket(host, port), f"{SANDBOX_SOCKET_DIR}/{port}.sock"]
    return out


def _forwarder(sb: Sandbox) -> list[str]:
    """``python _netfwd.py PORT=SOCKET … --`` before the agent's argv: its loopback
    listeners for the declared endpoints (rcaeval.runner._endpoints)."""
    if sb.network or not sb.endpoints:
        return []
    from rcaeval.runner._endpoints import SANDBOX_SOCKET_DIR

    script = Path(__file__).with_name("_netfwd.py")
    routes = [f"{port}={SANDBOX_SOCKET_DIR}/{port}.sock" for _, port in sb.endpoints]
    return [sys.executable, "-I", "-S", str(script), *routes, "--"]


def sandbox_wrapper(ws: Workspace, argv: Sequence[str],
                    env: Mapping[str, str] | None = None) -> list[str]:
    """The wrapper for an agent ``argv`` in ``ws`` (``[]`` without a sandbox), for the spawn
    point's ``wrapper=``; ``env`` is the agent's environment (its ``PATH`` finds the
    program)."""
    return wrapper(ws.sandbox, ws, argv, env)
