"""The exact paired McNemar test: do two systems scored on the same cases differ?"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rcaeval.stats._counts import check_counts


@dataclass(frozen=True)
class McNemarResult:
    """Discordant counts and the exact two-sided p-value.

    ``b``: cases system A got right and B got wrong; ``c``: B right and A wrong. Concordant
    cases (both right, both wrong) carry no information about which system is better and do
    not enter the test; they are kept here so a report can show the whole 2x2 table.
    """

    b: int
    c: int
    p_value: float
    both: int = 0
    neither: int = 0

    @property
    def discordant(self) -> int:
        return self.b + self.c

    @property
    def n(self) -> int:
        return self.b + self.c + self.both + self.neither


def mcnemar_exact(b: int, c: int) -> float:
    """Exact two-sided McNemar p-value for ``b`` and ``c`` discordant pairs.

    Under the null hypothesis each discordant pair is equally likely to favour either system,
    so ``min(b, c)`` follows Binomial(b + c, 1/2); the two-sided p-value is twice the lower tail,
    capped at 1. With no discordant pair the systems cannot be told apart: p = 1. Computed with
    exact integer arithmetic (no normal approximation, no continuity correction).
    """
    check_counts("mcnemar_exact", b=b, c=c)
    if b < 0 or c < 0:
        raise ValueError(f"mcnemar_exact: counts must be >= 0, got b={b}, c={c}")
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    term = 1  # C(n, 0)
    tail = 1
    for i in range(k):
        term = term * (n - i) // (i + 1)  # C(n, i + 1), exact
        tail += term
    # int / int is correctly rounded even when both exceed the float range.
    return min(1.0, (2 * tail) / (1 << n))


def mcnemar_paired(a_correct: Iterable[bool], b_correct: Iterable[bool]) -> McNemarResult:
    """The exact McNemar test over two equally long sequences of per-case correctness, paired
    by position (case i of A with case i of B)."""
    a = list(a_correct)
    b = list(b_correct)
    if len(a) != len(b):
        raise ValueError(f"mcnemar_paired: {len(a)} results for A but {len(b)} for B")
    only_a = sum(1 for x, y in zip(a, b, strict=True) if x and not y)
    only_b = sum(1 for x, y in zip(a, b, strict=True) if y and not x)
    both = sum(1 for x, y in zip(a, b, strict=True) if x and y)
    neither = len(a) - only_a - only_b - both
    return McNemarResult(b=only_a, c=only_b, p_value=mcnemar_exact(only_a, only_b),
                         both=both, neither=neither)
