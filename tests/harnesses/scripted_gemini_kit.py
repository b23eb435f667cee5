"""The Gemini API wire format of the scripted model server (scripted_model_kit): requests to
``POST /v1beta/models/MODEL:generateContent`` and ``…:streamGenerateContent?alt=sse`` (what
Gemini CLI sends when ``GOOGLE_GEMINI_BASE_URL`` points at the server), and
``…:countTokens``.

A request's ``contents`` are the history: ``model`` turns carry ``functionCall`` parts (the
script's tool calls), ``user`` turns the ``functionResponse`` parts (the MCP tool results) and
the user's texts. Calls and responses are paired in order (the script makes one call per
response); the response's ``id`` is echoed when Gemini CLI sends one. Usage is reported in
``usageMetadata`` (``promptTokenCount`` / ``candidatesTokenCount``), as the real API does.
"""

from __future__ import annotations

import json
import re
from typing import Any

from scripted_model_kit import Conversation, Step, count_followups, tokens


def is_gemini(path: str) -> bool:
    """``/v1beta/models/MODEL:method`` (a colon in the last path segment)."""
    return ":" in path.rsplit("/", 1)[-1]


def method_of(path: str) -> str:
    return path.rsplit(":", 1)[-1]


def model_of(path: str) -> str:
    return path.rsplit("/", 1)[-1].split(":", 1)[0]


_UNTRUSTED = re.compile(r"^\s*<untrusted_context>\s*(.*?)\s*</untrusted_context>\s*$", re.S)


def _unwrap(text: str) -> str:
    """Gemini CLI hands an MCP tool's output to the model inside ``<untrusted_context>``."""
    m = _UNTRUSTED.match(text)
    return m.group(1) if m else text


def _result_text(response: Any) -> tuple[str, bool]:
    """A ``functionResponse.response`` as the tool's text, and whether it is an error."""
    text, is_error = _raw_result(response)
    return _unwrap(text), is_error


def _raw_result(response: Any) -> tuple[str, bool]:
    if not isinstance(response, dict):
        return str(response), False
    if "error" in response:
        err = response["error"]
        return err if isinstance(err, str) else json.dumps(err), True
    out = response.get("output", response.get("content"))
    if isinstance(out, str):
        return out, False
    if isinstance(out, list):  # MCP content items
        return "".join(c.get("text", "") for c in out if isinstance(c, dict)), False
    return json.dumps(response), False


def gemini_conversation(body: dict[str, Any]) -> Conversation:
    conv = Conversation(tools=[f.get("name", "") for t in body.get("tools") or []
                               for f in t.get("functionDeclarations") or []])
    tail: list[tuple[str, str]] = []
    n_calls = n_results = 0
    for msg in body.get("contents") or []:
        role = "assistant" if msg.get("role") == "model" else "user"
        texts = []
        for part in msg.get("parts") or []:
            if not isinstance(part, dict) or part.get("thought"):
                continue
            if isinstance(part.get("functionCall"), dict):
                fc = part["functionCall"]
                conv.calls.append((f"g{n_calls}", fc.get("name", ""), fc.get("args") or {}))
                n_calls += 1
            elif isinstance(part.get("functionResponse"), dict):
                conv.results[f"g{n_results}"] = _result_text(
                    part["functionResponse"].get("response"))
                n_results += 1
                tail = []
            elif isinstance(part.get("text"), str):
                texts.append(part["text"])
        if texts:
            tail.append((role, "".join(texts)))
    count_followups(conv, tail)
    return conv


def gemini_response(step: Step, model: str, n_in: int, call_id: str) -> dict[str, Any]:
    out_text = step.text or json.dumps(step.args)
    part = ({"functionCall": {"id": call_id, "name": step.tool, "args": step.args}}
            if step.tool else {"text": step.text})
    return {"candidates": [{"content": {"role": "model", "parts": [part]},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": n_in,
                              "candidatesTokenCount": tokens(out_text),
                              "totalTokenCount": n_in + tokens(out_text)},
            "modelVersion": model, "responseId": call_id}


def gemini_events(step: Step, model: str, n_in: int, call_id: str) -> list[dict[str, Any]]:
    """The streamed form: a text is split in two chunks (as the API streams it), a function
    call comes whole; the last chunk carries the finish reason and the usage."""
    full = gemini_response(step, model, n_in, call_id)
    if step.tool or len(step.text) < 2:
        return [full]
    half = len(step.text) // 2
    first = {"candidates": [{"content": {"role": "model", "parts": [
        {"text": step.text[:half]}]}, "index": 0}], "modelVersion": model,
        "responseId": call_id}
    last = json.loads(json.dumps(full))
    last["candidates"][0]["content"]["parts"] = [{"text": step.text[half:]}]
    return [first, last]
