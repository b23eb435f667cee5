"""The Wilson score interval for a binomial proportion."""

from __future__ import annotations

from statistics import NormalDist

from rcaeval.stats._counts import check_counts

DEFAULT_CONFIDENCE = 0.95
"""Two-sided confidence level of every interval rcaeval reports unless told otherwise."""


def wilson_interval(
    successes: int, n: int, confidence: float = DEFAULT_CONFIDENCE
) -> tuple[float | None, float | None]:
    """Wilson score interval for ``successes`` out of ``n`` at ``confidence`` (two-sided).

    Returns ``(None, None)`` when ``n == 0``: an empty denominator has no interval, and
    callers report it as such rather than dividing by zero. Unlike the normal approximation,
    the Wilson interval stays inside [0, 1] and is informative at 0/n and n/n.
    """
    check_counts("wilson_interval", successes=successes, n=n)
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"wilson_interval: need 0 <= successes <= n, got {successes}/{n}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"wilson_interval: confidence must be in (0, 1), got {confidence}")
    if n == 0:
        return (None, None)
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    p = successes / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denom
    half = (z / denom) * ((p * (1.0 - p) / n + z2 / (4.0 * n * n)) ** 0.5)
    lo = max(0.0, centre - half)
    hi = min(1.0, centre + half)
    # exact ends: 0/n has lower bound 0, n/n upper bound 1 (avoid 1e-17 float noise)
    if successes == 0:
        lo = 0.0
    if successes == n:
        hi = 1.0
    return (lo, hi)
