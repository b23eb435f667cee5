"""Checks that a detector pattern compiles and stays inside RE2 syntax.

Detectors run as RE2 regular expressions (DuckDB's ``regexp_matches``), so Python-only
constructs are rejected at validation time: lookaround, backreferences, atomic groups,
possessive quantifiers and ``\\Z`` get a named message; anything else RE2 refuses is caught by
compiling the pattern with DuckDB's RE2 itself. A pattern must also compile with Python's
``re`` (which the judge's Python side may use).
"""

from __future__ import annotations

import re
import threading
import warnings
from functools import lru_cache

import duckdb

from rcaeval._paths import read_statement

_LOCK = threading.Lock()


@lru_cache(maxsize=1)
def _re2() -> duckdb.DuckDBPyConnection:
    return duckdb.connect(":memory:")


@lru_cache(maxsize=4096)
def _re2_compile_error(pattern: str) -> str | None:
    with _LOCK:
        try:
            _re2().execute(read_statement("registry/re2_compile.sql"),
                           {"pattern": pattern}).fetchall()
        except duckdb.Error as exc:
            msg = str(exc).split("Error: ", 1)[-1]
            return f"pattern {pattern!r} is not valid RE2: {msg}"
    return None

_GROUP_PREFIXES = {
    "(?=": "lookahead '(?='",
    "(?!": "negative lookahead '(?!'",
    "(?<=": "lookbehind '(?<='",
    "(?<!": "negative lookbehind '(?<!'",
    "(?>": "atomic group '(?>'",
    "(?P=": "named backreference '(?P='",
    "(?(": "conditional group '(?('",
    "(?#": "comment group '(?#'",
}


def re2_problem(pattern: str) -> str | None:
    """Why ``pattern`` is not a usable RE2 pattern, or None when it is fine."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            re.compile(pattern)
    except re.error as exc:
        return f"pattern {pattern!r} does not compile: {exc}"
    i = 0
    n = len(pattern)
    in_class = False
    prev_quant = False
    while i < n:
        ch = pattern[i]
        if ch == "\\" and i + 1 < n:
            nxt = pattern[i + 1]
            if not in_class and nxt.isdigit() and nxt != "0":
                return f"pattern {pattern!r} uses a backreference '\\{nxt}', which RE2 lacks"
            if nxt == "Z":
                return f"pattern {pattern!r} uses '\\Z', which RE2 lacks (use '$')"
            i += 2
            prev_quant = False
            continue
        if in_class:
            if ch == "]":
                in_class = False
            i += 1
            continue
        if ch == "[":
            in_class = True
            # a ']' right after '[' or '[^' is a literal
            j = i + 1
            if j < n and pattern[j] == "^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            i = j
            prev_quant = False
            continue
        if ch == "(":
            for prefix, name in _GROUP_PREFIXES.items():
                if pattern.startswith(prefix, i):
                    return f"pattern {pattern!r} uses a {name}, which RE2 lacks"
        if ch == "+" and prev_quant:
            return f"pattern {pattern!r} uses a possessive quantifier, which RE2 lacks"
        prev_quant = ch in "*+?}"
        i += 1
    return _re2_compile_error(pattern)
