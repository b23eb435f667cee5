"""The one formatting helper for numbers shown to people: report pages (table cells, banners),
the release gate notebook and the terminal tables. No raw floats (``0.9682142857142857``),
counts as integers (``1``, not ``1.0``), booleans as ``true`` / ``false`` (also a boolean
metric stored as ``1.0``), scores with two decimals, rates with three.

    display_value(0.9682142857142857, kind="rate")   -> "0.968"
    display_value(1.0, kind="count")                 -> "1"
    display_value(1.0, kind="bool")                  -> "true"
    display_value(40.75, column="mean_score")        -> "40.75"
"""

from __future__ import annotations

import math
from typing import Any

SCORE_WORDS = ("score",)
"""A column whose name contains one of these holds scores (two decimals; ``*delta*`` signed)."""
RATE_WORDS = ("rate", "ci_low", "ci_high", "share", "precision", "recall", "top1")
"""A column whose name contains one of these holds a 0..1 rate (three decimals)."""
COUNT_WORDS = ("cases", "count", "passed", "runs", "captures", "sample_size", "n_", "total",
               "better", "worse", "same", "regressed", "attempts", "tokens")
"""A column whose name contains one of these holds counts (integers)."""
P_WORDS = ("p_value", "pvalue")


def _kind_of(column: str | None) -> str | None:
    if not column:
        return None
    name = column.lower()
    if name in ("p", *P_WORDS):
        return "p"
    for kind, words in (("score", SCORE_WORDS), ("rate", RATE_WORDS),
                        ("count", COUNT_WORDS)):
        if any(w in name for w in words):
            return kind
    return None


def display_value(value: Any, *, kind: str | None = None, column: str | None = None,
                  missing: str = "-") -> str:
    """``value`` as text for a person. ``kind`` (a release metric kind: ``rate``, ``count``,
    ``bool``, ``value``; or ``score``, ``p``) decides the format; without it the ``column``
    name does (``*score*``, ``*rate*``, ``cases``, ...). ``missing`` stands for None / NaN.

    bool -> ``true``/``false``; kind ``bool`` -> ``true``/``false`` for 1/0; counts and
    integral floats of kind ``count`` -> ``1,378``; scores -> ``40.75`` (a ``*delta*`` column
    signed, ``+5.00``); rates -> ``0.968``; p-values -> four significant digits; any other
    float -> at most three decimals, trailing zeros dropped (``8.554``, ``1``)."""
    if value is None:
        return missing
    if isinstance(value, bool):
        return "true" if value else "false"
    kind = kind or _kind_of(column)
    if not isinstance(value, int | float):
        return str(value)
    if isinstance(value, float) and math.isnan(value):
        return missing
    if kind == "bool":
        return "true" if value else "false"
    if kind == "score":
        if column and "delta" in column.lower():
            return "0.00" if abs(value) < 0.005 else f"{value:+.2f}"
        return f"{value:.2f}"
    if kind == "rate" and isinstance(value, float):
        return f"{value:.3f}"
    if kind == "p":
        return f"{value:.4g}"
    if isinstance(value, int) or (kind == "count" and float(value).is_integer()):
        return f"{int(value):,}"
    if float(value).is_integer():
        return f"{int(value)}"
    return f"{value:.3f}".rstrip("0").rstrip(".")
