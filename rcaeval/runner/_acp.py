"""``acp:<cmdline>``: drive an Agent Client Protocol agent over stdio.

The runner spawns the agent itself rather than through ``acp.spawn_agent_process`` because
that helper (0.12) pipes stderr without draining it, trims the child's environment to a
fixed list, and on exit stops only the direct child. Here the agent starts in its own process
group with the documented environment, stderr goes to ``.rcaeval/agent.stderr``, and the
whole group is killed at the end. The library has no per-request timeout: every request is
bounded with ``asyncio.wait_for`` and a timed-out prompt turn is followed by
``session/cancel``. Follow-ups are further prompts of the same session.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import threading
from collections.abc import Awaitable, Mapping
from typing import Any, TypeVar

from acp import PROTOCOL_VERSION, RequestError, connect_to_agent, text_block
from acp.schema import ClientCapabilities, FileSystemCapabilities, Implementation

from rcaeval import __version__
from rcaeval.runner._acp_client import RawLog, WorkspaceClient
from rcaeval.runner._agents import AgentOutcome, Turn, empty_usage
from rcaeval.runner._command import agent_wrote_files, stderr_digest
from rcaeval.runner._mcp import acp_mcp_servers
from rcaeval.runner._proc import kill_group, spawn_async
from rcaeval.runner._sandbox import sandbox_wrapper
from rcaeval.runner._workspace import RUNNER_DIR, Workspace, agent_env

STDIO_LIMIT = 50 * 1024 * 1024
T = TypeVar("T")


class _HandshakeError(Exception):
    pass


_LOG = logging.getLogger("rcaeval.acp")


class _LibraryErrors(logging.Filter):
    """The ACP library logs a full traceback (on the root logger) for every line an agent
    sends that is not JSON-RPC: a garbage-printing agent would flood the runner's stderr.
    While a case's session runs, its thread's library records are counted instead, and the
    case gets one line (and a note) at the end."""

    def __init__(self) -> None:
        super().__init__()
        self.active: dict[int, list[str]] = {}
        self.lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        seen = self.active.get(record.thread or 0)
        if seen is None or f"{os.sep}acp{os.sep}" not in record.pathname:
            return True
        if len(seen) < 1000:
            seen.append(record.getMessage())
        return False

    def watch(self) -> list[str]:
        with self.lock:
            if self not in logging.getLogger().filters:
                logging.getLogger().addFilter(self)
            seen: list[str] = []
            self.active[threading.get_ident()] = seen
            return seen

    def unwatch(self) -> None:
        with self.lock:
            self.active.pop(threading.get_ident(), None)


_GATE = _LibraryErrors()


class AcpAgent:
    name = "acp"

    def __init__(
        self,
        spec: str,
        argv: list[str],
        *,
        env: Mapping[str, str | None] | None = None,
        handshake_timeout_s: float = 30.0,
        cancel_grace_s: float = 2.0,
    ) -> None:
        self.spec = spec
        self.argv = list(argv)
        self.env = dict(env or {})
        self.handshake_timeout_s = handshake_timeout_s
        self.cancel_grace_s = cancel_grace_s

    def info(self) -> dict[str, Any]:
        return {"name": self.name, "spec": self.spec, "command": self.argv,
                "protocol_version": PROTOCOL_VERSION}

    def run_case(
        self, workspace: Workspace, *, timeout_s: float, turn_timeout_s: float | None = None
    ) -> AgentOutcome:
        coro_args = (workspace, timeout_s, turn_timeout_s)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self._run(*coro_args))
        # Called from inside an event loop (a notebook): run on a private loop in a thread.
        box: dict[str, Any] = {}

        def target() -> None:
            try:
                box["v"] = asyncio.run(self._run(*coro_args))
            except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
                box["e"] = exc

        th = threading.Thread(target=target, name="rcaeval-acp")
        th.start()
        th.join()
        if "e" in box:
            raise box["e"]
        return box["v"]

    async def _run(
        self, ws: Workspace, timeout_s: float, turn_timeout_s: float | None
    ) -> AgentOutcome:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        outcome = AgentOutcome(status="completed", usage=empty_usage(), agent_info=self.info())
        seen = _GATE.watch()
        try:
            return await self._run_watched(ws, outcome, deadline, turn_timeout_s)
        finally:
            _GATE.unwatch()
            if seen:
                first = seen[0][:200]
                note = (f"the ACP library rejected {len(seen)} message(s) from the agent "
                        f"(first: {first}); raw traffic in {RUNNER_DIR}/acp.jsonl")
                outcome.notes.append(note)
                _LOG.warning("case %s (attempt %d, %s): %s", ws.case.case_id, ws.attempt,
                             ws.workspace_id, note)

    async def _run_watched(
        self, ws: Workspace, outcome: AgentOutcome, deadline: float,
        turn_timeout_s: float | None,
    ) -> AgentOutcome:
        client = WorkspaceClient(ws, outcome)
        raw = RawLog(ws.runner_dir / "acp.jsonl", client)
        stderr_path = ws.runner_dir / "agent.stderr"
        with open(stderr_path, "ab") as stderr_f:
            env = agent_env(ws, self.env)
            try:
                proc = await spawn_async(
                    self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                    stderr=stderr_f, cwd=ws.path, env=env, limit=STDIO_LIMIT,
                    wrapper=sandbox_wrapper(ws, self.argv, env))
            except OSError as exc:
                raw.close()
                outcome.status = "errored"
                outcome.error = f"cannot start {self.argv[0]!r}: {exc}"
                outcome.infra_error = True
                return outcome
            assert proc.stdin is not None and proc.stdout is not None
            conn = connect_to_agent(client, proc.stdin, proc.stdout, observers=[raw])
            try:
                await self._session(conn, ws, client, raw, outcome, deadline, turn_timeout_s)
            except _HandshakeError as exc:
                await _wait_exit(proc, 0.2)
                crashed = proc.returncode is not None
                key, tail = stderr_digest(stderr_path)
                # no session, no prompt: nothing the agent did can be judged (docs/running.md)
                outcome.status = "errored"
                outcome.error = f"ACP handshake failed: {exc}" + (
                    f" (exit code {proc.returncode})" if crashed else "") + (
                    f": {key}" if key else "") + (f"; stderr tail: {tail}" if tail else "")
                outcome.infra_error = True
            finally:
                with contextlib.suppress(Exception):
                    proc.stdin.close()
                if outcome.status == "completed":
                    await _wait_exit(proc, 1.0)  # stdin closed: let a clean agent exit itself
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(conn.close(), 2.0)
                kill_group(proc.pid)
                await proc.wait()
                raw.close()
        if outcome.final_text == "" and client.chunks.get(1):
            outcome.final_text = client.turn_text(1)
        return outcome

    async def _session(
        self, conn: Any, ws: Workspace, client: WorkspaceClient, raw: RawLog,
        outcome: AgentOutcome, deadline: float, turn_timeout_s: float | None,
    ) -> None:
        loop = asyncio.get_running_loop()

        async def handshake(aw: Awaitable[T], what: str) -> T:
            limit = min(self.handshake_timeout_s, max(deadline - loop.time(), 0.01))
            try:
                return await asyncio.wait_for(aw, limit)
            except TimeoutError as exc:
                raise _HandshakeError(f"{what} timed out after {limit:.3g}s") from exc
            except (ConnectionError, RequestError, ValueError) as exc:
                raise _HandshakeError(f"{what} failed: {exc!r}") from exc

        init = await handshake(conn.initialize(
            protocol_version=PROTOCOL_VERSION,
            client_capabilities=ClientCapabilities(
                fs=FileSystemCapabilities(read_text_file=True, write_text_file=True),
                terminal=False),
            client_info=Implementation(name="rcaeval", version=__version__)), "initialize")
        if init.agent_info is not None:
            outcome.agent_info["agent_info"] = init.agent_info.model_dump(
                mode="json", by_alias=True, exclude_none=True)
        outcome.agent_info["agent_protocol_version"] = init.protocol_version
        session = await handshake(conn.new_session(cwd=str(ws.path),
                                                   mcp_servers=acp_mcp_servers(ws)),
                                  "session/new")
        sid = session.session_id
        outcome.agent_info["session_id"] = sid

        for n, text in enumerate(ws.case.turns(), start=1):
            remaining = deadline - loop.time()
            if remaining <= 0:
                outcome.status = "timed_out"
                outcome.error = f"case timeout reached before turn {n}"
                return
            limit = min(remaining, turn_timeout_s if turn_timeout_s else math.inf)
            client.begin_turn(n)
            outcome.transcript.append(Turn(n, "user", text))
            started = loop.time()
            responses_before = raw.prompt_responses
            try:
                resp = await asyncio.wait_for(
                    conn.prompt(session_id=sid, prompt=[text_block(text)]), limit)
            except TimeoutError:
                outcome.status = "timed_out"
                outcome.error = f"turn {n} exceeded its timeout ({limit:.3g}s); cancel sent"
                client.event("session.cancel_sent", status="timed_out")
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(conn.cancel(session_id=sid), 1.0)
                await _wait_for(raw, responses_before, self.cancel_grace_s)
                self._record_answer(outcome, client, n, started, "timed_out")
                return
            except (ConnectionError, RequestError, ValueError) as exc:
                outcome.status = "crashed"
                outcome.error = f"turn {n}: {exc!r}"
                answer = self._record_answer(outcome, client, n, started, "crashed")
                outcome.infra_error = (n == 1 and not answer and not agent_wrote_files(ws)
                                       and client.updates_seen == 0)
                return
            self._record_answer(outcome, client, n, started, "completed",
                                stop_reason=resp.stop_reason)

    @staticmethod
    def _record_answer(
        outcome: AgentOutcome, client: WorkspaceClient, n: int, started: float, status: str,
        stop_reason: str | None = None,
    ) -> str:
        answer = client.turn_text(n)
        extra: dict[str, Any] = {"status": status,
                                 "duration_s": round(asyncio.get_running_loop().time()
                                                     - started, 3)}
        if stop_reason is not None:
            extra["stop_reason"] = stop_reason
        outcome.transcript.append(Turn(n, "assistant", answer, extra))
        if n == 1:
            outcome.final_text = answer
        return answer


async def _wait_exit(proc: asyncio.subprocess.Process, timeout: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(proc.wait(), timeout)


async def _wait_for(raw: RawLog, before: int, timeout: float) -> None:
    """Wait up to ``timeout`` for the agent to answer the cancelled prompt."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while raw.prompt_responses <= before and loop.time() < end:
        await asyncio.sleep(0.02)
