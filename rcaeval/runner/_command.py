"""``command:<cmdline>``: any CLI agent, one subprocess per prompt turn.

Each turn runs the command in the workspace in its own process group with the documented
environment (``RCAEVAL_TURN=<n>``). The prompt arrives on stdin, or - in prompt-file mode - as
a file whose path replaces ``{prompt_file}`` in the command line (and is always in
``$RCAEVAL_PROMPT_FILE``). stdin, stdout and stderr are files, never pipes: stdout goes to
``.rcaeval/turn-<n>.stdout``, stderr is appended to ``.rcaeval/agent.stderr``, so a chatty
agent can never block on a full pipe.
"""

from __future__ import annotations

import math
import os
import re
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import orjson

from rcaeval.runner._agents import (
    USAGE_KEYS,
    AgentOutcome,
    Turn,
    add_usage,
    empty_usage,
    read_capped,
    truncation_note,
)
from rcaeval.runner._mcp import MCP_CONFIG
from rcaeval.runner._mcp import PLACEHOLDER as MCP_PLACEHOLDER
from rcaeval.runner._proc import kill_group, spawn
from rcaeval.runner._sandbox import sandbox_wrapper
from rcaeval.runner._workspace import (
    RUNNER_DIR,
    Workspace,
    agent_env,
    runner_dir_problem,
    workspace_problem,
)

PLACEHOLDER = "{prompt_file}"
USAGE_FILE = "usage.json"
"""An agent may write ``.rcaeval/usage.json`` during a turn to report its token usage."""

# What the runner itself puts in a fresh workspace; anything else was written by the agent.
_RUNNER_ENTRIES = frozenset({"prompt.md", "case.json", "incident", ".home", ".tmp", RUNNER_DIR})


def read_tail(path: Path, limit: int = 2000) -> str:
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - limit))
            return fh.read().decode("utf-8", "replace")
    except OSError:
        return ""


_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_EXCEPTION_LINE = re.compile(r"^(?:[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt)\b.*|"
                             r".*(?:No such file or directory|not found|Permission denied|"
                             r"cannot execute|Exec format error).*)$")
START_FAILURE_CODES = (126, 127)
"""Exit codes of a shell that could not find (127) or execute (126) the program."""


def stderr_digest(path: Path, limit: int = 600) -> tuple[str, str]:
    """``(exception line, tail)`` of an agent's stderr, ANSI escapes and control characters
    stripped: the last line that names an exception or an exec failure (else the last
    non-empty line), and the last ``limit`` characters (empty when that is the line itself) -
    so a note always keeps the line that says what went wrong, even when the tail is long."""
    text = _CONTROL.sub("", _ANSI.sub("", read_tail(path, 8 * limit)))
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not lines:
        return "", ""
    key = next((ln for ln in reversed(lines) if _EXCEPTION_LINE.match(ln)), lines[-1])
    tail = "\n".join(lines)[-limit:]
    return key[:300], "" if tail == key else tail


def start_failure_note(n: int, code: int | None, ws: Workspace) -> tuple[str, bool]:
    """The error for an agent that ended turn ``n`` with exit ``code`` before any output and
    whether it looks deterministic (an exception, exit 126/127): retrying cannot help it."""
    key, tail = ("", "") if runner_dir_problem(ws) else stderr_digest(
        ws.runner_dir / "agent.stderr")
    error = (f"turn {n}: the agent exited with {code} before any output (it could not start)"
             + (f": {key}" if key else "") + (f"; stderr tail: {tail}" if tail else ""))
    return error, code in START_FAILURE_CODES or bool(key and _EXCEPTION_LINE.match(key))


def agent_wrote_files(ws: Workspace) -> bool:
    """True when the workspace holds anything besides the runner's own entries."""
    try:
        return any(name not in _RUNNER_ENTRIES for name in os.listdir(ws.path))
    except OSError:
        return False


def wait_exit_unreaped(pid: int, timeout: float) -> bool:
    """Wait up to ``timeout`` for ``pid`` to exit without reaping it; True if it exited."""
    end = time.monotonic() + timeout
    pause = 0.001
    while True:
        if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
            return True
        left = end - time.monotonic()
        if left <= 0:
            return False
        time.sleep(min(pause, left))
        pause = min(pause * 2, 0.05)


def turn_prompt_file(ws: Workspace, turn: int, text: str) -> Path:
    """Turn 1 reads ``prompt.md``; follow-up ``n`` is written to ``.rcaeval/prompt-<n>.md``."""
    path = ws.prompt_file if turn == 1 else ws.runner_dir / f"prompt-{turn}.md"
    if turn != 1 or not path.exists():
        path.write_text(text, encoding="utf-8")
    return path


