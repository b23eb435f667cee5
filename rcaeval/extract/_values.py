"""Lenient scalar coercions shared by the flatteners (timestamps, text, numbers)."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any

import orjson

_BRACKET_DATE = re.compile(
    r"^(\d{4})/(\d{2})/(\d{2})[ T](\d{2}:\d{2}:\d{2}(?:[.,]\d+)?)\s*([+-]\d{2}:?\d{2}|Z)?$"
)
_SPACE_OFFSET = re.compile(r"\s+(?=(?:[+-]\d{2}:?\d{2}|Z)$)")
_FRACTION = re.compile(r"([.,])(\d{7,})")


def _from_epoch(value: float) -> datetime | None:
    if not math.isfinite(value):
        return None
    if abs(value) > 1e14:
        value /= 1e6
    elif abs(value) > 1e11:
        value /= 1e3
    try:
        return datetime.fromtimestamp(value, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None


def parse_ts(value: Any) -> datetime | None:
    """An aware UTC datetime from ISO-8601 text (naive ⇒ UTC), ``YYYY/MM/DD hh:mm:ss[.f]
    [+hh:mm]`` text, or epoch seconds/milliseconds; ``None`` when unrecognisable."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return _from_epoch(float(value))
    if not isinstance(value, str):
        return None
    return _parse_ts_text(value)


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROS: dict[Any, int | None] = {}
_MICROS_MAX = 1 << 16


def ts_micros(value: Any) -> int | None:
    """:func:`parse_ts` as microseconds since the epoch (what Arrow's ``timestamp('us')``
    stores), cached by value: a metrics file repeats each timestamp in every series."""
    if type(value) is bool:  # True == 1 as a dict key; parse_ts refuses booleans
        return None
    try:
        return _MICROS[value]
    except KeyError:
        pass
    except TypeError:  # unhashable (a list or object where a timestamp belongs)
        return None
    dt = parse_ts(value)
    micros = None if dt is None else (dt - _EPOCH) // timedelta(microseconds=1)
    if len(_MICROS) < _MICROS_MAX:
        _MICROS[value] = micros
    return micros


@lru_cache(maxsize=8192)
def _parse_ts_text(value: str) -> datetime | None:
    """:func:`parse_ts` of a string (cached: timestamps repeat across series and lines;
    datetimes are immutable)."""
    s = value.strip()
    if not s:
        return None
    m = _BRACKET_DATE.match(s)
    if m:
        y, mo, d, hms, off = m.groups()
        s = f"{y}-{mo}-{d}T{hms}{off or ''}"
    s = _SPACE_OFFSET.sub("", s)
    s = _FRACTION.sub(lambda mm: mm.group(1) + mm.group(2)[:6], s)  # >µs precision: truncate
    try:
        dt = datetime.fromisoformat(s)
    except ValueError:
        try:
            return _from_epoch(float(s))
        except ValueError:
            return None
    if dt.tzinfo is None:
        return dt.replace(tzinfo=UTC)
    try:
        return dt.astimezone(UTC)
    except (OverflowError, ValueError):
        return None


def text(value: Any) -> str | None:
    """Scalars as text (booleans ``true``/``false``), containers as compact JSON."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value) if isinstance(value, float) else str(value)
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode("utf-8")
    except TypeError:
        return str(value)


def number(value: Any) -> float | None:
    """A finite float from a JSON number or numeric string; ``None`` otherwise."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        f = float(value)
    elif isinstance(value, str):
        try:
            f = float(value.strip())
        except ValueError:
            return None
    else:
        return None
    return f if math.isfinite(f) else None


def measurement(value: Any) -> float | None:
    """A metric point's value: a float from a JSON number or numeric string, kept when it is
    not finite (``NaN``, ``Infinity``, and the ``"NaN"`` / ``"+Inf"`` / ``"-Inf"`` strings a
    Prometheus API writes); ``None`` for anything non-numeric. The judge never compares a
    non-finite value with a threshold (docs/judge.md "Non-finite metric points")."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


def integer(value: Any) -> int | None:
    """An int from a JSON integer, integral float or integer string; ``None`` otherwise."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value if -(2**63) <= value < 2**63 else None
    f = number(value)
    if f is None or not f.is_integer() or abs(f) >= 2**63:
        return None
    return int(f)


def list_of(obj: Any, key: str) -> list[Any] | None:
    """``obj`` itself when it is a list, else ``obj[key]`` when that is a list, else None."""
    if isinstance(obj, list):
        return obj
    if isinstance(obj, dict) and isinstance(obj.get(key), list):
        return obj[key]
    return None


def object_items(obj: Any, key: str, notes: list[str] | None) -> list[tuple[int, dict[str, Any]]]:
    """``(index, item)`` for the object items of :func:`list_of` ``(obj, key)``. A missing list
    and skipped non-object items are recorded in ``notes`` (they become raw_file details)."""
    items = list_of(obj, key)
    if items is None:
        if notes is not None:
            notes.append(f"no '{key}' list")
        return []
    out = [(i, item) for i, item in enumerate(items) if isinstance(item, dict)]
    skipped = len(items) - len(out)
    if skipped and notes is not None:
        notes.append(f"skipped {skipped} {key} that are not objects")
    return out
