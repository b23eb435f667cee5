"""A scripted model server on 127.0.0.1 for the real-harness tests: it speaks the OpenAI
chat-completions API (``POST /v1/chat/completions``, streamed as SSE or not), the Anthropic
Messages API (``POST /v1/messages``, streamed or not) and the Gemini API
(``…/models/MODEL:generateContent`` / ``:streamGenerateContent``, scripted_gemini_kit),
and plays an SRE *script* instead of a model.

The script is the example agent's investigation (:func:`rcaeval.examples._mcp.investigate`):
each tool call it makes becomes the model's tool call, answered by the harness with the MCP
tool's result in its next request. The server keeps no conversation state: every request
replays the script from the start against the tool results in its message history, so a
harness that drops or re-orders history is seen at once (the replay mismatches and the
server answers 400, which fails the case). When the script has submitted its report, the
model's text answer is the rendered diagnosis; a later user message (a follow-up turn in the
same session) is answered with the follow-up text.

Scripts: ``thorough`` (every channel), ``lazy`` (skips the logs) and ``wrong`` (every
channel, then a wrong root cause with the real evidence). Usage is reported per response:
``len(request)//4`` input and ``len(output)//4`` output tokens (a deterministic stand-in).
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from rcaeval.examples._diagnosis import Diagnosis, render_answer, render_followup
from rcaeval.examples._mcp import investigate
from rcaeval.tools import ToolFailed

SCRIPTS = ("thorough", "lazy", "wrong")
WRONG_CAUSE = ("The root cause is a DNS outage: the clients could not resolve the PD "
               "endpoints, so every request timed out.")
TOOLS = ("get_ticket", "get_topology", "get_guardrails", "get_component_health", "get_alerts",
         "search_logs", "list_metrics", "query_metrics", "get_slow_queries", "list_events",
         "get_evidence_summary", "submit_report")


_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.S)


def wrong_diagnosis(refs: list[dict[str, str]]) -> Diagnosis:
    """A confident wrong diagnosis that cites the real evidence ids."""
    return Diagnosis(
        kind="dns", root_cause=WRONG_CAUSE, key_refs=refs,
        evidence=[f"{r['id']}: clients timing out while resolving the PD endpoints"
                  for r in refs],
        ruled_out=["TiKV and PD themselves: no fault in their health checks."],
        actions=["Fix the cluster's DNS resolver and add a resolver cache on the clients."])


def wrong_report(args: dict[str, Any]) -> dict[str, Any]:
    """``submit_report`` arguments of the wrong script: the real refs, a wrong story."""
    refs = [r for f in args.get("findings", []) for r in f.get("refs", [])]
    diag = wrong_diagnosis(refs)
    return {**args, "root_cause": diag.root_cause,
            "findings": [{"claim": diag.root_cause, "refs": refs, "role": "key"}],
            "ruled_out": diag.ruled_out, "actions": diag.actions,
            "answer_markdown": render_answer(diag)}


class _NeedCall(Exception):
    def __init__(self, name: str, args: dict[str, Any]) -> None:
        super().__init__(name)
        self.tool, self.tool_args = name, args


class ReplayError(Exception):
    """The history does not match the script (the harness lost or changed a tool call)."""


@dataclass
class Step:
    """What the model does next: one tool call, or a final text."""

    tool: str | None = None
    args: dict[str, Any] = field(default_factory=dict)
    text: str = ""


@dataclass
class Conversation:
    """A request's history, normalised: ``calls`` [(id, name, args)], ``results``
    {id: (text, is_error)}, and ``after`` - the user texts after the last tool result,
    each with whether an assistant text answered it."""

    calls: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    results: dict[str, tuple[str, bool]] = field(default_factory=dict)
    tools: list[str] = field(default_factory=list)
    followups: int = 0
    last_user_text: str = ""


def _tool_name(offered: list[str], base: str) -> str:
    """The harness's name for MCP tool ``base`` (``rcaeval_get_ticket``,
    ``mcp__rcaeval__get_ticket``, ``get_ticket``)."""
    for name in offered:
        if name == base or name.endswith("_" + base):
            return name
    raise ReplayError(f"the harness offers no tool for {base!r} (offered: {offered[:40]})")


def _base(name: str) -> str:
    return next((t for t in TOOLS if name == t or name.endswith("_" + t)), name)


def next_step(script: str, conv: Conversation) -> Step:
    """Replay ``script`` against ``conv`` and return what comes next."""
    if script not in SCRIPTS:
        raise ReplayError(f"unknown script {script!r}")
    if not any(_base(t) == "get_ticket" for t in conv.tools) and conv.calls == []:
        # a side request of the harness (a title, a topic check, a sub-agent without the
        # incident tools): one short text
        return Step(text="Incident investigation")
    answered = [c for c in conv.calls if c[0] in conv.results]
    pos = 0

    async def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
        nonlocal pos
        if script == "wrong" and name == "submit_report":
            args = wrong_report(args)
        if pos >= len(answered):
            raise _NeedCall(name, args)
        _id, got, got_args = answered[pos]
        pos += 1
        if _base(got) != name:
            raise ReplayError(f"history call {pos} is {got!r}, the script called {name!r}")
        text, is_error = conv.results[_id]
        try:  # Claude Code appends <system-reminder> blocks to a tool result
            doc = json.JSONDecoder().raw_decode(_REMINDER.sub("", text).strip())[0]
        except ValueError:
            doc = None
        if isinstance(doc, dict) and doc.get("type") == "text" and isinstance(
                doc.get("text"), str):  # the Agents SDK hands over the MCP content item
            try:
                doc = json.loads(doc["text"])
            except ValueError:
                doc = None
        if is_error or not isinstance(doc, dict):
            raise ToolFailed(text)
        return doc

    skip = ("logs",) if script == "lazy" else ()
    try:
        diag = asyncio.run(investigate(call, skip=skip))
    except _NeedCall as need:
        return Step(tool=_tool_name(conv.tools, need.tool), args=need.tool_args)
    except ToolFailed as exc:
        return Step(text=f"I could not investigate: a tool failed ({str(exc)[:300]}).")
    if script == "wrong":
        diag = wrong_diagnosis(diag.key_refs)
    if conv.followups <= 1:
        return Step(text=render_answer(diag))
    return Step(text=render_followup(diag, conv.followups, conv.last_user_text))


# -- the two wire formats ---------------------------------------------------------------

def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(_text_of(c.get("text", c.get("content", ""))) if isinstance(c, dict)
                       else str(c) for c in content)
    return ""


def count_followups(conv: Conversation, turns: list[tuple[str, str]]) -> None:
    """``turns``: ("user"|"assistant", text) after the last tool result; a follow-up is a
    user text after an assistant text there. ``followups`` = 1 + answered user texts."""
    n, last = 1, ""
    seen_answer = False
    for role, text in turns:
        if role == "assistant" and text.strip():
            seen_answer = True
        elif role == "user" and text.strip() and seen_answer:
            n += 1
            last = text
            seen_answer = False
    conv.followups, conv.last_user_text = n, last


def openai_conversation(body: dict[str, Any]) -> Conversation:
    conv = Conversation(tools=[t.get("function", {}).get("name", "")
                               for t in body.get("tools") or []])
    tail: list[tuple[str, str]] = []
    for msg in body.get("messages") or []:
        role = msg.get("role")
        if role == "assistant":
            for tc in msg.get("tool_calls") or []:
                fn = tc.get("function") or {}
                try:
                    args = json.loads(fn.get("arguments") or "{}")
                except ValueError:
                    args = {}
                conv.calls.append((tc.get("id", ""), fn.get("name", ""), args))
            tail.append(("assistant", _text_of(msg.get("content"))))
        elif role == "tool":
            text = _text_of(msg.get("content"))
            conv.results[msg.get("tool_call_id", "")] = (text, text.startswith("Error"))
            tail = []
        elif role == "user":
            tail.append(("user", _text_of(msg.get("content"))))
    count_followups(conv, tail)
    return conv


def anthropic_conversation(body: dict[str, Any]) -> Conversation:
    conv = Conversation(tools=[t.get("name", "") for t in body.get("tools") or []])
    tail: list[tuple[str, str]] = []
    for msg in body.get("messages") or []:
        role, content = msg.get("role"), msg.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        texts = []
        for b in blocks:
            kind = b.get("type")
            if kind == "tool_use":
                conv.calls.append((b.get("id", ""), b.get("name", ""), b.get("input") or {}))
            elif kind == "tool_result":
                conv.results[b.get("tool_use_id", "")] = (_text_of(b.get("content")),
                                                          bool(b.get("is_error")))
                tail = []
            elif kind == "text" and not b.get("text", "").lstrip().startswith(
                    "<system-reminder>"):
                texts.append(b.get("text", ""))
        if texts:
            tail.append((role, "".join(texts)))
    count_followups(conv, tail)
    return conv


def tokens(text: str) -> int:
    return max(1, len(text) // 4)


def openai_events(step: Step, model: str, n_in: int, call_id: str) -> list[dict[str, Any]]:
    base = {"id": f"chatcmpl-{call_id}", "object": "chat.completion.chunk", "created": 0,
            "model": model}
    out_text = step.text or json.dumps(step.args)
    usage = {"prompt_tokens": n_in, "completion_tokens": tokens(out_text),
             "total_tokens": n_in + tokens(out_text)}
    if step.tool:
        # as OpenAI streams it: the call's id and name first, its arguments in a later delta
        deltas = [{"role": "assistant", "content": None, "tool_calls": [{
            "index": 0, "id": call_id, "type": "function",
            "function": {"name": step.tool, "arguments": ""}}]},
            {"tool_calls": [{"index": 0, "function": {"arguments": json.dumps(step.args)}}]}]
        finish = "tool_calls"
    else:
        deltas = [{"role": "assistant", "content": ""}, {"content": step.text}]
        finish = "stop"
    return [*({**base, "choices": [{"index": 0, "delta": d, "finish_reason": None}]}
              for d in deltas),
            {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
            {**base, "choices": [], "usage": usage}]


def openai_message(step: Step, model: str, n_in: int, call_id: str) -> dict[str, Any]:
    out_text = step.text or json.dumps(step.args)
    msg: dict[str, Any] = {"role": "assistant", "content": step.text or None}
    if step.tool:
        msg["tool_calls"] = [{"id": call_id, "type": "function", "function": {
            "name": step.tool, "arguments": json.dumps(step.args)}}]
    return {"id": f"chatcmpl-{call_id}", "object": "chat.completion", "created": 0,
            "model": model, "choices": [{"index": 0, "message": msg,
                                         "finish_reason": "tool_calls" if step.tool else "stop"}],
            "usage": {"prompt_tokens": n_in, "completion_tokens": tokens(out_text),
                      "total_tokens": n_in + tokens(out_text)}}


def anthropic_message(step: Step, model: str, n_in: int, call_id: str) -> dict[str, Any]:
    out_text = step.text or json.dumps(step.args)
    block = ({"type": "tool_use", "id": call_id, "name": step.tool, "input": step.args}
             if step.tool else {"type": "text", "text": step.text})
    return {"id": f"msg_{call_id}", "type": "message", "role": "assistant", "model": model,
            "content": [block], "stop_reason": "tool_use" if step.tool else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": n_in, "output_tokens": tokens(out_text),
                      "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}


def anthropic_events(step: Step, model: str, n_in: int, call_id: str
                     ) -> list[tuple[str, dict[str, Any]]]:
    msg = anthropic_message(step, model, n_in, call_id)
    start = {**msg, "content": [], "stop_reason": None,
             "usage": {**msg["usage"], "output_tokens": 1}}
    if step.tool:
        first = {"type": "tool_use", "id": call_id, "name": step.tool, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(step.args)}
    else:
        first = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": step.text}
    return [("message_start", {"type": "message_start", "message": start}),
            ("content_block_start", {"type": "content_block_start", "index": 0,
                                     "content_block": first}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                     "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta", "delta": {
                "stop_reason": msg["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": msg["usage"]["output_tokens"]}}),
            ("message_stop", {"type": "message_stop"})]


# -- the server ---------------------------------------------------------------------------

@dataclass
class ModelServer:
    """The running server: ``url`` (``http://127.0.0.1:PORT``), ``port``, and ``log``: one
    entry per model request (api, tool or "text", number of history tool results)."""

    script: str
    url: str = ""
    port: int = 0
    log: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _n: int = 0
    _dumped: int = 0

    def respond(self, path: str, body: dict[str, Any], raw_len: int
                ) -> tuple[int, str, Any]:
        import scripted_gemini_kit as gem

        gemini = gem.is_gemini(path)
        anthropic = not gemini and path.rstrip("/").endswith("/messages")
        if path.rstrip("/").endswith("/count_tokens"):
            return 200, "json", {"input_tokens": tokens("x" * raw_len)}
        if gemini and gem.method_of(path) == "countTokens":
            return 200, "json", {"totalTokens": tokens("x" * raw_len)}
        conv = (gem.gemini_conversation(body) if gemini else
                anthropic_conversation(body) if anthropic else openai_conversation(body))
        try:
            step = next_step(self.script, conv)
        except ReplayError as exc:
            with self._lock:
                self.errors.append(str(exc))
            return 400, "json", {"error": {"type": "invalid_request_error", "code": 400,
                                           "message": f"scripted model: {exc}"}}
        with self._lock:
            self._n += 1
            call_id = f"call_{self._n:04d}"
            self.log.append({"api": "gemini" if gemini else
                             "anthropic" if anthropic else "openai",
                             "step": step.tool or "text", "history": len(conv.results),
                             "followups": conv.followups, "tools": len(conv.tools)})
        model = str(body.get("model") or "scripted")
        n_in = tokens("x" * raw_len)
        stream = bool(body.get("stream"))
        if gemini:
            model = gem.model_of(path)
            if gem.method_of(path) == "streamGenerateContent":
                return 200, "sse-data", gem.gemini_events(step, model, n_in, call_id)
            return 200, "json", gem.gemini_response(step, model, n_in, call_id)
        if anthropic:
            if stream:
                return 200, "sse-anthropic", anthropic_events(step, model, n_in, call_id)
            return 200, "json", anthropic_message(step, model, n_in, call_id)
        if stream:
            return 200, "sse-openai", openai_events(step, model, n_in, call_id)
        return 200, "json", openai_message(step, model, n_in, call_id)


@contextmanager
def serve(script: str, dump_dir: str | None = None) -> Iterator[ModelServer]:
    """Run the server for ``script``; ``dump_dir`` keeps every request body (debugging)."""
    state = ModelServer(script)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802 - http.server API
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {}
            if dump_dir:
                with state._lock:
                    state._dumped += 1
                    n = state._dumped
                with open(f"{dump_dir}/req-{n:04d}.json", "wb") as fh:
                    fh.write(raw)
            code, kind, payload = state.respond(self.path.split("?")[0], body, len(raw))
            if kind == "json":
                data = json.dumps(payload).encode()
                ctype = "application/json"
            else:
                if kind == "sse-data":  # Gemini: data lines only, no [DONE]
                    parts = [f"data: {json.dumps(e)}\r\n\r\n" for e in payload]
                elif kind == "sse-openai":
                    parts = [f"data: {json.dumps(e)}\n\n" for e in payload]
                    parts.append("data: [DONE]\n\n")
                else:
                    parts = [f"event: {name}\ndata: {json.dumps(e)}\n\n" for name, e in payload]
                data = "".join(parts).encode()
                ctype = "text/event-stream"
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802 - model lists some clients ask for
            data = json.dumps({"object": "list", "data": [
                {"id": "scripted", "object": "model", "created": 0, "owned_by": "rcaeval"}]})
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data.encode())

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    state.port = server.server_address[1]
    state.url = f"http://127.0.0.1:{state.port}"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
