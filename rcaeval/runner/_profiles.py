"""Harness profiles: ``--agent opencode:[MODEL]`` and ``--agent claude-code:[MODEL]``
(docs/plug-in-your-agent.md).

A profile is a command agent whose command line the runner writes: the harness binary as
found on ``PATH`` (so the sandbox mounts it), the model passed through, the incident tools'
MCP server in the harness's own config format, permissions set so the harness never asks
(an ask in a headless run is a refusal that ends the session), machine-readable output, and
for turn > 1 the session of turn 1 resumed (``--session`` / ``--resume``). The answer, the
token usage and the cost are read from the harness's own JSON output, so no agent writes
``usage.json``.

``opencode``     ``opencode run --format json --auto [-m PROVIDER/MODEL] [--session ID]``;
                 ``provider``/``model`` of your own opencode config (``$OPENCODE_CONFIG`` or
                 ``~/.config/opencode/opencode.json`` of the runner) are passed in
                 ``OPENCODE_CONFIG_CONTENT``, which opencode merges over the generated
                 ``$OPENCODE_CONFIG`` (``.rcaeval/opencode.json``: the ``rcaeval`` MCP server).
``claude-code``  ``claude -p --output-format json [--model MODEL] --mcp-config … --strict-mcp-config
                 --permission-mode dontAsk --allowedTools mcp__rcaeval,… [--resume ID]``.
``gemini``       ``gemini --output-format json --approval-mode yolo --skip-trust [-m MODEL]
                 [--session-file …]`` (rcaeval.runner._profile_gemini).
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from rcaeval.errors import InputError
from rcaeval.runner._agents import USAGE_KEYS, add_usage, read_capped
from rcaeval.runner._command import CommandAgent
from rcaeval.runner._mcp import MCP_CONFIG, SERVER_NAME
from rcaeval.runner._workspace import Workspace, runner_dir_problem

MAX_JSON_BYTES = 64 * 1024 * 1024
"""What is read of one turn's JSON output (it carries every tool result)."""

OPENCODE_PASSTHROUGH = ("provider", "model", "small_model", "enabled_providers",
                        "disabled_providers")
"""Keys of the user's own opencode config the generated one keeps."""
CLAUDE_TOOLS = (f"mcp__{SERVER_NAME}", "Read", "Glob", "Grep", "Write", "Edit", "Bash",
                "TodoWrite")
"""What Claude Code may use without asking (``--permission-mode dontAsk`` refuses the rest)."""


def find_binary(name: str, install_hint: str) -> str:
    """The harness binary on the runner's ``PATH`` as an absolute path, or exit 3."""
    found = shutil.which(name)
    if found is None:
        raise InputError(f"the {name!r} binary is not on PATH ({install_hint})",
                         field="--agent")
    return os.path.abspath(found)


def _user_opencode_config() -> dict[str, Any]:
    """The runner user's own opencode config (``$OPENCODE_CONFIG``, else
    ``~/.config/opencode/opencode.json``); ``{}`` when there is none."""
    env = os.environ.get("OPENCODE_CONFIG")
    path = Path(env) if env else Path.home() / ".config" / "opencode" / "opencode.json"
    if not path.is_file():
        return {}
    try:
        doc = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError) as exc:
        raise InputError(f"{path}: not a JSON opencode config ({exc})",
                         field="OPENCODE_CONFIG") from exc
    if not isinstance(doc, dict):
        raise InputError(f"{path}: an opencode config must be a JSON object",
                         field="OPENCODE_CONFIG")
    return doc


def _json_lines(text: str) -> list[dict[str, Any]]:
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                doc = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if isinstance(doc, dict):
                out.append(doc)
    return out


