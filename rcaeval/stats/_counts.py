"""Count arguments of the statistics: whole numbers, never NaN or infinite."""

from __future__ import annotations

import math
from typing import Any


def check_counts(fn: str, **counts: Any) -> None:
    """Raise ``ValueError`` naming ``fn`` and the argument unless every count is a whole
    number (an ``int``, or an integral finite ``float``). A NaN count would otherwise pass
    every range check (each comparison with NaN is false) and yield a made-up interval or
    p-value; an infinite one an empty interval."""
    for name, value in counts.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or (
                isinstance(value, float) and not (math.isfinite(value) and value.is_integer())):
            raise ValueError(f"{fn}: {name} must be a whole number, got {value!r}")
