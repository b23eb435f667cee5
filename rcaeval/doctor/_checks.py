"""The checks of ``rcaeval doctor`` (docs/doctor.md): is this machine set up to run a suite?

Each check returns :class:`Check` rows (``ok`` / ``warn`` / ``fail`` / ``skip``) with a
detail and, when something is wrong, what to do about it. Nothing is written: the store is
opened read-only, the agent (when given) is started in a throwaway workspace exactly as
``rcaeval run`` starts it and stopped after its first step (rcaeval.doctor._agent).
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
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
                     "pip install rcaeval-judge (in a checkout: make venv)") if missing else
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
        bin_dir = Path(sys.executable).parent  # the environment rcaeval is installed in
        out.append(Check("command", "warn", "rcaeval is not on PATH (it is installed in the "
                         f"virtualenv {bin_dir.parent})",
                         f"source {bin_dir / 'activate'}, or call {bin_dir / 'rcaeval'}"))
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
        dupes = store.duplicate_keys()
    finally:
        store.close()
    if dupes:
        shown = "; ".join(f"{t}: {v} ({n} rows)" for t, rows in dupes.items() for v, n in rows)
        return [Check("store", "fail", f"{detail}; keys held by more than one row: {shown}",
                      "re-judge the affected runs (rcaeval judge --from-store), which replaces "
                      "their rows, or restore the store from a Parquet export")]
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
    """Can bubblewrap make the sandbox agents run in (the runner's: own user
    namespace as ``nobody``, no capabilities)? A warning - a failure under ``CI=true``,
    where ``rcaeval run --sandbox auto`` refuses to run unsandboxed."""
    from rcaeval.runner import in_ci, probe_bwrap

    bad = "fail" if in_ci() else "warn"
    ci_fix = "; in CI pass --sandbox none to run unsandboxed on purpose" if in_ci() else ""
    exe = shutil.which("bwrap")
    if exe is None:
        return [Check("sandbox", bad, "bubblewrap (bwrap) is not installed: agents cannot "
                      "be sandboxed", "apt-get install -y bubblewrap" + ci_fix)]
    try:
        res = probe_bwrap(exe, timeout_s)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return [Check("sandbox", bad, f"{exe} cannot run: {exc}", None)]
    if res.returncode != 0:
        return [Check("sandbox", bad, f"{exe} is installed but cannot make a sandbox here "
                      f"(exit {res.returncode}): {res.stderr.strip()[:200]}",
                      "enable user namespaces (sysctl kernel.unprivileged_userns_clone=1, "
                      "user.max_user_namespaces > 0) or run in a VM" + ci_fix)]
    return [Check("sandbox", "ok", f"{exe} makes a sandbox (user namespace as nobody, no "
                  "capabilities, pid namespace)")]


def run_checks(*, db: str | Path | None = None, registry: str | Path | None = None,
               suite: str | None = None, agent: str | None = None,
               agent_env: Mapping[str, str | None] | None = None,
               timeout_s: float = 30.0, sandbox: str | None = "auto", network: bool = True,
               sandbox_binds: Sequence[str] = (),
               allow_endpoints: Sequence[str] = ()) -> list[Check]:
    """Every check, in order: Python and packages, the store, the registry (and ``suite``),
    the sandbox, the agent spec (when given: started as ``rcaeval run`` would with
    ``sandbox``, ``network`` and ``sandbox_binds``, rcaeval.doctor._agent)."""
    from rcaeval.doctor._agent import check_agent

    return [*check_python(), *check_store(db), *check_registry(registry, suite),
            *check_sandbox(), *check_agent(agent, agent_env, timeout_s, sandbox=sandbox,
                                           network=network, sandbox_binds=sandbox_binds,
                                           allow_endpoints=allow_endpoints)]
