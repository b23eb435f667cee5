"""Agent-reported usage numbers (tokens, cost): untrusted input, validated before it is summed
or stored (docs/agents.md "Usage").

A value counts only when it is a finite, non-negative number within the bound of its kind; a
token count must also be whole. Anything else - a string, ``1e300``, ``-5``, an integer beyond
the bound, a total that grows past it - makes that total ``NULL`` in ``eval_case_runs`` and adds
a note to the case's ``error`` column; the raw report is still kept in the manifest. The bounds
are far above any real run, and well inside DuckDB's ``BIGINT`` / ``DOUBLE``.
"""

from __future__ import annotations

import math
from typing import Any

USAGE_KEYS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens",
              "cost_usd")
"""The normalised usage totals (``eval_case_runs`` columns of the same names)."""

MAX_TOKENS = 10**15
"""Largest token count accepted (per report and per case total)."""
MAX_COST_USD = 1e9
"""Largest cost in USD accepted (per report and per case total)."""

_INT64 = 2**63 - 1


def bound(key: str) -> float:
    return MAX_COST_USD if key == "cost_usd" else MAX_TOKENS


def describe(value: Any) -> str:
    """A short printable form of an untrusted value (never huge)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > _INT64:
        return f"an integer of {len(str(abs(value)))} digits"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def check(key: str, value: Any) -> tuple[int | float | None, str | None]:
    """``(clean value, None)`` for an acceptable report, else ``(None, reason)``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None, f"{key} is not a number ({describe(value)})"
    if isinstance(value, float) and not math.isfinite(value):
        return None, f"{key} is not finite ({describe(value)})"
    if value < 0:
        return None, f"{key} is negative ({describe(value)})"
    if value > bound(key):
        return None, f"{key} is out of range ({describe(value)} > {bound(key):g})"
    if key != "cost_usd":
        if isinstance(value, float) and not value.is_integer():
            return None, f"{key} is not a whole number ({describe(value)})"
        return int(value), None
    return float(value), None


def json_safe(value: Any, depth: int = 0, *, max_depth: int = 64) -> Any:
    """``value`` with what JSON/orjson cannot hold made printable: integers beyond 64 bits and
    non-finite floats become strings, nesting deeper than ``max_depth`` becomes a marker."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return value if abs(value) <= _INT64 else describe(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if depth >= max_depth:
        return "<nested too deeply>"
    if isinstance(value, dict):
        return {str(k): json_safe(v, depth + 1, max_depth=max_depth) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v, depth + 1, max_depth=max_depth) for v in value]
    return str(value)
