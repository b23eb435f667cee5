"""``rcaeval doctor --agent SPEC``: start the agent exactly as ``rcaeval run`` would - the same
sandbox (mode, mounts, ``--sandbox-bind``, network), the same environment (``--agent-env``),
a workspace made the same way - and run its first step (docs/doctor.md).

- ``acp:``: the ACP handshake (``initialize``, ``session/new`` with the incident tools' MCP
  server), bounded by the timeout; no prompt is sent.
- ``command:`` and the harness profiles (``opencode:``, ``claude-code:``, ``gemini:``): the
  first turn, with a short doctor prompt instead of a case's; an agent still working at the
  timeout has started (it is stopped, not failed).
- ``replay:``: the recording exists.

Then the incident tools: the MCP server the run's configs start (the runner's interpreter,
``python -m rcaeval.tools``) must import inside the sandbox with a compatible ``mcp``; when the
agent's own program is another Python interpreter, the same is checked there.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from rcaeval.doctor._checks import Check
from rcaeval.errors import RcaevalError
from rcaeval.runner import AGENT_PROFILES

DOCTOR_PROMPT = ("rcaeval doctor: this is a start-up check, not an incident. Reply with one "
                 "line saying OK; do not call any tool.\n")
_PYTHON = re.compile(r"^(python[0-9.]*|pypy[0-9.]*)$")
_TOOLS_PROBE = """
import sys
try:
    import importlib.metadata as md
    import rcaeval.tools._server
    print("mcp", md.version("mcp"))
except Exception as exc:
    print(f"{type(exc).__name__}: {exc}")
    sys.exit(1)
"""


def check_agent(spec: str | None, env: Mapping[str, str | None] | None = None,
                timeout_s: float = 30.0, *, sandbox: str | None = "auto",
                network: bool = True, sandbox_binds: Sequence[str] = (),
                allow_endpoints: Sequence[str] = ()) -> list[Check]:
    """Start ``spec`` the way ``rcaeval run`` would and run its first step; ``sandbox``,
    ``network`` and ``sandbox_binds`` as ``run``'s ``--sandbox``, ``--no-network`` and
    ``--sandbox-bind``."""
    if spec is None:
        return [Check("agent", "skip", "no --agent given")]
    from rcaeval.runner import parse_agent_spec, resolve_sandbox

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
    if not argv or _resolve(argv[0]) is None:
        return [Check("agent", "fail", f"{spec}: executable {argv[0] if argv else '?'!r} "
                      "not found", "install it, or give its full path in the spec")]
    try:
        sb = resolve_sandbox(sandbox, network=network, binds=sandbox_binds,
                             endpoints=allow_endpoints)
    except RcaevalError as exc:
        return [Check("agent", "fail", f"{spec}: {exc}", "install bubblewrap, or pass the "
                      "--sandbox the run will use")]
    where = f"sandbox {sb.describe()}"
    with tempfile.TemporaryDirectory(prefix="rcaeval-doctor-") as tmp:
        from rcaeval.runner import RunCase, create_workspace

        ws = create_workspace(Path(tmp) / "ws", RunCase(case_id="doctor", prompt=DOCTOR_PROMPT),
                              run_id="doctor", sandbox=sb)
        if kind == "acp":
            first = _acp_first_step(adapter, spec, ws, timeout_s, where)
        elif kind == "command" or kind in AGENT_PROFILES:  # a profile is a command agent
            first = _command_first_step(adapter, spec, ws, timeout_s, where)
        else:
            return [Check("agent", "ok", f"{spec}: {kind} agent")]
        return [first, *_tools_checks(adapter, ws, timeout_s)]


def _resolve(exe: str) -> str | None:
    if os.sep in exe:
        return exe if os.path.isfile(exe) and os.access(exe, os.X_OK) else None
    return shutil.which(exe)


def _command_first_step(adapter: Any, spec: str, ws: Any, timeout_s: float,
                        where: str) -> Check:
    outcome = adapter.run_case(ws, timeout_s=timeout_s, turn_timeout_s=timeout_s)
    if outcome.status == "errored":
        return Check("agent", "fail", f"{spec} ({where}): {outcome.error}", _fix(ws))
    if outcome.status == "timed_out":
        return Check("agent", "ok", f"{spec} ({where}): started, still working on the "
                     f"doctor prompt after {timeout_s:g}s (stopped; not a failure)")
    if outcome.status == "crashed":
        return Check("agent", "warn", f"{spec} ({where}): started, then {outcome.error}",
                     "run the agent by hand on a prompt; see .rcaeval/agent.stderr")
    answer = " ".join(outcome.final_text.split())[:80]
    return Check("agent", "ok", f"{spec} ({where}): first turn done, answered "
                 f"{answer!r}" if answer else f"{spec} ({where}): first turn done (no answer "
                 "text on stdout)")


def _fix(ws: Any) -> str:
    if ws.sandbox.mode == "none":
        return "run the command by hand; install what it imports or names"
    return ("inside the sandbox only the agent's program is mounted: declare its other files "
            "with --sandbox-bind DIR:ro (docs/agents.md, Sandbox), or use --sandbox none for a "
            "trusted agent")


def _acp_first_step(adapter: Any, spec: str, ws: Any, timeout_s: float, where: str) -> Check:
    from rcaeval.runner import acp_handshake

    info, err = acp_handshake(adapter, ws, timeout_s)
    if err is not None:
        return Check("agent", "fail", f"{spec} ({where}): ACP handshake failed: {err}",
                     "run the command by hand: it must speak ACP over stdio "
                     "(docs/agents.md); " + _fix(ws))
    return Check("agent", "ok", f"{spec} ({where}): ACP handshake ok ({info})")


def _mcp_requirement() -> str | None:
    """rcaeval's own ``mcp`` requirement (``>=2.3,<3``), from its installed metadata."""
    try:
        reqs = metadata.requires("rcaeval-judge") or []
    except metadata.PackageNotFoundError:
        return None
    for req in reqs:
        m = re.match(r"^mcp\s*([<>=!~][^;]*)?(;.*)?$", req.strip())
        if m and not (m.group(2) and "extra" in m.group(2)):
            return (m.group(1) or "").replace(" ", "") or None
    return None


