"""The Gemini CLI profile: ``--agent gemini:[MODEL]`` (docs/plug-in-your-agent.md).

Per turn ``gemini --output-format json --approval-mode yolo --skip-trust [-m MODEL]`` with the
prompt on stdin. ``GEMINI_CLI_HOME`` is the workspace's ``.home`` (whatever ``HOME`` is), where
the runner writes ``.gemini/settings.json`` before turn 1: the ``rcaeval`` MCP server
(``trust: true``, so its tools never ask), the auth type (``gemini-api-key``, or
``vertex-ai`` when ``GOOGLE_GENAI_USE_VERTEXAI=true``), and no usage statistics, telemetry
or update checks. The answer is the JSON's ``response``; tokens are summed over its
``stats.models``. Gemini CLI reports no cost: with ``RCAEVAL_PRICE_IN`` /
``RCAEVAL_PRICE_OUT`` (USD per million tokens) in ``--agent-env`` the cost is its tokens at
those prices.

Turn 2 and later continue the session of the turn before. ``--resume ID`` cannot be used:
Gemini CLI (0.51 to 0.61 at least) records every tool result twice in its session file - in
the call's ``toolCalls[].result`` and as a user message of ``functionResponse`` parts - and a
resumed session sends both, which the Gemini API refuses (400, "the number of function
response parts is equal to the number of function call parts"). So the runner reads the
last turn's session file (never through a symlink; the agent's processes have all ended),
drops the duplicate user records, writes the copy to ``.rcaeval/gemini-session-N.jsonl`` and
runs ``--session-file`` with it (Gemini CLI imports it as a new session).
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from rcaeval.errors import InputError
from rcaeval.runner._agents import read_capped
from rcaeval.runner._mcp import SERVER_NAME, server_command, server_env
from rcaeval.runner._profiles import HarnessAgent, _number, _sum
from rcaeval.runner._workspace import Workspace, runner_dir_problem

MAX_SESSION_BYTES = 64 * 1024 * 1024
"""What is read of a Gemini CLI session file."""


class GeminiAgent(HarnessAgent):
    harness = "gemini"
    binary = "gemini"
    install_hint = "npm install -g @google/gemini-cli"
    session_per_turn = True

    def base_env(self) -> dict[str, str]:
        return {"GEMINI_CLI_NO_RELAUNCH": "true"}

    def turn_env(self, ws: Workspace, n: int) -> Mapping[str, str | None]:
        # written before turn 1 only, while no agent process has run in the workspace
        if n == 1:
            settings = ws.home / ".gemini" / "settings.json"
            settings.parent.mkdir(parents=True, exist_ok=True)
            settings.write_bytes(orjson.dumps(self.settings(ws), option=orjson.OPT_INDENT_2))
        return {**self.env, "GEMINI_CLI_HOME": str(ws.home)}

    def settings(self, ws: Workspace) -> dict[str, Any]:
        vertex = self._env("GOOGLE_GENAI_USE_VERTEXAI") == "true"
        doc: dict[str, Any] = {
            "security": {"auth": {"selectedType": "vertex-ai" if vertex else "gemini-api-key"}},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False}}
        if ws.tools != "files":
            cmd, args = server_command(ws)
            doc["mcpServers"] = {SERVER_NAME: {"command": cmd, "args": args,
                                               "env": server_env(), "trust": True}}
        return doc

    def _env(self, name: str) -> str | None:
        if name in self.env:
            value = self.env[name]
            return os.environ.get(name) if value is None else value
        return None

    def args(self, ws: Workspace, n: int, session: str | None) -> list[str]:
        cont: list[str] = []
        if session:
            copy = continued_session(ws, n, session)
            cont = ["--session-file", str(copy)] if copy else ["--resume", session]
        return ["--output-format", "json", "--approval-mode", "yolo", "--skip-trust",
                *(["-m", self.model] if self.model else []), *cont]

    def parse(self, text: str) -> dict[str, Any]:
        start = text.find("{")
        try:
            doc = json.JSONDecoder().raw_decode(text[start:])[0] if start >= 0 else None
        except ValueError:
            doc = None
        if not isinstance(doc, dict):
            return {}
        stats = doc.get("stats") if isinstance(doc.get("stats"), dict) else {}
        models = stats.get("models") if isinstance(stats.get("models"), dict) else {}
        usage: dict[str, Any] = {}
        for entry in models.values():
            tok = entry.get("tokens") if isinstance(entry, dict) else None
            if not isinstance(tok, dict):
                continue
            api = entry.get("api") if isinstance(entry.get("api"), dict) else {}
            for key, value in (("input_tokens", tok.get("input", tok.get("prompt"))),
                               ("output_tokens", _sum(tok.get("candidates"),
                                                      tok.get("thoughts"))),
                               ("cache_read_tokens", tok.get("cached")),
                               ("requests", api.get("totalRequests"))):
                usage[key] = _sum(usage.get(key), value)
        cost = self._cost(usage)
        if cost is not None:
            usage["cost_usd"] = cost
        err = doc.get("error") if isinstance(doc.get("error"), dict) else {}
        return {"answer": doc.get("response") if isinstance(doc.get("response"), str) else "",
                "session": doc.get("session_id") if isinstance(doc.get("session_id"), str)
                else None, "usage": usage,
                "error": f"{err.get('type', 'error')}: {str(err.get('message', ''))[:300]}"
                if err else ""}

    def _cost(self, usage: dict[str, Any]) -> float | None:
        """Tokens at the declared ``RCAEVAL_PRICE_IN`` / ``RCAEVAL_PRICE_OUT`` (cached input
        at the input price), or ``None`` without both."""
        raw_in, raw_out = self._env("RCAEVAL_PRICE_IN"), self._env("RCAEVAL_PRICE_OUT")
        if raw_in is None or raw_out is None:
            return None
        try:
            p_in, p_out = float(raw_in), float(raw_out)
        except ValueError as exc:
            raise InputError(f"RCAEVAL_PRICE_IN / RCAEVAL_PRICE_OUT must be numbers ({exc})",
                             field="--agent-env") from exc
        n_in = _sum(usage.get("input_tokens"), usage.get("cache_read_tokens"))
        n_out = usage.get("output_tokens")
        if not (_number(n_in) and _number(n_out)):
            return None
        return (n_in * p_in + n_out * p_out) / 1e6


def _no_links_below(root: Path, path: Path) -> bool:
    """``path`` is a regular file under ``root`` reached through no symlink."""
    try:
        rel = path.relative_to(root)
    except ValueError:
        return False
    cur = root
    for part in rel.parts:
        cur = cur / part
        try:
            st = os.lstat(cur)
        except OSError:
            return False
        if stat.S_ISLNK(st.st_mode):
            return False
    return stat.S_ISREG(st.st_mode)


def session_file(ws: Workspace, session: str) -> Path | None:
    """Gemini CLI's file of ``session`` under ``GEMINI_CLI_HOME`` (``.gemini/tmp/<project>/
    chats/session-<time>-<id8>.jsonl``), when it is a regular file reached through no
    symlink."""
    if not session.replace("-", "").isalnum():
        return None
    tmp = ws.home / ".gemini" / "tmp"
    for path in sorted(tmp.glob(f"*/chats/session-*-{session[:8]}.jsonl")):
        if _no_links_below(ws.home, path):
            return path
    return None


def dedupe_session(text: str) -> str:
    """A session file's records without the user records that only repeat tool results
    already held in a ``gemini`` record's ``toolCalls[].result``."""
    records = []
    for line in text.splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        records.append(rec)
    answered = {str(c.get("id")) for r in records if isinstance(r, dict) and
                r.get("type") == "gemini" for c in r.get("toolCalls") or []
                if isinstance(c, dict) and c.get("result")}

    def repeats(rec: Any) -> bool:
        parts = rec.get("content") if isinstance(rec, dict) and rec.get("type") == "user" \
            else None
        return isinstance(parts, list) and bool(parts) and all(
            isinstance(p, dict) and isinstance(p.get("functionResponse"), dict)
            and str(p["functionResponse"].get("id")) in answered for p in parts)

    return "".join(json.dumps(r) + "\n" for r in records if not repeats(r))


def continued_session(ws: Workspace, n: int, session: str) -> Path | None:
    """``.rcaeval/gemini-session-N.jsonl``: the session of the turn before, repaired (see the
    module docstring); ``None`` when its file cannot be read safely."""
    if runner_dir_problem(ws) is not None:
        return None
    src = session_file(ws, session)
    if src is None:
        return None
    text, size = read_capped(src, MAX_SESSION_BYTES)
    if size is not None:
        return None
    out = ws.runner_dir / f"gemini-session-{n}.jsonl"
    try:  # never through a link the agent left in .rcaeval/
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
    except OSError:
        return None
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(dedupe_session(text))
    return out
