"""An ACP agent that reproduces the traps of agent-client-protocol 0.12 (test helper).

Usage: python acp_trap_agent.py <mode>
  ok              answer "ok <prompt>" for every turn
  stderr_flood    write 3 MiB to stderr during the prompt, then answer
  hang            start a grandchild (sleep), record its pid, never answer the prompt
  unknown_update  send a session/update of a kind the library does not know, then answer
  env             answer with the environment as JSON
  fs              try fs reads/writes inside and outside the workspace, answer the results
  die_on_prompt   exit(3) as soon as a prompt arrives
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from acp import (
    PROTOCOL_VERSION,
    InitializeResponse,
    NewSessionResponse,
    PromptResponse,
    RequestError,
    run_agent,
    update_agent_message_text,
)
from acp.schema import TextContentBlock

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"


class TrapAgent:
    def __init__(self) -> None:
        self.conn: Any = None
        self.cwd = Path(".")

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(protocol_version=PROTOCOL_VERSION)

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
        self.cwd = Path(cwd)
        return NewSessionResponse(session_id="s1")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        (self.cwd / "cancel_received").write_text("yes")

    async def say(self, sid: str, text: str) -> None:
        await self.conn.session_update(session_id=sid, update=update_agent_message_text(text))

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        text = "".join(b.text for b in prompt if isinstance(b, TextContentBlock))
        if MODE == "stderr_flood":
            line = ("x" * 1023 + "\n").encode()
            for _ in range(3 * 1024):
                sys.stderr.buffer.write(line)
            sys.stderr.buffer.flush()
        elif MODE == "hang":
            subprocess.Popen(["setsid", "sleep", "1000"])
            await asyncio.sleep(1000)
        elif MODE == "unknown_update":
            await self.conn._conn.send_notification("session/update", {
                "sessionId": session_id,
                "update": {"sessionUpdate": "weird_future_kind", "payload": {"x": 1}}})
        elif MODE == "env":
            await self.say(session_id, json.dumps(dict(os.environ)))
            return PromptResponse(stop_reason="end_turn")
        elif MODE == "fs":
            results = {}
            for name, path in [("inside", str(self.cwd / "incident" / "note.txt")),
                               ("relative_escape", str(self.cwd / ".." / "outside.txt")),
                               ("absolute_outside", "/etc/hostname")]:
                try:
                    resp = await self.conn.read_text_file(session_id=session_id, path=path)
                    results[f"read_{name}"] = resp.content
                except RequestError as exc:
                    results[f"read_{name}"] = f"denied:{exc.code}"
            for name, path in [("inside", str(self.cwd / "evidences" / "w.txt")),
                               ("outside", str(self.cwd.parent / "escaped.txt")),
                               ("runner_dir", str(self.cwd / ".rcaeval" / "acp.jsonl"))]:
                try:
                    await self.conn.write_text_file(session_id=session_id, path=path,
                                                    content="written")
                    results[f"write_{name}"] = "ok"
                except RequestError as exc:
                    results[f"write_{name}"] = f"denied:{exc.code}"
            await self.say(session_id, json.dumps(results))
            return PromptResponse(stop_reason="end_turn")
        elif MODE == "die_on_prompt":
            os._exit(3)
        await self.say(session_id, f"ok {text}")
        return PromptResponse(stop_reason="end_turn")


if __name__ == "__main__":
    asyncio.run(run_agent(TrapAgent()))
