"""Semantic providers: one call = one sample = a verdict for every check of a context.

``command``: any executable; the context JSON on stdin, a packet-shaped JSON on stdout (only
``checks[*].{check_id, verdict, rationale}`` and ``usage`` are read), killed (its whole
process group) after ``timeout_s``. ``openai``: ``POST <base_url>/chat/completions`` with
structured output (``response_format`` json_schema, falling back to json_object when the
server rejects it). Failures raise :class:`ProviderError` with the packet status.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
from dataclasses import dataclass
from typing import Any

import orjson
from pydantic import ValidationError

from rcaeval.semantic._config import Prompt, SemanticConfig
from rcaeval.semantic._models import ProviderAnswer

_DETAIL_MAX = 300


class ProviderError(Exception):
    """A provider call failed; ``status`` is the packet status (timeout / provider_failure)."""

    def __init__(self, status: str, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail[:_DETAIL_MAX]


@dataclass(frozen=True)
class Sample:
    """One sample's verdicts ``{check_id: (verdict, rationale)}`` and what it cost."""

    verdicts: dict[str, tuple[str, str | None]]
    requests: int
    input_tokens: int | None
    output_tokens: int | None
    cost_usd: float | None
    response_format: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"verdicts": {k: list(v) for k, v in self.verdicts.items()},
                "requests": self.requests, "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens, "cost_usd": self.cost_usd,
                "response_format": self.response_format}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Sample:
        return cls(verdicts={k: (v[0], v[1]) for k, v in doc["verdicts"].items()},
                   requests=doc["requests"], input_tokens=doc["input_tokens"],
                   output_tokens=doc["output_tokens"], cost_usd=doc["cost_usd"],
                   response_format=doc.get("response_format"))


_FENCE = re.compile(r"^\s*```[a-zA-Z]*\s*\n(.*)\n\s*```\s*$", re.S)


def parse_answer(raw: bytes | str, check_ids: list[str], *, source: str
                 ) -> tuple[dict[str, tuple[str, str | None]], ProviderAnswer]:
    """Validate a provider answer: JSON (a model's answer may be wrapped in one Markdown code
    fence), ``checks`` with a pass/fail verdict for exactly the given check ids. Anything else
    is a malformed answer (provider_failure)."""
    if isinstance(raw, str) and (fenced := _FENCE.match(raw)):
        raw = fenced.group(1)
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        text = raw if isinstance(raw, str) else raw.decode("utf-8", "replace")
        raise ProviderError("provider_failure", f"{source}: answer is not JSON ({exc}): "
                            f"{text[:120]!r}") from exc
    try:
        answer = ProviderAnswer.model_validate(doc)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ProviderError("provider_failure",
                            f"{source}: malformed answer at {where}: {first['msg']}") from exc
    verdicts: dict[str, tuple[str, str | None]] = {}
    for item in answer.checks:
        if item.check_id in verdicts:
            raise ProviderError("provider_failure",
                                f"{source}: check {item.check_id!r} answered twice")
        verdicts[item.check_id] = (item.verdict, item.rationale)
    missing = [c for c in check_ids if c not in verdicts]
    extra = sorted(set(verdicts) - set(check_ids))
    if missing or extra:
        parts = ([f"no verdict for {missing}"] if missing else []) + (
            [f"unknown check(s) {extra}"] if extra else [])
        raise ProviderError("provider_failure", f"{source}: " + "; ".join(parts))
    return verdicts, answer


# -- command -------------------------------------------------------------------------------

def command_sample(config: SemanticConfig, context_bytes: bytes, check_ids: list[str],
                   index: int) -> Sample:
    env = {**os.environ, **(config.env or {}), "RCAEVAL_SEMANTIC_SAMPLE": str(index),
           "RCAEVAL_SEMANTIC_SAMPLES": str(config.samples)}
    try:
        proc = subprocess.Popen(list(config.command), stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                                start_new_session=True)
    except OSError as exc:
        raise ProviderError("provider_failure", f"cannot start {config.command[0]!r}: {exc}"
                            ) from exc
    try:
        out, err = proc.communicate(context_bytes, timeout=config.timeout_s)
    except subprocess.TimeoutExpired:
        _kill(proc)
        raise ProviderError("timeout", f"command gave no answer within {config.timeout_s:g}s"
                            ) from None
    if proc.returncode != 0:
        tail = err.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        raise ProviderError("provider_failure",
                            f"command exited {proc.returncode}: {tail[0][:200]}")
    verdicts, answer = parse_answer(out, check_ids, source="command")
    usage = answer.usage
    return Sample(verdicts=verdicts, requests=1,
                  input_tokens=usage.input_tokens if usage else None,
                  output_tokens=usage.output_tokens if usage else None,
                  cost_usd=usage.cost_usd if usage else None)


