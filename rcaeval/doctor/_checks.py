"""The checks of ``rcaeval doctor`` (docs/doctor.md): is this machine set up to run a suite?

Each check returns :class:`Check` rows (``ok`` / ``warn`` / ``fail`` / ``skip``) with a
detail and, when something is wrong, what to do about it. Nothing is written: the store is
opened read-only, the agent (when given) is started in a throwaway workspace and stopped
after the ACP handshake (``acp:``) or resolved without running it (``command:``).
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rcaeval._paths import read_query
from rcaeval.errors import RcaevalError

STATUSES = ("ok", "warn", "fail", "skip")
REQUIRED_PACKAGES = ("duckdb", "polars", "pyarrow", "pydantic", "yaml", "orjson", "typer",
                     "rich")
MIN_PYTHON = (3, 11)


@dataclass(frozen=True)
class Check:
    """One finding: ``name`` (what was checked), ``status``, ``detail``, and ``fix``."""

    name: str
    status: str
    detail: str
    fix: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "status": self.status, "detail": self.detail,
                "fix": self.fix}


def check_python() -> list[Check]:
    out: list[Check] = []
    v = sys.version_info
    version = f"Python {v.major}.{v.minor}.{v.micro} ({sys.executable})"
    out.append(Check("python", "ok", version) if (v.major, v.minor) >= MIN_PYTHON else
               Check("python", "fail", version, f"rcaeval needs Python "
                     f"{'.'.join(map(str, MIN_PYTHON))} or newer"))
    missing = []
    for name in REQUIRED_PACKAGES:
        try:
            importlib.import_module(name)
        except ImportError as exc:
            missing.append(f"{name} ({exc})")
    out.append(Check("packages", "fail", "cannot import " + ", ".join(missing),
                     "pip install -e '.[dev,acp]' (or: make venv)") if missing else
               Check("packages", "ok", ", ".join(REQUIRED_PACKAGES) + " import"))
    try:
        importlib.import_module("acp")
        out.append(Check("acp", "ok", "agent-client-protocol imports: acp: agents can run"))
    except ImportError:
        out.append(Check("acp", "warn", "agent-client-protocol is not installed: acp: "
                         "agents cannot run", "pip install 'rcaeval-judge[acp]'"))
    exe = shutil.which("rcaeval")
    if exe:
        out.append(Check("command", "ok", f"rcaeval on PATH: {exe}"))
    else:
        out.append(Check("command", "warn", "rcaeval is not on PATH (it is installed in the "
                         "virtualenv)", "source .venv/bin/activate, or call .venv/bin/rcaeval"))
    return out


def check_store(db: str | Path | None) -> list[Check]:
    from rcaeval._paths import default_db_path
    from rcaeval.store import connect

    path = Path(db) if db is not None else default_db_path()
    if str(path) == ":memory:":
        return [Check("store", "ok", "in-memory store")]
    if not path.exists():
        parent = next((p for p in (path.parent, *path.parent.parents) if p.exists()), None)
        if parent is not None and os.access(parent, os.W_OK):
            return [Check("store", "ok", f"{path} does not exist yet; the first run creates "
                          "it")]
        return [Check("store", "fail", f"{path} does not exist and {parent} is not writable",
                      "choose another --db / $RCAEVAL_DB")]
    try:
        store = connect(path, read_only=True)
    except Exception as exc:  # noqa: BLE001 - a locked or corrupt file: report, do not crash
        msg = " ".join(str(exc).split()).removeprefix(f"{path}: ")
        if isinstance(exc, RcaevalError) and "pending" in msg:
            return [Check("store", "warn", f"{path}: {msg}", "the next writing command "
                          "(rcaeval run, rcaeval db migrate) applies the migrations")]
        if isinstance(exc, RcaevalError) and "edited" in msg:
            return [Check("store", "fail", f"{path}: {msg}", "restore the migration file, "
                          "or rebuild the store (docs/store.md, Migrations)")]
        if "lock" in msg.lower():
            return [Check("store", "warn", f"{path} is in use by another process: {msg}",
                          "wait for the other rcaeval command, or use another --db")]
        return [Check("store", "fail", f"{path} cannot be opened: {msg}",
                      "restore it from a Parquet export or remove it (docs/store.md)")]
    try:
        runs = store.con.execute(read_query("store/run_count.sql")).fetchone()[0]
        detail = f"{path}: schema version {store.schema_version}, {runs} run(s)"
    finally:
        store.close()
    if not os.access(path, os.W_OK):
        return [Check("store", "fail", f"{detail}; the file is read-only",
                      "make it writable or choose another --db")]
    return [Check("store", "ok", detail)]


def check_registry(registry: str | Path | None, suite_id: str | None) -> list[Check]:
    from rcaeval.registry import iter_suite_cases, load_registry

    try:
        reg = load_registry(registry)
    except RcaevalError as exc:
        return [Check("registry", "fail", str(exc), "pass --registry or set "
                      "$RCAEVAL_REGISTRY")]
    out: list[Check] = []
    counts = f"{len(reg.suites)} suite(s), {len(reg.cases) + len(reg.case_problems)} case(s)"
    if reg.problems:
        shown = "; ".join(f"{p.where()} {p.code}: {p.message}" for p in reg.problems[:3])
        more = f" (+{len(reg.problems) - 3} more)" if len(reg.problems) > 3 else ""
        out.append(Check("registry", "fail", f"{reg.root}: {counts}, {len(reg.problems)} "
                         f"problem(s): {shown}{more}", "rcaeval validate lists them all"))
    else:
        warned = f", {len(reg.warnings)} warning(s)" if reg.warnings else ""
        out.append(Check("registry", "ok", f"{reg.root}: {counts}{warned}"))
    if suite_id is None:
        return out
    try:
        entries = list(iter_suite_cases(reg.root, suite_id))
    except RcaevalError as exc:
        return [*out, Check("suite", "fail", str(exc), "rcaeval validate")]
    broken = [e.entry.id for e in entries if e.case is None]
    if broken:
        out.append(Check("suite", "fail", f"suite {suite_id}: {len(entries)} case(s), "
                         f"{len(broken)} do not load: {', '.join(broken[:5])}",
                         "rcaeval validate names the files and fields; these cases would "
                         "end errored (exit 7)"))
    else:
        out.append(Check("suite", "ok", f"suite {suite_id}: {len(entries)} case(s) load"))
    return out


def check_sandbox(timeout_s: float = 10.0) -> list[Check]:
    exe = shutil.which("bwrap")
    if exe is None:
        return [Check("sandbox", "warn", "bubblewrap (bwrap) is not installed: agents cannot "
                      "be sandboxed", "apt-get install -y bubblewrap")]
    argv = [exe, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-all",
            "--die-with-parent", "true"]
    try:
        res = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s,
                             check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return [Check("sandbox", "warn", f"{exe} cannot run: {exc}", None)]
    if res.returncode != 0:
        return [Check("sandbox", "warn", f"{exe} is installed but cannot make a sandbox here "
                      f"(exit {res.returncode}): {res.stderr.strip()[:200]}",
                      "enable unprivileged user namespaces "
                      "(sysctl kernel.unprivileged_userns_clone=1) or run in a VM")]
    return [Check("sandbox", "ok", f"{exe} makes a sandbox (user, pid, network namespaces)")]


def check_agent(spec: str | None, env: Mapping[str, str | None] | None = None,
                timeout_s: float = 30.0) -> list[Check]:
    """Parse the spec; ``acp:`` starts the agent and does the ACP handshake (initialize,
    session/new) in a throwaway workspace; ``command:`` resolves the executable without
    running it (it would answer a prompt); ``replay:`` checks the recording exists."""
    if spec is None:
        return [Check("agent", "skip", "no --agent given")]
    from rcaeval.runner import parse_agent_spec

    try:
        adapter = parse_agent_spec(spec, env=env)
    except RcaevalError as exc:
        return [Check("agent", "fail", str(exc), "see docs/agents.md for the spec forms")]
    kind = getattr(adapter, "name", "")
    if kind == "replay":
        run_dir = getattr(adapter, "run_dir", None)
        if run_dir is not None and Path(run_dir).is_dir():
            n = sum(1 for p in Path(run_dir).iterdir() if p.is_dir())
            return [Check("agent", "ok", f"{spec}: recording {run_dir} ({n} case dir(s))")]
        return [Check("agent", "fail", f"{spec}: no recording at {run_dir}",
                      "name a dir under <data>/recorded/ (rec-<behaviour>) or a path")]
    argv = list(getattr(adapter, "argv", []))
    resolved = _resolve(argv[0]) if argv else None
    if resolved is None:
        return [Check("agent", "fail", f"{spec}: executable {argv[0] if argv else '?'!r} "
                      "not found", "install it, or give its full path in the spec")]
    if kind == "command":
        return [Check("agent", "ok", f"{spec}: executable {resolved} (not run: a command "
                      "agent would answer a prompt)")]
    if kind == "acp":
        return [_acp_handshake(adapter, spec, timeout_s)]
    return [Check("agent", "ok", f"{spec}: {kind} agent")]


def _resolve(exe: str) -> str | None:
    if os.sep in exe:
        return exe if os.path.isfile(exe) and os.access(exe, os.X_OK) else None
    return shutil.which(exe)


def _acp_handshake(adapter: Any, spec: str, timeout_s: float) -> Check:
    from rcaeval.runner import RunCase, create_workspace

    with tempfile.TemporaryDirectory(prefix="rcaeval-doctor-") as tmp:
        ws = create_workspace(Path(tmp) / "ws", RunCase(
            case_id="doctor", prompt="rcaeval doctor: handshake only, no prompt is sent"),
            run_id="doctor")
        logging.disable(logging.ERROR)  # the acp library logs a dying agent's broken pipe
        try:
            info, err = asyncio.run(_handshake(adapter, ws, timeout_s))
        except Exception as exc:  # noqa: BLE001 - any failure is the finding
            info, err = None, f"{exc!r}"
        finally:
            logging.disable(logging.NOTSET)
        stderr = (ws.runner_dir / "agent.stderr")
        tail = stderr.read_text(errors="replace").strip()[-300:] if stderr.exists() else ""
    if err is not None:
        return Check("agent", "fail", f"{spec}: ACP handshake failed: {err}" +
                     (f"; stderr: {tail}" if tail else ""),
                     "run the command by hand: it must speak ACP over stdio (docs/agents.md)")
    return Check("agent", "ok", f"{spec}: ACP handshake ok ({info})")


async def _handshake(adapter: Any, ws: Any, timeout_s: float) -> tuple[str | None,
                                                                       str | None]:
    from acp import PROTOCOL_VERSION, connect_to_agent
    from acp.schema import ClientCapabilities, FileSystemCapabilities, Implementation

    from rcaeval import __version__
    from rcaeval.runner import AgentOutcome, agent_env
    from rcaeval.runner._acp_client import WorkspaceClient
    from rcaeval.runner._proc import kill_group

    with open(ws.runner_dir / "agent.stderr", "ab") as err_f:
        try:
            proc = await asyncio.create_subprocess_exec(
                *adapter.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=err_f, cwd=str(ws.path), env=agent_env(ws, adapter.env),
                start_new_session=True)
        except OSError as exc:
            return None, f"cannot start {adapter.argv[0]!r}: {exc}"
        client = WorkspaceClient(ws, AgentOutcome(status="completed"))
        conn = connect_to_agent(client, proc.stdin, proc.stdout)
        try:
            init = await asyncio.wait_for(conn.initialize(
                protocol_version=PROTOCOL_VERSION,
                client_capabilities=ClientCapabilities(
                    fs=FileSystemCapabilities(read_text_file=True, write_text_file=True),
                    terminal=False),
                client_info=Implementation(name="rcaeval-doctor", version=__version__)),
                timeout_s)
            session = await asyncio.wait_for(
                conn.new_session(cwd=str(ws.path), mcp_servers=[]), timeout_s)
            name = init.agent_info.name if init.agent_info is not None else "unnamed agent"
            return (f"{name}, protocol version {init.protocol_version}, session "
                    f"{session.session_id}"), None
        except TimeoutError:
            return None, f"no answer within {timeout_s:g}s"
        except Exception as exc:  # noqa: BLE001 - connection closed, protocol error
            code = proc.returncode
            return None, f"{exc!r}" + (f" (agent exited with {code})" if code is not None
                                       else "")
        finally:
            if proc.stdin is not None:
                proc.stdin.close()
            try:
                await asyncio.wait_for(conn.close(), 2.0)
            except Exception:  # noqa: BLE001, S110 - closing a dead connection
                pass
            kill_group(proc.pid)
            await proc.wait()


def run_checks(*, db: str | Path | None = None, registry: str | Path | None = None,
               suite: str | None = None, agent: str | None = None,
               agent_env: Mapping[str, str | None] | None = None,
               timeout_s: float = 30.0) -> list[Check]:
    """Every check, in order: Python and packages, the store, the registry (and ``suite``),
    the sandbox, the agent spec (when given)."""
    return [*check_python(), *check_store(db), *check_registry(registry, suite),
            *check_sandbox(), *check_agent(agent, agent_env, timeout_s)]
