"""A deterministic example RCA agent speaking the Agent Client Protocol over stdio (no LLM).

Run it as ``--agent 'acp:{python} -m rcaeval.examples.example_agent'``. It is the template for
plugging a real agent into rcaeval: on the first prompt of a session it connects to the
incident tools the client handed it in ``session/new``'s ``mcpServers`` (the official ``mcp``
SDK's client) and investigates through them (:mod:`rcaeval.examples._mcp`: ticket,
topology, guardrails, alerts, logs, metrics, slow queries, events, then ``submit_report``),
reporting each step as a ``tool_call`` / ``tool_call_update``. The tool server records the
bundle. Without tools (``tools: files``) it reads ``incident/`` and writes the bundle with
``BundleWriter`` (:mod:`rcaeval.examples.example_command_agent`). It writes its
investigation notes through the client's ``fs/write_text_file`` when the client offers it,
streams its Markdown diagnosis as ``agent_message_chunk`` updates, and reports usage
(``usage_update`` and ``PromptResponse.usage``). Follow-up prompts of the same session name
the key evidence ids.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp import (
    PROTOCOL_VERSION,
    InitializeResponse,
    NewSessionResponse,
    PromptResponse,
    run_agent,
    start_tool_call,
    update_agent_message_text,
    update_tool_call,
)
from acp.schema import (
    AgentCapabilities,
    ClientCapabilities,
    Cost,
    Implementation,
    McpServerStdio,
    TextContentBlock,
    Usage,
    UsageUpdate,
)

from rcaeval import __version__
from rcaeval.examples._diagnosis import Diagnosis, render_answer, render_followup
from rcaeval.examples._mcp import investigate
from rcaeval.examples.example_command_agent import investigate as investigate_files
from rcaeval.tools import client_caller

log = logging.getLogger("rcaeval.examples.example_agent")


class _Cancelled(Exception):
    pass
CONTEXT_SIZE = 200_000
SKIP_ENV = "RCAEVAL_EXAMPLE_SKIP"
"""Comma-separated channels (logs, metrics, queries, events, alerts) the example leaves out:
how the tests model a shallow agent."""


def estimate_tokens(text: str) -> int:
    """A deterministic stand-in for a tokenizer: about four characters per token."""
    return max(1, len(text) // 4)


@dataclass
class _Session:
    cwd: Path
    mcp_servers: list[Any]
    diag: Diagnosis | None = None
    turns: int = 0
    cancelled: bool = False
    input_tokens: int = 0
    output_tokens: int = 0


class ExampleAgent:
    """The ACP ``Agent`` side: initialize, session/new, session/prompt, session/cancel."""

    def __init__(self) -> None:
        self._conn: Any = None
        self._sessions: dict[str, _Session] = {}
        self._can_write = False

    def on_connect(self, conn: Any) -> None:
        self._conn = conn

    async def initialize(
        self, protocol_version: int, client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None, **kwargs: Any,
    ) -> InitializeResponse:
        fs = client_capabilities.fs if client_capabilities else None
        self._can_write = bool(fs and fs.write_text_file)
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION, agent_capabilities=AgentCapabilities(),
            agent_info=Implementation(name="rcaeval-example-agent", version=__version__))

    async def new_session(self, cwd: str, mcp_servers: Any = None, **kwargs: Any
                          ) -> NewSessionResponse:
        sid = f"sess-{len(self._sessions) + 1}"
        self._sessions[sid] = _Session(cwd=Path(cwd), mcp_servers=list(mcp_servers or []))
        return NewSessionResponse(session_id=sid)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        if session_id in self._sessions:
            self._sessions[session_id].cancelled = True

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        sess = self._sessions[session_id]
        sess.turns += 1
        sess.cancelled = False
        question = "".join(b.text for b in prompt if isinstance(b, TextContentBlock))
        if sess.diag is None:
            steps: list[str] = []
            try:
                sess.diag = await self._investigate(session_id, sess, steps)
            except _Cancelled:
                return PromptResponse(stop_reason="cancelled")
            await self._write_notes(session_id, sess, steps)
            answer = render_answer(sess.diag)
        else:
            answer = render_followup(sess.diag, sess.turns, question)
        paras = answer.split("\n\n")
        for i, para in enumerate(paras):
            chunk = para if i == len(paras) - 1 else para + "\n\n"
            if chunk:
                await self._update(session_id, update_agent_message_text(chunk))
        turn_in, turn_out = estimate_tokens(question), estimate_tokens(answer)
        sess.input_tokens += turn_in
        sess.output_tokens += turn_out
        await self._update(session_id, UsageUpdate(
            session_update="usage_update", used=sess.input_tokens + sess.output_tokens,
            size=CONTEXT_SIZE, cost=Cost(amount=0.0, currency="USD")))
        return PromptResponse(
            stop_reason="end_turn",
            usage=Usage(total_tokens=turn_in + turn_out, input_tokens=turn_in,
                        output_tokens=turn_out),
            field_meta={"rcaeval_example": {"tokens_estimated": True}})

    async def _investigate(self, session_id: str, sess: _Session, steps: list[str]
                           ) -> Diagnosis:
        """Through the client's MCP incident tools when it gave us a stdio server, else from
        the incident/ files. Each step is reported as a tool call."""
        state = {"call": None}

        async def on_step(step_id: str, title: str) -> None:
            await self._finish(session_id, state)
            if sess.cancelled:
                raise _Cancelled
            call_id = f"call-{sess.turns}-{step_id}"
            steps.append(title)
            await self._update(session_id, start_tool_call(
                call_id, title, kind="fetch", status="in_progress"))
            state["call"] = call_id

        stdio = [m for m in sess.mcp_servers if isinstance(m, McpServerStdio)]
        try:
            if stdio:
                from mcp import Client, StdioServerParameters

                srv = stdio[0]
                params = StdioServerParameters(
                    command=srv.command, args=list(srv.args), cwd=str(sess.cwd),
                    env={e.name: e.value for e in srv.env})
                skip = [c for c in os.environ.get(SKIP_ENV, "").split(",") if c]
                async with Client(params) as client:
                    diag = await investigate(client_caller(client), skip=skip, on_step=on_step)
            else:
                await on_step("files", "Read incident/ files and write the bundle")
                diag = investigate_files(sess.cwd)
        except Exception as exc:  # noqa: BLE001 - reported to the client, then re-raised
            if state["call"]:
                await self._update(session_id, update_tool_call(
                    state["call"], status="failed", raw_output={"error": repr(exc)}))
            raise
        await self._finish(session_id, state)
        return diag

    async def _finish(self, session_id: str, state: dict[str, Any]) -> None:
        if state["call"]:
            await self._update(session_id, update_tool_call(state["call"], status="completed"))
            state["call"] = None

    async def _write_notes(self, session_id: str, sess: _Session, steps: list[str]) -> None:
        """Investigation notes, through the client's ``fs/write_text_file`` when offered."""
        text = "# Investigation notes\n\n" + "".join(f"- {s}\n" for s in steps)
        path = sess.cwd / "investigation_notes.md"
        if self._can_write:
            await self._conn.write_text_file(session_id=session_id, path=str(path),
                                             content=text)
        else:
            path.write_text(text)

    async def _update(self, session_id: str, update: Any) -> None:
        await self._conn.session_update(session_id=session_id, update=update)


def main() -> None:
    logging.basicConfig(stream=sys.stderr, level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s %(message)s")
    asyncio.run(run_agent(ExampleAgent()))


if __name__ == "__main__":
    main()
