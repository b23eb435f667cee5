"""A deterministic example RCA agent speaking the Agent Client Protocol over stdio (no LLM).

Run it as ``python -m rcaeval.runner.example_agent`` (``--agent 'acp:python -m
rcaeval.runner.example_agent'``). It is the template for plugging a real agent into rcaeval:
on the first prompt of a session it investigates the ``incident/`` data in the session's cwd
(see :mod:`rcaeval.runner._example_investigation`), reporting each step as a ``tool_call`` /
``tool_call_update``, writes ``analysis_patch.json`` through the client's ``fs/write_text_file``
when the client offers it, streams its Markdown diagnosis as ``agent_message_chunk`` updates,
and reports usage (``usage_update`` and ``PromptResponse.usage``). Follow-up prompts of the
same session get a short answer naming the key evidence ids.
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
    TextContentBlock,
    Usage,
    UsageUpdate,
)

from rcaeval import __version__
from rcaeval.runner._example_diagnosis import render_followup
from rcaeval.runner._example_investigation import Investigation

log = logging.getLogger("rcaeval.example_agent")
CONTEXT_SIZE = 200_000


def estimate_tokens(text: str) -> int:
    """A deterministic stand-in for a tokenizer: about four characters per token."""
    return max(1, len(text) // 4)


@dataclass
class _Session:
    cwd: Path
    investigation: Investigation | None = None
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
        self._sessions[sid] = _Session(cwd=Path(cwd))
        return NewSessionResponse(session_id=sid)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        if session_id in self._sessions:
            self._sessions[session_id].cancelled = True

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        sess = self._sessions[session_id]
        sess.turns += 1
        sess.cancelled = False
        question = "".join(b.text for b in prompt if isinstance(b, TextContentBlock))
        if sess.investigation is None:
            inv = sess.investigation = Investigation(sess.cwd, dict(os.environ))
            for step_id, title, kind, fn in inv.steps():
                if sess.cancelled:
                    return PromptResponse(stop_reason="cancelled")
                call_id = f"call-{sess.turns}-{step_id}"
                await self._update(session_id, start_tool_call(
                    call_id, title, kind=kind, status="in_progress"))
                try:
                    if step_id == "report":
                        await self._write_report(session_id, inv)
                    else:
                        fn()
                except Exception as exc:  # noqa: BLE001 - reported to the client, then re-raised
                    await self._update(session_id, update_tool_call(
                        call_id, status="failed", raw_output={"error": repr(exc)}))
                    raise
                await self._update(session_id, update_tool_call(call_id, status="completed"))
            answer = inv.answer()
        else:
            assert sess.investigation.diag is not None
            answer = render_followup(sess.investigation.diag, sess.turns, question)
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

    async def _write_report(self, session_id: str, inv: Investigation) -> None:
        inv.write_report()
        text = inv.patch_text()
        if self._can_write:
            await self._conn.write_text_file(
                session_id=session_id, path=str(inv.root / "analysis_patch.json"), content=text)
        else:
            (inv.root / "analysis_patch.json").write_text(text)

    async def _update(self, session_id: str, update: Any) -> None:
        await self._conn.session_update(session_id=session_id, update=update)


def main() -> None:
    logging.basicConfig(stream=sys.stderr, level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s %(message)s")
    asyncio.run(run_agent(ExampleAgent()))


if __name__ == "__main__":
    main()
