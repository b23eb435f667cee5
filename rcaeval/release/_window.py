"""The incident window of a measurement: ``START..END`` on ``captured_at``, half-open."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from rcaeval.errors import InputError


@dataclass(frozen=True)
class Window:
    """``start <= captured_at < end`` (UTC). ``spec`` is what the user wrote."""

    start: datetime
    end: datetime
    spec: str

    def as_dict(self) -> dict[str, Any]:
        return {"start": _iso(self.start), "end": _iso(self.end), "spec": self.spec,
                "end_exclusive": True}


def _iso(t: datetime) -> str:
    return t.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _parse_point(text: str, *, is_end: bool, spec: str) -> datetime:
    text = text.strip()
    field = "window.end" if is_end else "window.start"
    if not text:
        raise InputError(f"window {spec!r}: missing {'END' if is_end else 'START'}; "
                         "write START..END", field=field)
    try:
        if len(text) == 10:  # a date: the whole day
            d = date.fromisoformat(text)
            t = datetime(d.year, d.month, d.day, tzinfo=UTC)
            return t + timedelta(days=1) if is_end else t
        t = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise InputError(f"window {spec!r}: {text!r} is not an ISO date or timestamp",
                         field=field) from exc
    return t.replace(tzinfo=UTC) if t.tzinfo is None else t.astimezone(UTC)


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
