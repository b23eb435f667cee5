"""Fisher's exact test for two binomial proportions (one-sided: is the second lower?)."""

from __future__ import annotations

from math import exp, lgamma

from rcaeval.stats._counts import check_counts


def _log_comb(n: int, k: int) -> float:
    return lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1)


def fisher_exact_lower(successes_a: int, n_a: int, successes_b: int, n_b: int) -> float:
    """One-sided p-value of Fisher's exact test that B's success rate is lower than A's.

    Conditional on the total number of successes, the count of B's successes is
    hypergeometric; the p-value is the probability of B having ``successes_b`` or fewer.
    Small p (e.g. < 0.05) means B's rate is significantly lower than A's. An empty side
    (``n_a == 0`` or ``n_b == 0``) gives 1.0: no evidence of anything.
    """
    check_counts("fisher_exact_lower", successes_a=successes_a, n_a=n_a,
                 successes_b=successes_b, n_b=n_b)
    for s, n in ((successes_a, n_a), (successes_b, n_b)):
        if n < 0 or s < 0 or s > n:
            raise ValueError(f"fisher_exact_lower: need 0 <= successes <= n, got {s}/{n}")
    if n_a == 0 or n_b == 0:
        return 1.0
    total, hits = n_a + n_b, successes_a + successes_b
    lo = max(0, hits - n_a)
    denom = _log_comb(total, n_b)
    p = 0.0
    for x in range(lo, successes_b + 1):
        p += exp(_log_comb(hits, x) + _log_comb(total - hits, n_b - x) - denom)
    return min(1.0, max(0.0, p))
