"""Agent names: the short label a run carries in ``eval_runs.agent_name`` (``rcaeval run
--agent-name``), which reports and charts group by instead of the raw ``--agent`` spec.

The default is the *program* the spec runs, never the interpreter or launcher in front of it:
interpreters (``{python}``, ``python3.11``, ``node``, …) with their options, launchers (``env``,
``uv run``, ``npx``, ``timeout 600``, …), environment assignments (``FOO=1``) and shells'
``-c '…'`` forms (the first real command of the script) are looked through. A name is derived
when a run is created; runs already in a store keep the name they were stored with.
"""

from __future__ import annotations

import re
import shlex
from pathlib import PurePath

from rcaeval.errors import InputError
from rcaeval.runner._agents import PROFILES

MAX_AGENT_NAME = 80

_PYTHON = "{python}"  # rcaeval.runner._agents.PYTHON_PLACEHOLDER (this module imports nothing)
_INTERPRETER = re.compile(r"^(python|pypy|node|deno|bun|ruby|perl|php|java|Rscript)[0-9.]*$")
_SHELL = re.compile(r"^(sh|bash|zsh|dash|ksh|fish)$")
_LAUNCHER = {"env", "exec", "nohup", "nice", "timeout", "time", "stdbuf", "uv", "uvx", "npx",
             "pnpx", "bunx", "pipx", "poetry", "pdm", "hatch", "npm", "pnpm", "yarn"}
_RUNNER_WORDS = {"run", "exec", "x"}  # `uv run X`, `npm exec X`, `bun x X`, `poetry run X`
_SHELL_BUILTINS = {"cd", "export", "set", "source", ".", "unset", "true", ":", "umask", "ulimit"}
_VALUE_OPTS: dict[str, set[str]] = {
    "python": {"-X", "-W", "-Q"}, "pypy": {"-X", "-W"},
    "node": {"-r", "--require", "--import", "--loader"},
    "java": {"-cp", "-classpath", "--class-path"},
    "env": {"-u", "--unset", "-C", "--chdir"},
    "uv": {"--with", "--python", "-p", "--from", "--project", "--directory", "--package",
           "--with-requirements", "--env-file"},
    "npx": {"-p", "--package"}, "timeout": {"-s", "--signal", "-k", "--kill-after"},
    "nice": {"-n", "--adjustment"},
}
_VALUE_OPTS["uvx"] = _VALUE_OPTS["uv"]
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_DURATION = re.compile(r"^[0-9.]+[smhd]?$")


def _tool(word: str) -> str:
    """The kind of a word in command position: its basename without version digits."""
    base = PurePath(word).name
    if word == _PYTHON or base == _PYTHON:
        return "python"
    m = _INTERPRETER.match(base)
    return m.group(1) if m else base


def _label(word: str) -> str:
    """A program word as a name: basename, without extension or an npm ``@version``."""
    base = PurePath(word).name
    if "@" in base[1:]:
        base = base[0] + base[1:].split("@", 1)[0]
    return PurePath(base).stem or base


def _script_commands(script: str) -> list[list[str]]:
    """A shell script's simple commands (split at ``;``, ``&&``, ``||``, ``|``, newlines)."""
    lex = shlex.shlex(script.replace("\n", ";"), posix=True, punctuation_chars=";&|")
    lex.whitespace_split = True
    out: list[list[str]] = [[]]
    for tok in lex:
        if tok and set(tok) <= set(";&|"):
            out.append([])
        else:
            out[-1].append(tok)
    return [c for c in out if c]


def _program(argv: list[str], depth: int = 0) -> str | None:
    """The name of the program ``argv`` runs, or ``None`` when there is none to name."""
    tool: str | None = None  # the interpreter or launcher in front, when one was seen
    positional_to_skip = 0
    i = 0
    while i < len(argv):
        word = argv[i]
        if tool is None and _ASSIGNMENT.match(word):
            i += 1
            continue
        if word.startswith("-") and tool is not None:
            if word == "-m" and tool in ("python", "pypy") and i + 1 < len(argv):
                return argv[i + 1].rsplit(".", 1)[-1] or None
            if word == "-jar" and tool == "java" and i + 1 < len(argv):
                return _label(argv[i + 1])
            if word == "-c" and _SHELL.match(tool) and i + 1 < len(argv) and depth < 3:
                return _shell_program(argv[i + 1], depth)
            if word in ("-c", "-e", "--eval") and tool not in _LAUNCHER:
                return None  # inline code: no program to name
            i += 2 if word in _VALUE_OPTS.get(tool, ()) else 1
            continue
        if tool in _LAUNCHER and (_ASSIGNMENT.match(word) or word in _RUNNER_WORDS):
            i += 1
            continue
        if positional_to_skip and _DURATION.match(word):
            positional_to_skip -= 1
            i += 1
            continue
        kind = _tool(word)
        if _INTERPRETER.match(kind) or _SHELL.match(kind) or kind in _LAUNCHER:
            tool = kind
            positional_to_skip = 1 if kind == "timeout" else 0
            i += 1
            continue
        return _label(word)
    return None


def _shell_program(script: str, depth: int) -> str | None:
    try:
        commands = _script_commands(script)
    except ValueError:
        return None
    for cmd in commands:
        if cmd[0] in _SHELL_BUILTINS:
            continue
        name = _program(cmd, depth + 1)
        if name:
            return name
    return None


def default_agent_name(spec: str) -> str:
    """The name a run gets without ``--agent-name``: ``replay:thorough`` -> ``thorough``;
    for ``command:``/``acp:`` the program behind interpreters, launchers, environment
    assignments and ``sh -c``, without path or extension
    (``acp:{python} -m rcaeval.examples.example_agent`` -> ``example_agent``,
    ``command:./agents/triage.sh --fast`` -> ``triage``,
    ``command:sh -c 'opencode run "$(cat "$RCAEVAL_PROMPT_FILE")"'`` -> ``opencode``; a profile
    ``opencode:anthropic/claude-sonnet-4-5`` -> ``opencode anthropic/claude-sonnet-4-5``). When no
    program can be named (``{python} -c '…'``), the command line with ``{python}`` written as
    ``python``; at most :data:`MAX_AGENT_NAME` characters."""
    kind, _, rest = spec.partition(":")
    rest = rest.strip()
    if kind == "replay":
        return (rest or spec)[:MAX_AGENT_NAME]
    if kind in PROFILES:  # a harness profile: the harness and its model
        return (f"{kind} {rest}" if rest else kind)[:MAX_AGENT_NAME]
    try:
        name = _program(shlex.split(rest))
    except ValueError:
        name = None
    return (name or rest.replace(_PYTHON, "python") or spec)[:MAX_AGENT_NAME]


def check_agent_name(name: str) -> str:
    """``name`` stripped; :class:`InputError` (field ``--agent-name``) when it is empty, longer
    than :data:`MAX_AGENT_NAME` or holds control characters."""
    clean = name.strip()
    if not clean or len(clean) > MAX_AGENT_NAME or any(ord(ch) < 32 for ch in clean):
        raise InputError(f"bad agent name {name!r}: expected 1..{MAX_AGENT_NAME} printable "
                         "characters", field="--agent-name")
    return clean
