"""Per-case execution: fresh workspace per attempt, infrastructure retries, timeout, audit.

The run loop (suite iteration, persistence, resume, judging) sits on top of
:func:`execute_case`; this module knows nothing about the store or the judge.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import orjson

from rcaeval._ids import child_path
from rcaeval._seal import RUNNER_SEAL, key_doc
from rcaeval._usage import json_safe
from rcaeval.runner._agents import (
    AgentAdapter,
    AgentOutcome,
    final_usage,
    now_iso,
    parse_agent_spec,
    read_capped,
)
from rcaeval.runner._audit import MAX_FILE_BYTES, mirror_audit
from rcaeval.runner._case import RunCase, opaque_case_ref, to_run_case
from rcaeval.runner._proc import kill_processes_under
from rcaeval.runner._sandbox import Sandbox, resolve_sandbox
from rcaeval.runner._toolhost import host_tools
from rcaeval.runner._workspace import (
    Workspace,
    create_workspace,
    open_workspace,
    remove_tree,
    runner_dir_problem,
    workspace_problem,
)

CaseStatus = Literal["completed", "crashed", "timed_out", "errored"]


@dataclass
class CaseHook:
    """What a ``case_context`` gives one attempt: ``tool_server``, the command line of the
    hosted tool server instead of ``rcaeval tools serve`` (run outside the agent's sandbox:
    a live backend reaches the system under test), and ``manifest``, keys it adds to the
    manifest once its block has ended."""

    tool_server: list[str] | None = None
    manifest: dict[str, Any] = field(default_factory=dict)


CaseContext = Callable[[Workspace], AbstractContextManager[CaseHook]]


@dataclass
class CaseExecution:
    """The result of running one case: what ``eval_case_runs`` needs, and the audit path."""

    run_id: str
    case_id: str
    status: CaseStatus
    attempts: int
    audit_dir: Path | None
    usage: dict[str, Any]
    duration_s: float
    error: str | None = None
    workspace_id: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    final_text: str = ""
    case_ref: str | None = None
    """What the agent was told the case is called (opaque unless case ids were exposed)."""
    attempt_log: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """Case notes: a truncated answer, usage totals recorded as NULL (invalid values)."""
    manifest: dict[str, Any] = field(default_factory=dict)


def finalize_workspace(ws: Workspace, outcome: AgentOutcome) -> None:
    """Write the runner's share of the bundle into the workspace. Agent-written files win:
    ``output.txt`` and ``transcript.json`` are only written when the agent left none, and the
    adapter's telemetry events (ACP tool calls) are appended to ``.opencode/telemetry.log``.

    Every write goes through a directory fd of the workspace the runner made, never following
    a symlink (``O_NOFOLLOW``, ``O_EXCL``): nothing is written when the agent deleted or
    replaced its workspace (:func:`workspace_problem` says so)."""
    fd = open_workspace(ws)
    if fd is None:
        return
    try:
        if outcome.final_text:
            _create_at(fd, "output.txt", outcome.final_text.encode("utf-8"))
        if outcome.transcript:
            _create_at(fd, "transcript.json", orjson.dumps(
                [t.to_json() for t in outcome.transcript], option=orjson.OPT_INDENT_2))
        if outcome.telemetry:
            _append_telemetry(fd, outcome.telemetry)
    finally:
        os.close(fd)


_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def _create_at(dir_fd: int, name: str, data: bytes) -> None:
    """Write ``name`` in ``dir_fd`` unless something (a file or a symlink) is there already."""
    try:
        fd = os.open(name, _NEW, 0o644, dir_fd=dir_fd)
    except FileExistsError:
        return
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)


def _append_telemetry(dir_fd: int, events: list[dict[str, Any]]) -> None:
    with contextlib.suppress(FileExistsError):
        os.mkdir(".opencode", 0o755, dir_fd=dir_fd)
    try:  # never through an agent-made symlink (either level)
        tel_dir = os.open(".opencode", os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW,
                          dir_fd=dir_fd)
    except OSError:
        return
    try:
        fd = os.open("telemetry.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW,
                     0o644, dir_fd=tel_dir)
    except OSError:
        return
    finally:
        os.close(tel_dir)
    with os.fdopen(fd, "ab") as fh:
        for event in events:
            fh.write(orjson.dumps(event, option=orjson.OPT_APPEND_NEWLINE, default=str))


NO_TOOL_CALLS = "the agent made 0 tool calls; is its MCP config loaded?"


def no_tool_calls_note(ws: Workspace, outcome: AgentOutcome) -> str | None:
    """The case note for an agent that completed without calling one incident tool (no
    ``tool.call`` line in ``.opencode/telemetry.log``) although the tools were its only way
    to the data (``tools: mcp``) or it is a harness profile: usually a harness that did not
    load the generated MCP config."""
    expected = ws.tools == "mcp" or (ws.tools == "both" and outcome.agent_info.get("harness"))
    if not expected or outcome.status != "completed" or workspace_problem(ws):
        return None
    text, _ = read_capped(ws.path / ".opencode" / "telemetry.log", 16 * 1024 * 1024)
    if '"tool.call"' in text or '"tool.error"' in text:
        return None
    return NO_TOOL_CALLS


def execute_case(
    run_id: str,
    case: Any,
    agent_spec: str | AgentAdapter,
    *,
    workspace_root: str | Path,
    audit_root: str | Path,
    timeout_s: float = 900.0,
    turn_timeout_s: float | None = None,
    max_infra_retries: int = 1,
    case_dir: str | Path | None = None,
    agent_env: dict[str, str | None] | None = None,
    keep_workspace: bool = False,
    overwrite_audit: bool = False,
    max_file_bytes: int = MAX_FILE_BYTES,
    expose_case_ids: bool = False,
    case_ref_key: str | None = None,
    tools: str | None = None,
    sandbox: str | Sandbox | None = None,
    network: bool = True,
    sandbox_binds: Sequence[str] = (),
    allow_endpoints: Sequence[str] = (),
    agent_home: str | Path | None = None,
    prior_attempts: Sequence[dict[str, Any]] = (),
    manifest_extra: Mapping[str, Any] | None = None,
    case_context: CaseContext | None = None,
) -> CaseExecution:
    """Run one case with the agent ``agent_spec`` names and mirror its audit.

    Each attempt gets a fresh workspace under ``<workspace_root>/<run_id>/``. Only
    infrastructure errors (spawn failure, a crash before any output) are retried, at most
    ``max_infra_retries`` times. ``timeout_s`` bounds each attempt (a case's own
    ``execution.timeout_s`` overrides it); ``turn_timeout_s`` bounds each prompt turn. The
    last attempt is mirrored to ``<audit_root>/<run_id>/<case_id>/``. A malformed case
    (e.g. a symlink in its incident data) raises :class:`rcaeval.errors.InputError`.

    The agent never sees the case id: ``RCAEVAL_CASE_ID`` and ``case.json`` carry an opaque
    reference (:func:`~rcaeval.runner.opaque_case_ref` of ``run_id``, the case id and the
    optional secret ``case_ref_key``), the same for every attempt. ``expose_case_ids=True``
    gives the agent the real id instead (for suites whose ids are neutral). The real id is
    recorded runner-side only: the audit dir name and the manifest (``case_id``, next to
    ``case_ref``). ``tools`` (``mcp`` | ``files`` | ``both``, default ``both``) is how the
    agent gets the incident data (docs/agents.md, "Incident tools"). ``sandbox``
    (``auto`` | ``require`` (``bwrap``) | ``none``, or a resolved :class:`Sandbox`; default
    ``none`` here, ``auto`` in ``run_suite`` and the CLI), ``network``, ``sandbox_binds``
    (``PATH`` / ``PATH:ro``) and ``allow_endpoints`` (``HOST:PORT``) choose the agent
    sandbox (docs/agents.md, "Sandbox"); ``agent_home`` is the agent's ``HOME`` instead of a
    fresh one per workspace.

    ``prior_attempts`` are attempts already lost elsewhere (a Ray worker that died mid-case,
    docs/distributed.md): they count against ``max_infra_retries`` and head the attempt log.
    ``manifest_extra`` adds keys to the manifest (the Ray executor's ``executor`` record).
    ``case_context(ws)`` (a live environment such as the incident lab, docs/lab.md) is a
    context manager around each attempt's tool server and agent: it yields a
    :class:`CaseHook` whose ``tool_server`` replaces the hosted tool server's command line, and
    whose ``manifest`` (filled when the block ends) adds keys to the manifest.
    """
    rc: RunCase = to_run_case(case, case_dir)
    case_ref = rc.case_id if expose_case_ids else opaque_case_ref(run_id, rc.case_id,
                                                                  case_ref_key)
    adapter = parse_agent_spec(agent_spec, env=agent_env) if isinstance(agent_spec, str) \
        else agent_spec
    sb = sandbox if isinstance(sandbox, Sandbox) else resolve_sandbox(
        sandbox or "none", network=network, binds=sandbox_binds, endpoints=allow_endpoints,
        home=agent_home)
    limit = rc.timeout_s or timeout_s
    t0 = time.monotonic()
    attempt_log: list[dict[str, Any]] = [dict(a) for a in prior_attempts]
    attempt = len(attempt_log)
    while True:
        attempt += 1
        ws = create_workspace(child_path(workspace_root, run_id, what="workspace root"), rc,
                              run_id=run_id, attempt=attempt, case_ref=case_ref, tools=tools,
                              sandbox=sb)
        started_at = now_iso()
        a0 = time.monotonic()
        seal_key: bytes | None = None
        hook = CaseHook()
        try:
            with (case_context(ws) if case_context is not None
                  else contextlib.nullcontext(hook)) as hook, \
                    host_tools(ws, replay=getattr(adapter, "name", None) == "replay",
                               argv=hook.tool_server) as seal_key:
                outcome = adapter.run_case(ws, timeout_s=limit, turn_timeout_s=turn_timeout_s)
        except Exception as exc:  # noqa: BLE001 - an adapter bug must not kill the run
            outcome = AgentOutcome(status="errored", error=f"adapter error: {exc!r}",
                                   agent_info=adapter.info())
        # Whatever is still running in the workspace now (a process dying from the group or
        # namespace kill, or one that escaped both where containment is `none`) is killed and
        # waited for, so nothing writes into the workspace while it is mirrored or removed.
        kill_processes_under(ws.path)
        finished_at = now_iso()
        gone = workspace_problem(ws)
        if gone is not None:  # the agent's own failure, never retried as infrastructure
            outcome.status = "timed_out" if outcome.status == "timed_out" else "crashed"
            outcome.infra_error = False
            outcome.error = gone + (f"; {outcome.error}" if outcome.error else "")
            outcome.final_text, outcome.transcript = "", []
        tampered = runner_dir_problem(ws) if gone is None else None
        if tampered is not None and tampered not in (outcome.error or ""):
            outcome.notes.append(tampered)
        attempt_log.append({"attempt": attempt, "workspace_id": ws.workspace_id,
                            "status": outcome.status, "infra_error": outcome.infra_error,
                            "error": outcome.error, "started_at": started_at,
                            "finished_at": finished_at,
                            "duration_s": round(time.monotonic() - a0, 3)})
        if outcome.infra_error and attempt <= max_infra_retries:
            if not keep_workspace:
                remove_tree(ws.path)
            continue
        break

    finalize_workspace(ws, outcome)
    quiet = no_tool_calls_note(ws, outcome)
    if quiet:
        outcome.notes.append(quiet)
    manifest = {
        "run_id": run_id,
        "case_id": rc.case_id,
        "case_ref": case_ref,
        "case_ids_exposed": expose_case_ids,
        "tools": ws.tools,
        "sandbox": sb.describe(),
        **({"sandbox_binds": [str(b) for b in sb.binds]} if sb.binds else {}),
        **({"agent_home": sb.home} if sb.home else {}),
        "workspace_id": ws.workspace_id,
        "agent": outcome.agent_info or adapter.info(),
        "cluster_id": rc.cluster_id,
        "time_window": {"start": rc.window_start, "end": rc.window_end},
        "status": outcome.status,
        "started_at": started_at,
        "finished_at": finished_at,
        "duration_s": attempt_log[-1]["duration_s"],
        "attempts": attempt_log,
        "error": outcome.error,
        "usage": json_safe({**outcome.usage, **final_usage(outcome.usage)}),
        **(manifest_extra or {}),
        **hook.manifest,
    }
    audit_dir = child_path(audit_root, run_id, rc.case_id, what="audit root")
    with tempfile.TemporaryDirectory(prefix="rcaeval-gone-") as empty:
        # a deleted or replaced workspace: its audit dir holds the manifest only (nothing
        # is read through the agent's symlink)
        source = ws.path if workspace_problem(ws) is None else Path(empty)
        written = mirror_audit(source, audit_dir, manifest, max_file_bytes=max_file_bytes,
                               overwrite=overwrite_audit,
                               runner_files={RUNNER_SEAL: key_doc(seal_key)} if seal_key
                               else None)
    if not keep_workspace:
        remove_tree(ws.path)
    return CaseExecution(
        run_id=run_id,
        case_id=rc.case_id,
        status=outcome.status,
        attempts=attempt,
        audit_dir=audit_dir,
        usage=final_usage(outcome.usage),
        notes=[*outcome.notes, *(["usage recorded as NULL: "
                                  + "; ".join(outcome.usage["notes"])]
                                 if outcome.usage.get("notes") else [])],
        duration_s=round(time.monotonic() - t0, 3),
        error=outcome.error,
        workspace_id=ws.workspace_id,
        started_at=attempt_log[0]["started_at"],
        finished_at=finished_at,
        final_text=outcome.final_text,
        case_ref=case_ref,
        attempt_log=attempt_log,
        manifest=written,
    )