class HarnessAgent(CommandAgent):
    """A command agent for one harness profile (see the module docstring)."""

    harness = ""
    binary = ""
    install_hint = ""
    session_per_turn = False
    """Each turn continues the session of the turn before under a new id (else turn 1's)."""

    def __init__(self, spec: str, model: str | None, *,
                 env: Mapping[str, str | None] | None = None) -> None:
        self.model = model or None
        self.exe = find_binary(self.binary, self.install_hint)
        super().__init__(spec, [self.exe], env={**self.base_env(), **dict(env or {})},
                         prompt_mode="stdin")
        self.name = self.harness
        self._sessions: dict[str, str] = {}
        self._turns: dict[tuple[str, int], dict[str, Any]] = {}
        self._lock = threading.Lock()

    def base_env(self) -> dict[str, str]:
        return {}

    def info(self) -> dict[str, Any]:
        return {**super().info(), "name": self.harness, "harness": self.harness,
                "model": self.model}

    # -- per turn ---------------------------------------------------------------------

    def turn_argv(self, ws: Workspace, n: int) -> list[str]:
        with self._lock:
            session = self._sessions.get(str(ws.path)) if n > 1 else None  # the last one
        return [self.exe, *self.args(ws, n, session)]

    def args(self, ws: Workspace, n: int, session: str | None) -> list[str]:
        raise NotImplementedError

    def parse(self, text: str) -> dict[str, Any]:
        """``{answer, session, usage: {key: value}, error}`` of one turn's stdout."""
        raise NotImplementedError

    def _run_turn(self, ws: Workspace, n: int, text: str, limit: float) -> dict[str, Any]:
        result = super()._run_turn(ws, n, text, limit)
        if result.get("spawn_error") or runner_dir_problem(ws) is not None:
            return result
        raw, size = read_capped(ws.runner_dir / f"turn-{n}.stdout", MAX_JSON_BYTES)
        parsed = self.parse(raw)
        if size is not None:
            result["notes"].append(f"turn {n}: the {self.harness} JSON output is {size} "
                                   f"bytes; the first {MAX_JSON_BYTES} were read")
        if parsed.get("error"):
            result["notes"].append(f"turn {n}: {self.harness} reported: {parsed['error']}")
        if not (n == 1 and (ws.path / "output.txt").is_file()):
            result["answer"] = parsed.get("answer") or ""
        key = str(ws.path)
        with self._lock:
            if parsed.get("session") and (n == 1 or self.session_per_turn):
                self._sessions[key] = parsed["session"]
            self._turns[(key, n)] = parsed
        return result

    def _collect_usage(self, ws: Workspace, n: int, usage: dict[str, Any]) -> None:
        with self._lock:
            parsed = self._turns.pop((str(ws.path), n), None)
        if parsed and parsed.get("usage"):
            usage["reported"].append({"source": f"{self.harness} json", "turn": n,
                                      "raw": parsed["usage"]})
            for k in USAGE_KEYS:
                add_usage(usage, k, parsed["usage"].get(k))
        CommandAgent._collect_usage(ws, n, usage)

    def run_case(self, workspace: Workspace, *, timeout_s: float,
                 turn_timeout_s: float | None = None) -> Any:
        try:
            return super().run_case(workspace, timeout_s=timeout_s,
                                    turn_timeout_s=turn_timeout_s)
        finally:
            with self._lock:
                self._sessions.pop(str(workspace.path), None)
                for k in [k for k in self._turns if k[0] == str(workspace.path)]:
                    del self._turns[k]


class OpencodeAgent(HarnessAgent):
    harness = "opencode"
    binary = "opencode"
    install_hint = "npm install -g opencode-ai"

    def __init__(self, spec: str, model: str | None, *,
                 env: Mapping[str, str | None] | None = None) -> None:
        self.user_config = {k: v for k, v in _user_opencode_config().items()
                            if k in OPENCODE_PASSTHROUGH}
        super().__init__(spec, model, env=env)

    def base_env(self) -> dict[str, str]:
        # your provider/model config, merged by opencode over the generated $OPENCODE_CONFIG
        # (which holds the rcaeval MCP server); in every tools mode, files too
        inline = {**self.user_config, **({"model": self.model} if self.model else {})}
        return {"OPENCODE_DISABLE_AUTOUPDATE": "1",
                **({"OPENCODE_CONFIG_CONTENT": orjson.dumps(inline).decode()} if inline else {})}

    def args(self, ws: Workspace, n: int, session: str | None) -> list[str]:
        return ["run", "--format", "json", "--auto",
                *(["-m", self.model] if self.model else []),
                *(["--session", session] if session else [])]

    def parse(self, text: str) -> dict[str, Any]:
        events = _json_lines(text)
        session = next((e["sessionID"] for e in events
                        if isinstance(e.get("sessionID"), str)), None)
        texts: dict[str, list[str]] = {}
        order: list[str] = []
        totals = {"input_tokens": 0, "output_tokens": 0, "cache_read_tokens": 0,
                  "cache_write_tokens": 0, "cost_usd": 0.0}
        steps, errors = 0, []
        for e in events:
            part = e.get("part") if isinstance(e.get("part"), dict) else {}
            if e.get("type") == "text" and isinstance(part.get("text"), str):
                mid = str(part.get("messageID"))
                if mid not in texts:
                    texts[mid] = []
                    order.append(mid)
                texts[mid].append(part["text"])
            elif e.get("type") == "step_finish":
                steps += 1
                tok = part.get("tokens") if isinstance(part.get("tokens"), dict) else {}
                cache = tok.get("cache") if isinstance(tok.get("cache"), dict) else {}
                for key, value in (("input_tokens", tok.get("input")),
                                   ("output_tokens", _sum(tok.get("output"),
                                                          tok.get("reasoning"))),
                                   ("cache_read_tokens", cache.get("read")),
                                   ("cache_write_tokens", cache.get("write")),
                                   ("cost_usd", part.get("cost"))):
                    totals[key] = _sum(totals[key], value)
            elif e.get("type") == "error":
                err = e.get("error") if isinstance(e.get("error"), dict) else {}
                data = err.get("data") if isinstance(err.get("data"), dict) else {}
                errors.append(f"{err.get('name', 'error')}: {data.get('message', '')}"[:300])
        answer = "".join(texts[order[-1]]) if order else ""
        return {"answer": answer, "session": session, "error": "; ".join(errors[:3]),
                "usage": {**totals, "steps": steps} if steps else {}}


