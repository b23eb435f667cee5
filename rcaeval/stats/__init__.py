"""Statistics shared by reports, offline evaluation and the release gate: one home for the
interval and test formulas so every rate in rcaeval carries the same kind of interval.

    from rcaeval.stats import wilson_interval
    wilson_interval(22, 23)          # (lower, upper) at 95%
"""

from __future__ import annotations

from rcaeval.stats._wilson import DEFAULT_CONFIDENCE, wilson_interval

__all__ = ["DEFAULT_CONFIDENCE", "wilson_interval"]