def _kill(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        proc.kill()
    proc.communicate()


# -- openai --------------------------------------------------------------------------------

def answer_schema(check_ids: list[str]) -> dict[str, Any]:
    """The JSON Schema of an answer for these checks (strict structured output)."""
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["checks"],
        "properties": {"checks": {"type": "array", "items": {
            "type": "object",
            "additionalProperties": False,
            "required": ["check_id", "verdict", "rationale"],
            "properties": {
                "check_id": {"type": "string", "enum": list(check_ids)},
                "verdict": {"type": "string", "enum": ["pass", "fail"]},
                "rationale": {"type": "string"},
            },
        }}},
    }


class OpenAIClient:
    """One httpx client per judging pass; remembers a json_schema -> json_object fallback."""

    def __init__(self, config: SemanticConfig, api_key: str) -> None:
        import httpx

        self.config = config
        self.url = config.base_url.rstrip("/") + "/chat/completions"
        self._httpx = httpx
        self.client = httpx.Client(
            timeout=httpx.Timeout(config.timeout_s),
            headers={"Authorization": f"Bearer {api_key}"},
        )
        self._lock = threading.Lock()
        self.json_object_only = False

    def close(self) -> None:
        self.client.close()

    def _body(self, prompt: Prompt, input_json: str, check_ids: list[str], index: int,
              structured: bool) -> dict[str, Any]:
        c = self.config
        body: dict[str, Any] = {
            "model": c.model,
            "messages": prompt.messages(input_json),
            "temperature": c.temperature,
        }
        if c.seed is not None:
            body["seed"] = c.seed + index
        if c.max_tokens is not None:
            body["max_tokens"] = c.max_tokens
        body["response_format"] = (
            {"type": "json_schema", "json_schema": {
                "name": "semantic_verdicts", "strict": True, "schema": answer_schema(check_ids)}}
            if structured else {"type": "json_object"})
        return body

    def _post(self, body: dict[str, Any]) -> Any:
        httpx = self._httpx
        try:
            return self.client.post(self.url, json=body)
        except httpx.TimeoutException:
            raise ProviderError(
                "timeout", f"no answer from {self.url} within {self.config.timeout_s:g}s"
            ) from None
        except httpx.HTTPError as exc:
            raise ProviderError("provider_failure", f"{self.url}: {exc!r}") from None

    def sample(self, prompt: Prompt, input_json: str, check_ids: list[str],
               index: int) -> Sample:
        requests = 0
        structured = not self.json_object_only
        while True:
            resp = self._post(self._body(prompt, input_json, check_ids, index, structured))
            requests += 1
            if structured and resp.status_code in (400, 422):
                # the server does not take json_schema: ask for a JSON object instead
                with self._lock:
                    self.json_object_only = True
                structured = False
                continue
            break
        if resp.status_code != 200:
            text = resp.text.strip().replace("\n", " ")
            raise ProviderError("provider_failure",
                                f"{self.url}: HTTP {resp.status_code}: {text[:160]}")
        try:
            doc = resp.json()
            content = doc["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise ProviderError("provider_failure",
                                f"{self.url}: not a chat completion ({exc!r})") from None
        if not isinstance(content, str):
            raise ProviderError("provider_failure", f"{self.url}: message content is not text")
        verdicts, _ = parse_answer(content, check_ids, source="model")
        usage = doc.get("usage") if isinstance(doc.get("usage"), dict) else {}
        tin, tout = usage.get("prompt_tokens"), usage.get("completion_tokens")
        cost = usage.get("cost")
        if cost is None:
            cost = self._price(tin, tout)
        return Sample(verdicts=verdicts, requests=requests,
                      input_tokens=tin if isinstance(tin, int) else None,
                      output_tokens=tout if isinstance(tout, int) else None,
                      cost_usd=float(cost) if isinstance(cost, int | float) else None,
                      response_format="json_schema" if structured else "json_object")

    def _price(self, tin: Any, tout: Any) -> float | None:
        c = self.config
        if c.price_input_per_mtok is None or c.price_output_per_mtok is None:
            return None
        if not isinstance(tin, int) or not isinstance(tout, int):
            return None
        return (tin * c.price_input_per_mtok + tout * c.price_output_per_mtok) / 1e6
