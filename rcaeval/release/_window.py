"""The incident window of a measurement: ``START..END`` on ``captured_at``, half-open."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from rcaeval.errors import InputError
from rcaeval.release._time import iso_utc, parse_timestamp

END_OF_TIME = datetime.max.replace(tzinfo=UTC)
"""The end of a window whose END date is 9999-12-31 (the day after is not representable)."""


@dataclass(frozen=True)
class Window:
    """``start <= captured_at < end`` (UTC). ``spec`` is what the user wrote."""

    start: datetime
    end: datetime
    spec: str

    def as_dict(self) -> dict[str, Any]:
        return {"start": iso_utc(self.start), "end": iso_utc(self.end), "spec": self.spec,
                "end_exclusive": True}


def _parse_point(text: str, *, is_end: bool, spec: str) -> datetime:
    text = text.strip()
    field = "window.end" if is_end else "window.start"
    if not text:
        raise InputError(f"window {spec!r}: missing {'END' if is_end else 'START'}; "
                         "write START..END", field=field)
    try:
        t = parse_timestamp(text)
    except ValueError as exc:
        raise InputError(f"window {spec!r}: {exc}",
                         field=field) from exc
    if len(text) == 10 and is_end:  # a date: the whole day
        # the last representable day ends at the last representable instant (9999-12-31
        # 23:59:59.999999 UTC), which no capture can follow
        return t + timedelta(days=1) if t.date() < date.max else END_OF_TIME
    return t


def parse_window(spec: str | tuple[Any, Any] | Window) -> Window:
    """``"2026-11-01..2026-11-07"`` (dates: the END day is included), or timestamps
    ``"2026-11-01T00:00Z..2026-11-08T00:00Z"`` (END excluded), or a ``(start, end)`` pair of
    datetimes/dates/strings. Naive times are UTC."""
    if isinstance(spec, Window):
        return spec
    if isinstance(spec, tuple):
        parts = [p.isoformat() if isinstance(p, date | datetime) else str(p) for p in spec]
        if len(parts) != 2:
            raise InputError("window must be (start, end)", field="window")
        text = f"{parts[0]}..{parts[1]}"
    else:
        text = str(spec)
    if text.count("..") != 1:
        raise InputError(f"window {text!r}: write START..END (e.g. 2026-11-01..2026-11-07)",
                         field="window")
    a, b = text.split("..")
    start = _parse_point(a, is_end=False, spec=text)
    end = _parse_point(b, is_end=True, spec=text)
    if end <= start:
        raise InputError(f"window {text!r}: END must be after START", field="window")
    return Window(start, end, text)
