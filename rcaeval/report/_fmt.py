"""Fixed number, time and text formats shared by the reports and the baseline diff.

Every renderer goes through these so the same store always yields byte-identical text.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

NA = "-"


def fmt_score(value: float | None) -> str:
    """A score with two decimals (``85.00``), or ``-``."""
    return NA if value is None else f"{value:.2f}"


def fmt_delta(value: float | None) -> str:
    """A signed score delta (``+5.00`` / ``-30.00`` / ``0.00``), or ``-``."""
    if value is None:
        return NA
    if abs(value) < 0.005:
        return "0.00"
    return f"{value:+.2f}"


def fmt_int(value: int | None) -> str:
    """An integer with thousands separators (``12,345``), or ``-``."""
    return NA if value is None else f"{int(value):,}"


def fmt_cost(value: float | None) -> str:
    """A cost in USD with four decimals (``$0.1234``), or ``-``."""
    return NA if value is None else f"${value:.4f}"


def fmt_ts(value: datetime | None) -> str:
    """A timestamp in UTC, ISO-8601 with ``Z`` and whole seconds, or ``-``."""
    if value is None:
        return NA
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def fmt_duration(seconds: float | None) -> str:
    """``12.3s`` under a minute, ``4m05s`` under an hour, else ``1h02m03s``; or ``-``."""
    if seconds is None:
        return NA
    if seconds < 60:
        return f"{seconds:.1f}s"
    whole = int(round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m{secs:02d}s"
    return f"{minutes}m{secs:02d}s"


def one_line(text: str | None, limit: int = 160) -> str:
    """``text`` on one line (whitespace collapsed), cut to ``limit`` characters with ``…``."""
    if not text:
        return ""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def table(header: Sequence[str], rows: Sequence[Sequence[Any]], *, right: set[int] | None = None,
          indent: str = "") -> list[str]:
    """Rows as a fixed-width text table (columns sized to their widest cell; ``right``: the
    column indexes aligned right). Trailing spaces are stripped."""
    right = right or set()
    cells = [[str(c) for c in header]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    out: list[str] = []
    for row in cells:
        parts = [c.rjust(w) if i in right else c.ljust(w)
                 for i, (c, w) in enumerate(zip(row, widths, strict=True))]
        out.append((indent + "  ".join(parts)).rstrip())
    return out
