"""The client side the runner plays for an ACP agent: a workspace-confined file system,
permission answers, session-update collection, and the raw JSON-RPC log.

Requests the agent makes are answered for paths inside the workspace only (``realpath``
must stay under the workspace's realpath); ``.rcaeval/`` (runner-owned) is read-only. Tool
calls and their status changes become telemetry events. Every JSON-RPC message in both
directions is appended to ``.rcaeval/acp.jsonl`` *before* the library validates it, so
session updates of a kind the library does not know (which it drops after a validation
error) are still in the audit.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO, Any

import orjson
from acp import RequestError
from acp.connection import StreamDirection, StreamEvent
from acp.schema import (
    AgentMessageChunk,
    AllowedOutcome,
    DeniedOutcome,
    PermissionOption,
    ReadTextFileResponse,
    RequestPermissionResponse,
    TextContentBlock,
    ToolCallProgress,
    ToolCallStart,
    ToolCallUpdate,
    WriteTextFileResponse,
)

from rcaeval._usage import json_safe
from rcaeval.runner._agents import MAX_ANSWER_BYTES, AgentOutcome, add_usage, now_iso, set_usage
from rcaeval.runner._workspace import RUNNER_DIR, Workspace

MAX_READ_BYTES = 32 * 1024 * 1024

KNOWN_UPDATE_KINDS = frozenset({
    "user_message_chunk", "agent_message_chunk", "agent_thought_chunk", "tool_call",
    "tool_call_update", "plan", "plan_update", "plan_removed", "available_commands_update",
    "current_mode_update", "config_option_update", "session_info_update", "usage_update",
})

_USAGE_MAP = {"inputTokens": "input_tokens", "outputTokens": "output_tokens",
              "cachedReadTokens": "cache_read_tokens", "cachedWriteTokens": "cache_write_tokens"}


class WorkspaceClient:
    """ACP ``Client`` confined to one workspace; collects the outcome as updates arrive."""

    def __init__(self, ws: Workspace, outcome: AgentOutcome) -> None:
        self.ws = ws
        self.root = Path(os.path.realpath(ws.path))
        self.outcome = outcome
        self.turn = 0
        self.chunks: dict[int, list[str]] = {}
        self.chunk_chars: dict[int, int] = {}
        self.truncated: set[int] = set()
        self.tool_titles: dict[str, str] = {}
        self.updates_seen = 0

    # -- turn bookkeeping ------------------------------------------------------------------
    def begin_turn(self, n: int) -> None:
        self.turn = n
        self.chunks.setdefault(n, [])

    def _add_chunk(self, text: str) -> None:
        """Keep at most MAX_ANSWER_BYTES (as characters) of a turn's answer; note the rest."""
        kept = self.chunk_chars.get(self.turn, 0)
        room = MAX_ANSWER_BYTES - kept
        self.chunk_chars[self.turn] = kept + len(text)
        if room > 0:
            self.chunks.setdefault(self.turn, []).append(text[:room])
        if len(text) > room and self.turn not in self.truncated:
            self.truncated.add(self.turn)
            self.outcome.notes.append(f"turn {self.turn} answer truncated: the agent sent more "
                                      f"than {MAX_ANSWER_BYTES} characters, the rest was dropped")

    def turn_text(self, n: int) -> str:
        return "".join(self.chunks.get(n, []))

    def event(self, event: str, **fields: Any) -> None:
        rec = {"ts": now_iso(), "event": event, "source": "rcaeval.acp", "turn": self.turn}
        rec.update({k: v for k, v in fields.items() if v is not None})
        self.outcome.telemetry.append(rec)

    # -- paths -----------------------------------------------------------------------------
    def _confine(self, path: str, *, write: bool) -> Path:
        p = Path(path)
        if not p.is_absolute():
            p = self.root / p
        real = Path(os.path.realpath(p))
        if not real.is_relative_to(self.root):
            self.event("tool.error", tool="fs/write_text_file" if write else "fs/read_text_file",
                       status="denied", detail=f"outside the workspace: {path}")
            raise RequestError.invalid_params(
                {"path": path, "reason": "outside the workspace; access denied"})
        if write and real.is_relative_to(self.root / RUNNER_DIR):
            self.event("tool.error", tool="fs/write_text_file", status="denied",
                       detail=f"runner-owned path: {path}")
            raise RequestError.invalid_params({"path": path, "reason": "runner-owned path"})
        return real

    # -- Client protocol -------------------------------------------------------------------
    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None,
        **kwargs: Any,
    ) -> ReadTextFileResponse:
        real = self._confine(path, write=False)
        if not real.is_file():
            raise RequestError.resource_not_found(path)
        if real.stat().st_size > MAX_READ_BYTES:
            raise RequestError.invalid_params({"path": path, "reason": "file too large"})
        text = real.read_bytes().decode("utf-8", "replace")
        if line is not None or limit is not None:
            lines = text.splitlines(keepends=True)
            start = max((line or 1) - 1, 0)
            end = start + limit if limit is not None else None
            text = "".join(lines[start:end])
        return ReadTextFileResponse(content=text)

    async def write_text_file(
        self, session_id: str, path: str, content: str, **kwargs: Any
    ) -> WriteTextFileResponse:
        real = self._confine(path, write=True)
        real.parent.mkdir(parents=True, exist_ok=True)
        # the parent may have been created through a symlinked component: check again
        self._confine(str(real), write=True)
        real.write_text(content, encoding="utf-8")
        return WriteTextFileResponse()

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption],
        **kwargs: Any,
    ) -> RequestPermissionResponse:
        inside = True
        for loc in tool_call.locations or []:
            real = Path(os.path.realpath(self.root / loc.path))
            inside = inside and real.is_relative_to(self.root)
        wanted = ("allow_once", "allow_always") if inside else ("reject_once", "reject_always")
        self.event("permission.requested", tool=tool_call.title or tool_call.tool_call_id,
                   status="allowed" if inside else "rejected")
        for kind in wanted:
            for opt in options:
                if opt.kind == kind:
                    return RequestPermissionResponse(
                        outcome=AllowedOutcome(outcome="selected", option_id=opt.option_id))
        return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        # no await before the bookkeeping: handlers start in arrival order, so chunks stay
        # in order.
        self.updates_seen += 1
        if isinstance(update, AgentMessageChunk):
            if isinstance(update.content, TextContentBlock):
                self._add_chunk(update.content.text)
        elif isinstance(update, ToolCallStart):
            self.tool_titles[update.tool_call_id] = update.title
            self.event("tool.call", tool=update.title, status=update.status or "pending",
                       kind=update.kind, tool_call_id=update.tool_call_id)
        elif isinstance(update, ToolCallProgress) and update.status in ("completed", "failed"):
            title = update.title or self.tool_titles.get(update.tool_call_id)
            self.event("tool.error" if update.status == "failed" else "tool.call", tool=title,
                       status=update.status, kind=update.kind, tool_call_id=update.tool_call_id)

    async def create_terminal(self, session_id: str, command: str, **kwargs: Any) -> Any:
        raise RequestError.method_not_found("terminal/create")

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(f"_{method}")

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None


