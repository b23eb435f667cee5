"""What the sandbox mounts for an agent's own program (docs/agents.md, "Sandbox").

Only what the agent's command line *names as its program* is mounted, read-only: the
executable (found on ``PATH`` as the spawn would), its symlink targets, the interpreter of a
``#!`` script (``#!/usr/bin/env node`` too), and for an interpreter the script it is told to
run. A Python interpreter in a virtual environment brings the venv and the base installation
it was made from; a program inside ``node_modules`` brings its package. Any other absolute
path on the command line is an argument, not a mount (a trailing ``/`` once exposed the whole
filesystem): agents that need more declare it with ``--sandbox-bind``.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Sequence
from pathlib import Path

INTERPRETER = re.compile(r"^(python[0-9.]*|pypy[0-9.]*|node|nodejs|deno|bun|ruby[0-9.]*|"
                         r"perl[0-9.]*|php[0-9.]*|bash|sh|dash|zsh|ksh|Rscript|lua[0-9.]*)$")
"""Programs whose first operand is a script to run (and so is mounted with them)."""

_NO_SCRIPT = frozenset({"-c", "-m", "-e", "--eval", "-p", "--print", "-"})
"""Options after which an interpreter runs code from the command line or a module, not a
script file."""

_VALUE_OPTIONS = frozenset({"-W", "-X", "-r", "--require", "--import", "--loader",
                            "--experimental-loader", "-O", "-I", "--conditions"})
"""Interpreter options that take the next word as their value (``python -W ignore x.py``).
``-O``/``-I`` are flags for Python but value options for others: harmless either way, the
operand must still be an existing regular file to be mounted."""

_SHEBANG_MAX = 256
_MAX_DEPTH = 4  # a wrapper's interpreter's interpreter …


def find_program(name: str, path_env: str | None) -> Path | None:
    """``name`` as the spawn finds it: a path as given, else the first match on ``PATH``."""
    if os.sep in name:
        return Path(name) if os.path.isabs(name) and os.path.isfile(name) else None
    found = shutil.which(name, path=path_env if path_env is not None else os.defpath)
    return Path(found) if found else None


def script_operand(argv: Sequence[str]) -> Path | None:
    """The script an interpreter command line runs (``python -u /a/agent.py --x`` ->
    ``/a/agent.py``), when it is an absolute path to a regular file; else ``None``."""
    i = 1
    while i < len(argv):
        word = argv[i]
        if word in _NO_SCRIPT:
            return None
        if word in _VALUE_OPTIONS:
            i += 2
            continue
        if word.startswith("-"):
            i += 1
            continue
        p = Path(word)
        return p if p.is_absolute() and p.is_file() else None
    return None


def _shebang(path: Path) -> list[str]:
    try:
        with open(path, "rb") as fh:
            head = fh.read(_SHEBANG_MAX)
    except OSError:
        return []
    if not head.startswith(b"#!"):
        return []
    line = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").strip()
    return line.split()


def _env_program(words: Sequence[str]) -> str | None:
    """The program ``#!/usr/bin/env [-S] [VAR=v] prog …`` runs."""
    for word in words:
        if word.startswith("-") or "=" in word:
            continue
        return word
    return None


def _venv_of(exe: Path) -> Path | None:
    """The venv ``exe`` lives in (``<venv>/bin/<exe>`` next to ``<venv>/pyvenv.cfg``)."""
    venv = exe.parent.parent
    return venv if exe.parent.name == "bin" and (venv / "pyvenv.cfg").is_file() else None


def _python_home(venv: Path) -> Path | None:
    """The base installation a venv was made from (``home =`` of ``pyvenv.cfg``)."""
    try:
        text = (venv / "pyvenv.cfg").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() == "home" and value.strip():
            return Path(value.strip())
    return None


def _install_prefix(bindir: Path) -> Path | None:
    """``<prefix>`` of an interpreter in ``<prefix>/bin`` when it is a whole installation
    (``<prefix>/lib/python3*`` exists), else ``None``."""
    if bindir.name != "bin":
        return None
    prefix = bindir.parent
    if prefix == Path("/"):
        return None
    lib = prefix / "lib"
    try:
        if any(e.name.startswith(("python", "pypy")) for e in lib.iterdir()):
            return prefix
    except OSError:
        return None
    return None


def _node_package(real: Path) -> Path | None:
    """The package dir (``…/node_modules/<pkg>`` or ``…/node_modules/@scope/<pkg>``) a
    program inside ``node_modules`` belongs to."""
    parts = real.parts
    if "node_modules" not in parts:
        return None
    i = len(parts) - 1 - parts[::-1].index("node_modules")
    if i + 1 >= len(parts) - 1:
        return None
    end = i + 3 if parts[i + 1].startswith("@") else i + 2
    return Path(*parts[:end])


def program_mounts(argv: Sequence[str], path_env: str | None) -> list[Path]:
    """Every path (file or dir) the sandbox mounts read-only so ``argv`` runs as it would
    outside: the program, its symlink targets, its interpreter chain, an interpreter's
    script, a venv and its base installation, a ``node_modules`` package."""
    out: list[Path] = []
    if not argv:
        return out

    def add(p: Path | None) -> None:
        if p is not None and p not in out and p.exists() and p != Path("/"):
            out.append(p)

    def program(name: str, words: Sequence[str], depth: int) -> None:
        exe = find_program(name, path_env)
        if exe is None or depth > _MAX_DEPTH:
            return
        add(exe)
        real = exe.resolve()
        add(real)
        venv = _venv_of(exe)
        if venv is not None:
            add(venv)
            home = _python_home(venv)
            if home is not None:
                add(home)
                add(_install_prefix(home.resolve()))
        add(_install_prefix(real.parent))
        add(_node_package(real))
        if INTERPRETER.match(real.name) or INTERPRETER.match(exe.name):
            add(script_operand(words))
        shebang = _shebang(real)
        if shebang:
            interp = shebang[0]
            if Path(interp).name == "env":
                nxt = _env_program(shebang[1:])
                if nxt is not None:
                    program(nxt, [nxt], depth + 1)
            else:
                program(interp, [interp], depth + 1)

    program(argv[0], argv, 0)
    return out
