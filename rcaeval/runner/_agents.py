"""The agent-adapter interface and the ``--agent`` spec string.

``replay:<behaviour>``  serve a recorded run (docs/bundle-contract.md)
``command:<cmdline>``   any CLI agent, one subprocess per prompt turn
``acp:<cmdline>``       an Agent Client Protocol agent over stdio, one session for all turns
``opencode:[P/MODEL]``  opencode run, configured by the runner (rcaeval.runner._profiles)
``claude-code:[MODEL]`` Claude Code's ``claude -p``, configured by the runner
``gemini:[MODEL]``      Gemini CLI (``gemini --output-format json``), configured by the runner
"""

from __future__ import annotations

import importlib.util
import os
import shlex
import stat
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, Protocol

from rcaeval._usage import USAGE_KEYS
from rcaeval._usage import bound as usage_bound
from rcaeval._usage import check as check_usage
from rcaeval.errors import InputError
from rcaeval.runner._workspace import Workspace

PROFILES = ("opencode", "claude-code", "gemini")
"""Harness profiles: ``--agent <profile>:[MODEL]`` (rcaeval.runner._profiles)."""

PYTHON_PLACEHOLDER = "{python}"
"""Replaced in ``command:``/``acp:`` command lines by the runner's own interpreter, so a spec
such as ``acp:{python} -m rcaeval.examples.example_agent`` never depends on PATH's python."""

OutcomeStatus = Literal["completed", "crashed", "timed_out", "errored"]

MAX_ANSWER_BYTES = 4 * 1024 * 1024
"""What is read of one turn's answer (``output.txt``, stdout, ACP message chunks); the excess
is dropped with a note on the case (docs/agents.md "Size limits")."""


ACP_EXTRA_HINT = "pip install 'rcaeval-judge[acp]'"
"""How to get the optional ``agent-client-protocol`` package ``acp:`` agents need."""


def now_iso() -> str:
    """The current UTC time as an ISO-8601 string with milliseconds and a ``Z``."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def acp_available() -> bool:
    """Whether the ``acp`` extra (the agent-client-protocol package) is installed."""
    return importlib.util.find_spec("acp") is not None


def read_capped(path: Path, cap: int = MAX_ANSWER_BYTES) -> tuple[str, int | None]:
    """The first ``cap`` bytes of a regular file as text (never follows a symlink, never
    blocks on a FIFO) and the file's size when it was longer (``None``: read whole)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return "", None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            return "", None
        data = fh.read(cap + 1)
    if len(data) <= cap:
        return data.decode("utf-8", "replace"), None
    return data[:cap].decode("utf-8", "ignore"), max(st.st_size, len(data))


def truncation_note(what: str, size: int, cap: int = MAX_ANSWER_BYTES) -> str:
    return f"{what} truncated: {size} bytes, the first {cap} were kept"


def empty_usage() -> dict[str, Any]:
    """Normalised usage: the five contract keys (``None`` = not reported), ``reported``, the
    raw reports as the agent sent them, and ``notes``: why a total is ``None`` although
    something was reported (an invalid or out-of-range value, rcaeval._usage)."""
    return {**{k: None for k in USAGE_KEYS}, "reported": [], "notes": []}


def _reject(usage: dict[str, Any], key: str, reason: str) -> None:
    notes = usage.setdefault("notes", [])
    if len(notes) < 20:
        notes.append(reason)
    invalid = usage.setdefault("invalid", [])
    if key not in invalid:
        invalid.append(key)
    usage[key] = None


def add_usage(usage: dict[str, Any], key: str, value: Any) -> None:
    """Add one reported ``value`` to the ``key`` total (``None``: not reported, ignored). An
    invalid value, or a total growing past the bound, leaves the total ``None`` with a note."""
    set_usage(usage, key, value, add=True)


