"""Agent names: the short label a run carries in ``eval_runs.agent_name`` (``rcaeval run
--agent-name``), which reports and charts group by instead of the raw ``--agent`` spec."""

from __future__ import annotations

import re
import shlex
from pathlib import PurePath

from rcaeval.errors import InputError

MAX_AGENT_NAME = 80
_INTERPRETER = re.compile(r"^(python[0-9.]*|pypy[0-9.]*|node|deno|bun|ruby|perl|bash|sh|zsh|"
                          r"uv|uvx|npx|pipx|poetry|env)$")
_RUNNER_WORDS = {"run", "exec", "x"}  # `uv run X`, `npx X`, `bun x X`, `poetry run X`


def default_agent_name(spec: str) -> str:
    """The name a run gets without ``--agent-name``: ``replay:thorough`` -> ``thorough``;
    for ``command:``/``acp:`` the program behind interpreters and launchers, without path or
    extension (``acp:python -m rcaeval.examples.example_agent`` -> ``example_agent``,
    ``command:./agents/triage.sh --fast`` -> ``triage``); the spec itself when none is found."""
    kind, _, rest = spec.partition(":")
    rest = rest.strip()
    if kind == "replay":
        return rest or spec
    try:
        argv = shlex.split(rest)
    except ValueError:
        return spec
    i = 0
    while i < len(argv):
        word = argv[i]
        base = PurePath(word).name
        if word == "-m" and i + 1 < len(argv):
            return argv[i + 1].rsplit(".", 1)[-1] or spec
        if word.startswith("-") or "=" in word or _INTERPRETER.match(base) \
                or (i > 0 and word in _RUNNER_WORDS):
            i += 1
            continue
        return PurePath(base).stem or base
    return spec


def check_agent_name(name: str) -> str:
    """``name`` stripped; :class:`InputError` (field ``--agent-name``) when it is empty, longer
    than :data:`MAX_AGENT_NAME` or holds control characters."""
    clean = name.strip()
    if not clean or len(clean) > MAX_AGENT_NAME or any(ord(ch) < 32 for ch in clean):
        raise InputError(f"bad agent name {name!r}: expected 1..{MAX_AGENT_NAME} printable "
                         "characters", field="--agent-name")
    return clean
