"""The one timestamp rule of the release formats (captures, reviews, windows, artifacts):
RFC 3339 / ISO 8601 text, parsed to UTC. docs/release.md ("Timestamps").

Accepted: ``YYYY-MM-DD`` (midnight), or ``YYYY-MM-DD[T|t|space]HH:MM[:SS[.fraction]]`` with an
optional offset ``Z``/``z`` or ``±HH:MM`` / ``±HHMM``. A four-digit year (0001-9999), an offset
of at most 23:59 (RFC 3339), a time without an offset is UTC. ``T`` and ``Z`` may be lower
case (RFC 3339, section 5.6). Anything else -- a five-digit year, ``+25:00``, a number of
seconds, a leap second -- is refused, naming the field. DuckDB's own cast is more lenient
(it accepts ``+25:00`` and year 99999), so the SQL checks match :data:`TIMESTAMP_PATTERN`
first (it is passed to the capture queries as ``$timestamp_pattern``).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

TIMESTAMP_PATTERN = (
    r"[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
    r"([Tt ]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\.[0-9]{1,9})?)?"
    r"([Zz]|[+-]([01][0-9]|2[0-3]):?[0-5][0-9])?)?"
)
"""A timestamp the release formats accept (full match; RE2- and Python-compatible)."""
_TIMESTAMP = re.compile(TIMESTAMP_PATTERN)
_FRACTION = re.compile(r"(\.[0-9]{6})[0-9]+")
_COMPACT_OFFSET = re.compile(r"([+-][0-9]{2})([0-9]{2})$")


def parse_timestamp(value: object) -> datetime:
    """``value`` (a string following :data:`TIMESTAMP_PATTERN`) as an aware UTC datetime;
    ValueError (with the reason) otherwise."""
    if not isinstance(value, str):
        raise ValueError(f"must be an ISO 8601 timestamp string, got {type(value).__name__}")
    text = value.strip()
    if not _TIMESTAMP.fullmatch(text):
        raise ValueError(f"not an ISO 8601 / RFC 3339 timestamp: {value!r} (YYYY-MM-DDTHH:MM:SS"
                         " with Z or an offset of at most ±23:59, a 4-digit year)")
    norm = _FRACTION.sub(r"\1", text.upper())
    norm = _COMPACT_OFFSET.sub(r"\1:\2", norm) if len(norm) > 10 else norm
    try:
        t = datetime.fromisoformat(norm.replace("Z", "+00:00"))
        return t.replace(tzinfo=UTC) if t.tzinfo is None else t.astimezone(UTC)
    except (ValueError, OverflowError) as exc:
        raise ValueError(f"not a valid timestamp: {value!r} ({exc})") from exc


def iso_utc(t: datetime) -> str:
    """``t`` in UTC as ``YYYY-MM-DDTHH:MM:SS[.ffffff]Z``."""
    return t.astimezone(UTC).isoformat().replace("+00:00", "Z")