class ClaudeCodeAgent(HarnessAgent):
    harness = "claude-code"
    binary = "claude"
    install_hint = "npm install -g @anthropic-ai/claude-code"

    def base_env(self) -> dict[str, str]:
        # the incident tools are offered directly, not behind ToolSearch; no update checks
        return {"ENABLE_TOOL_SEARCH": "false", "DISABLE_AUTOUPDATER": "1",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}

    def args(self, ws: Workspace, n: int, session: str | None) -> list[str]:
        tools = ws.tools != "files"
        return ["-p", "--output-format", "json",
                *(["--model", self.model] if self.model else []),
                *(["--mcp-config", str(ws.runner_dir / MCP_CONFIG)] if tools else []),
                "--strict-mcp-config", "--permission-mode", "dontAsk",
                "--allowedTools", ",".join(CLAUDE_TOOLS if tools else CLAUDE_TOOLS[1:]),
                *(["--resume", session] if session else [])]

    def parse(self, text: str) -> dict[str, Any]:
        docs = [d for d in _json_lines(text) if d.get("type") == "result"]
        if not docs:
            return {}
        doc = docs[-1]
        u = doc.get("usage") if isinstance(doc.get("usage"), dict) else {}
        usage = {"input_tokens": u.get("input_tokens"), "output_tokens": u.get("output_tokens"),
                 "cache_read_tokens": u.get("cache_read_input_tokens"),
                 "cache_write_tokens": u.get("cache_creation_input_tokens"),
                 "cost_usd": doc.get("total_cost_usd"), "num_turns": doc.get("num_turns")}
        error = ""
        if doc.get("is_error"):
            error = f"{doc.get('subtype', 'error')}: {str(doc.get('result', ''))[:300]}"
        return {"answer": doc.get("result") if isinstance(doc.get("result"), str) else "",
                "session": doc.get("session_id") if isinstance(doc.get("session_id"), str)
                else None, "usage": usage, "error": error}


def _sum(a: Any, b: Any) -> Any:
    """``a + b`` for numbers (``None`` = not reported); a non-number wins, so the usage
    check refuses the total instead of a wrong sum being stored."""
    if b is None:
        return a
    if a is None:
        return b
    if not _number(a):
        return a
    return a + b if _number(b) else b


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def profile_agent(kind: str, rest: str, *, env: Mapping[str, str | None] | None = None
                  ) -> HarnessAgent:
    spec = f"{kind}:{rest}"
    if kind == "opencode":
        if rest and "/" not in rest:
            raise InputError(f"bad agent spec {spec!r}: opencode models are PROVIDER/MODEL",
                             field="--agent")
        return OpencodeAgent(spec, rest, env=env)
    if kind == "gemini":
        from rcaeval.runner._profile_gemini import GeminiAgent

        return GeminiAgent(spec, rest, env=env)
    return ClaudeCodeAgent(spec, rest, env=env)
