"""``--window START..END``: the time window of an import or a capture (docs/import.md).

Each end is an RFC 3339 time (``2026-12-01T22:00:00Z``; a time without an offset is UTC),
a Unix time in seconds, ``now``, or ``now-<n><unit>`` with unit ``s``, ``m``, ``h`` or ``d``
(``now-30m..now``)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from rcaeval.errors import InputError

_REL = re.compile(r"^now(?:-(\d+)([smhd]))?$")
_UNIT = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def _end(text: str, now: datetime, what: str) -> datetime:
    text = text.strip()
    try:
        if m := _REL.match(text):
            n, unit = m.groups()
            return now - timedelta(seconds=int(n) * _UNIT[unit]) if n else now
        if re.fullmatch(r"\d+(\.\d+)?", text):
            return datetime.fromtimestamp(float(text), UTC)
        dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
        return (dt if dt.tzinfo else dt.replace(tzinfo=UTC)).astimezone(UTC)
    except (ValueError, OverflowError, OSError):  # also a time before 0001 or past 9999
        raise InputError(f"the window's {what} {text[:80]!r} is not an RFC 3339 time, a Unix "
                         "time, now or now-<n>[smhd] (of a year 1..9999)",
                         field="--window") from None


def parse_window_bounds(text: str, *,
                        now: datetime | None = None) -> tuple[datetime, datetime]:
    """``START..END`` as two aware UTC datetimes (start before end); unlike
    :func:`rcaeval.ingest.parse_window` (ISO-8601 only, a :class:`~rcaeval.ingest.Window`),
    each end may also be a Unix time, ``now`` or ``now-<n>[smhd]``."""
    if text.count("..") != 1:
        raise InputError(f"--window must be START..END, got {text!r}", field="--window")
    at = (now or datetime.now(UTC)).replace(microsecond=0)
    a, b = text.split("..")
    start, end = _end(a, at, "start"), _end(b, at, "end")
    if end <= start:
        raise InputError(f"the window's end {end.isoformat()} is not after its start "
                         f"{start.isoformat()}", field="--window")
    return start, end