class CommandAgent:
    name = "command"

    def __init__(
        self,
        spec: str,
        argv: list[str],
        *,
        env: Mapping[str, str | None] | None = None,
        prompt_mode: Literal["stdin", "file"] | None = None,
    ) -> None:
        self.spec = spec
        self.argv = list(argv)
        self.env = dict(env or {})
        has_placeholder = any(PLACEHOLDER in a for a in self.argv)
        self.prompt_mode: Literal["stdin", "file"] = prompt_mode or (
            "file" if has_placeholder else "stdin")

    def info(self) -> dict[str, Any]:
        return {"name": self.name, "spec": self.spec, "command": self.argv,
                "prompt_mode": self.prompt_mode}

    def turn_argv(self, ws: Workspace, n: int) -> list[str]:
        """Turn ``n``'s command line (a harness profile resumes turn 1's session)."""
        return self.argv

    def turn_env(self, ws: Workspace, n: int) -> Mapping[str, str | None]:
        """Turn ``n``'s added environment (a harness profile adds per-workspace config)."""
        return self.env

    def run_case(
        self, workspace: Workspace, *, timeout_s: float, turn_timeout_s: float | None = None
    ) -> AgentOutcome:
        ws = workspace
        deadline = time.monotonic() + timeout_s
        outcome = AgentOutcome(status="completed", usage=empty_usage(), agent_info=self.info())
        for n, text in enumerate(ws.case.turns(), start=1):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                outcome.status = "timed_out"
                outcome.error = f"case timeout ({timeout_s:g}s) reached before turn {n}"
                break
            limit = min(remaining, turn_timeout_s if turn_timeout_s else math.inf)
            tampered = runner_dir_problem(ws)
            if tampered is not None:
                outcome.status = "crashed"
                outcome.error = f"before turn {n}: {tampered}; the case stops here"
                break
            outcome.transcript.append(Turn(n, "user", text))
            result = self._run_turn(ws, n, text, limit)
            if result.get("spawn_error"):
                outcome.status = "errored"
                outcome.error = result["spawn_error"]
                outcome.infra_error = True
                break
            answer = result["answer"]
            outcome.notes += result["notes"]
            outcome.transcript.append(Turn(n, "assistant", answer, {
                "exit_code": result["exit_code"], "duration_s": result["duration_s"],
                "status": result["status"]}))
            self._collect_usage(ws, n, outcome.usage)
            if n == 1:
                outcome.final_text = answer
            if result["status"] == "timed_out":
                outcome.status = "timed_out"
                limit_kind = "turn" if limit < remaining else "case"
                outcome.error = f"turn {n} exceeded the {limit_kind} timeout ({limit:.3g}s)"
                break
            if result["status"] == "crashed":
                if n == 1 and not answer and not agent_wrote_files(ws):
                    # never produced anything: it could not start (docs/running.md)
                    outcome.status = "errored"
                    outcome.error, certain = start_failure_note(n, result["exit_code"], ws)
                    outcome.infra_error = not certain
                    break
                outcome.status = "crashed"
                key, tail = ("", "") if runner_dir_problem(ws) else \
                    stderr_digest(ws.runner_dir / "agent.stderr")
                outcome.error = f"turn {n}: agent exited with {result['exit_code']}" + (
                    f": {key}" if key else "") + (f"; stderr tail: {tail}" if tail else "")
                break
        return outcome

    def _run_turn(self, ws: Workspace, n: int, text: str, limit: float) -> dict[str, Any]:
        prompt_path = turn_prompt_file(ws, n, text)
        mcp_config = str(ws.runner_dir / MCP_CONFIG)
        if ws.tools == "files" and any(MCP_PLACEHOLDER in a for a in self.argv):
            return {"spawn_error": f"{MCP_PLACEHOLDER} in the command line, but this run has "
                    "no incident tools (tools: files)"}
        argv = [a.replace(PLACEHOLDER, str(prompt_path)).replace(MCP_PLACEHOLDER, mcp_config)
                for a in self.turn_argv(ws, n)]
        env = agent_env(ws, self.turn_env(ws, n), turn=n, prompt_file=prompt_path)
        stdout_path = ws.runner_dir / f"turn-{n}.stdout"
        started = time.monotonic()
        stdin_src = str(prompt_path) if self.prompt_mode == "stdin" else os.devnull
        with open(stdin_src, "rb") as fin, open(stdout_path, "wb") as fout, \
                open(ws.runner_dir / "agent.stderr", "ab") as ferr:
            try:
                proc = spawn(argv, cwd=ws.path, env=env, stdin=fin, stdout=fout, stderr=ferr,
                             wrapper=sandbox_wrapper(ws, argv, env))
            except OSError as exc:
                return {"spawn_error": f"cannot start {argv[0]!r}: {exc}"}
            status = "completed"
            try:
                if not wait_exit_unreaped(proc.pid, limit):
                    status = "timed_out"
            finally:
                # Kill the whole group - also descendants a finished agent left behind - while
                # the unreaped leader still holds the group id, then reap the leader.
                kill_group(proc.pid)
                proc.wait()
        code = proc.returncode
        if status == "completed" and code != 0:
            status = "crashed"
        answer, size = read_capped(stdout_path)
        notes = [truncation_note(f"turn {n} stdout", size)] if size is not None else []
        own_output = ws.path / "output.txt"
        if (n == 1 and workspace_problem(ws) is None and own_output.is_file()
                and not own_output.is_symlink()):
            answer, size = read_capped(own_output)
            if size is not None:
                notes.append(truncation_note("output.txt", size))
        return {"answer": answer, "notes": notes, "exit_code": code, "status": status,
                "duration_s": round(time.monotonic() - started, 3)}

    @staticmethod
    def _collect_usage(ws: Workspace, n: int, usage: dict[str, Any]) -> None:
        path = ws.runner_dir / USAGE_FILE
        if runner_dir_problem(ws) is not None or not path.is_file() or path.is_symlink():
            return
        text, size = read_capped(path, 64 * 1024)
        try:
            raw = orjson.loads(text) if size is None else {
                "parse_error": f"{USAGE_FILE} is {size} bytes (at most 65536 are read)"}
        except orjson.JSONDecodeError as exc:
            raw = {"parse_error": str(exc)}
        path.rename(ws.runner_dir / f"usage-turn-{n}.json")
        usage["reported"].append({"source": "usage.json", "turn": n, "raw": raw})
        if isinstance(raw, dict):
            for key in USAGE_KEYS:
                add_usage(usage, key, raw.get(key))