def _vtuple(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", v)[:3])


def mcp_compatible(version: str, requirement: str | None) -> bool:
    """``version`` meets ``requirement`` (``>=2.3,<3``: comparisons joined by commas)."""
    if not requirement:
        return True
    have = _vtuple(version)
    ops = {">=": lambda a, b: a >= b, ">": lambda a, b: a > b, "<=": lambda a, b: a <= b,
           "<": lambda a, b: a < b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
           "~=": lambda a, b: a >= b}
    for part in filter(None, requirement.split(",")):
        m = re.match(r"^(>=|<=|==|!=|~=|>|<)(.+)$", part)
        if m is None:
            continue
        want = _vtuple(m.group(2))
        width = max(len(have), len(want))
        a, b = have + (0,) * (width - len(have)), want + (0,) * (width - len(want))
        if not ops[m.group(1)](a, b):
            return False
    return True


def _probe(python: str, ws: Any, timeout_s: float) -> tuple[bool, str]:
    """Run the tools import probe with ``python`` as the run would start it (sandbox,
    environment): ``(ok, "mcp 2.3.1" or the exception line)``."""
    from rcaeval.runner import run_sandboxed

    try:
        done = run_sandboxed([python, "-c", _TOOLS_PROBE], ws, max(timeout_s, 30.0))
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"{type(exc).__name__}: {exc}"
    lines = [ln for ln in (done.stdout + done.stderr).splitlines() if ln.strip()]
    return done.returncode == 0, (lines[-1] if lines else f"exit {done.returncode}")[:300]


def _tools_checks(adapter: Any, ws: Any, timeout_s: float) -> list[Check]:
    """The incident tools' server imports in the sandbox with a compatible ``mcp``; and in the
    agent's own Python interpreter too, when it names one."""
    from rcaeval.runner import agent_program

    want = _mcp_requirement()
    out: list[Check] = []
    pythons = [("the runner's interpreter (the incident tools' MCP server)", sys.executable)]
    exe = agent_program(adapter)
    # another venv's python resolves to the same binary: its packages still differ
    if exe is not None and _PYTHON.match(exe.name) and \
            exe.absolute() != Path(sys.executable).absolute():
        pythons.append((f"the agent's interpreter {exe}", str(exe)))
    for i, (who, python) in enumerate(pythons):
        ok, line = _probe(python, ws, timeout_s)
        if not ok:
            status = "fail" if i == 0 else "warn"
            out.append(Check("tools", status, f"rcaeval.tools does not import with {who}: "
                             f"{line}", f"pip install 'rcaeval-judge' into it (mcp{want or ''})"
                             + ("" if i == 0 else "; fine when the agent only starts the "
                                "MCP server from the generated config")))
            continue
        version = line.split()[-1]
        if not mcp_compatible(version, want):
            out.append(Check("tools", "fail", f"{who}: mcp {version} does not meet rcaeval's "
                             f"mcp{want} (another package installed an older one?)",
                             f"pip install 'mcp{want}'; give an agent that needs another mcp "
                             "its own venv (docs/plug-in-your-agent.md)"))
            continue
        out.append(Check("tools", "ok", f"rcaeval.tools imports with {who} (mcp {version}, "
                         f"rcaeval needs mcp{want or ' (any)'})"))
    return out