def set_usage(usage: dict[str, Any], key: str, value: Any, *, add: bool = False) -> None:
    """Set (or with ``add`` accumulate) the ``key`` total from an untrusted ``value``."""
    if value is None or key in usage.get("invalid", ()):
        return
    clean, reason = check_usage(key, value)
    if reason is not None:
        _reject(usage, key, reason)
        return
    total = (usage.get(key) or 0) + clean if add else clean
    if total > usage_bound(key):
        _reject(usage, key, f"{key} total is out of range (> {usage_bound(key):g})")
        return
    usage[key] = total


def final_usage(usage: dict[str, Any]) -> dict[str, Any]:
    """The five totals to store (``None`` where not reported or invalid)."""
    return {k: None if k in usage.get("invalid", ()) else usage.get(k) for k in USAGE_KEYS}


@dataclass
class Turn:
    """One entry of ``transcript.json``."""

    turn: int
    role: Literal["user", "assistant"]
    text: str
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"turn": self.turn, "role": self.role, "text": self.text, **self.extra}


@dataclass
class AgentOutcome:
    """What one agent run on one workspace produced."""

    status: OutcomeStatus
    final_text: str = ""
    transcript: list[Turn] = field(default_factory=list)
    usage: dict[str, Any] = field(default_factory=empty_usage)
    telemetry: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    infra_error: bool = False
    """True for infrastructure failures worth a retry: spawn failure, crash before output."""
    agent_info: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    """Case notes from the adapter (an answer truncated at :data:`MAX_ANSWER_BYTES`, ...)."""


class AgentAdapter(Protocol):
    name: str
    spec: str

    def info(self) -> dict[str, Any]:
        """The manifest's ``agent`` object."""
        ...

    def run_case(
        self, workspace: Workspace, *, timeout_s: float, turn_timeout_s: float | None = None
    ) -> AgentOutcome:
        """Run every turn of ``workspace.case`` in ``workspace``; never raises for agent
        failures (they become the outcome's status)."""
        ...


def parse_agent_spec(
    spec: str,
    *,
    env: Mapping[str, str | None] | None = None,
    prompt_mode: Literal["stdin", "file"] | None = None,
) -> AgentAdapter:
    """Build the adapter an ``--agent`` spec names. ``env`` adds variables to the agent's
    environment (``None`` values inherit from the runner); ``prompt_mode`` forces the
    command adapter's prompt delivery (default: stdin, or file when the command line holds
    ``{prompt_file}``). ``{python}`` in a command line is the runner's interpreter."""
    kind, sep, rest = spec.partition(":")
    rest = rest.strip()
    if sep and kind in PROFILES:
        from rcaeval.runner._profiles import profile_agent

        return profile_agent(kind, rest, env=env)
    if not sep or not rest:
        raise InputError(
            f"bad agent spec {spec!r}: expected replay:<behaviour>, command:<cmdline>, "
            "acp:<cmdline>, opencode:[PROVIDER/MODEL], claude-code:[MODEL] or gemini:[MODEL]",
            field="--agent")
    if kind == "replay":
        from rcaeval.runner._replay import ReplayAgent

        return ReplayAgent(spec, rest)
    if kind in ("command", "acp"):
        try:
            argv = [a.replace(PYTHON_PLACEHOLDER, sys.executable) for a in shlex.split(rest)]
        except ValueError as exc:
            raise InputError(f"bad command line in agent spec: {exc}", field="--agent") from exc
        if not argv:
            raise InputError("empty command line in agent spec", field="--agent")
        if kind == "command":
            from rcaeval.runner._command import CommandAgent

            return CommandAgent(spec, argv, env=env, prompt_mode=prompt_mode)
        if not acp_available():
            raise InputError(
                f"agent spec {spec!r} needs the optional ACP support (the "
                f"agent-client-protocol package), which is not installed: {ACP_EXTRA_HINT}",
                field="--agent")
        from rcaeval.runner._acp import AcpAgent

        return AcpAgent(spec, argv, env=env)
    raise InputError(f"unknown agent kind {kind!r} in {spec!r} (replay | command | acp | "
                     "opencode | claude-code | gemini)",
                     field="--agent")