class RawLog:
    """Connection observer: appends every JSON-RPC message to ``.rcaeval/acp.jsonl`` and
    records raw usage reports and unknown session-update kinds."""

    def __init__(self, path: Path, client: WorkspaceClient) -> None:
        self._fh: IO[bytes] = open(path, "ab")
        self.client = client
        self.prompt_responses = 0

    def __call__(self, event: StreamEvent) -> None:
        msg = event.message
        direction = "out" if event.direction == StreamDirection.OUTGOING else "in"
        if not self._fh.closed:
            self._fh.write(orjson.dumps({"ts": now_iso(), "dir": direction,
                                         "msg": json_safe(msg)},
                                        option=orjson.OPT_APPEND_NEWLINE,
                                        default=str))
            self._fh.flush()
        if direction == "in":
            self._inspect(msg)

    def _inspect(self, msg: dict[str, Any]) -> None:
        usage = self.client.outcome.usage
        turn = self.client.turn
        result = msg.get("result")
        if isinstance(result, dict) and "stopReason" in result:
            self.prompt_responses += 1
            if result.get("usage") is not None or result.get("_meta") is not None:
                usage["reported"].append({"source": "prompt_response", "turn": turn,
                                          "usage": result.get("usage"),
                                          "_meta": result.get("_meta")})
            raw_usage = result.get("usage")
            if isinstance(raw_usage, dict):
                for src, dst in _USAGE_MAP.items():
                    add_usage(usage, dst, raw_usage.get(src))
            return
        if msg.get("method") != "session/update":
            return
        params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
        update = params.get("update") if isinstance(params.get("update"), dict) else {}
        kind = update.get("sessionUpdate")
        if kind == "usage_update":
            usage["reported"].append({"source": "usage_update", "turn": turn, "raw": update})
            cost = update.get("cost")
            if isinstance(cost, dict) and cost.get("currency") == "USD":
                # cumulative session cost: the last one wins
                set_usage(usage, "cost_usd", cost.get("amount"))
        for meta in (params.get("_meta"), update.get("_meta")):
            if isinstance(meta, dict) and _looks_like_usage(meta):
                usage["reported"].append({"source": "_meta", "turn": turn, "kind": kind,
                                          "raw": meta})
        if kind not in KNOWN_UPDATE_KINDS:
            self.client.event("acp.unknown_update", status="dropped_by_library",
                              detail=f"session update kind {kind!r} kept in {RUNNER_DIR}/acp.jsonl")

    def close(self) -> None:
        self._fh.close()


def _looks_like_usage(meta: dict[str, Any]) -> bool:
    text = orjson.dumps(meta).decode().lower()
    return any(word in text for word in ("token", "usage", "cost"))
