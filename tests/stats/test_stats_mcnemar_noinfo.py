"""Exact McNemar test and the no-information baseline, against hand-computed values."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rcaeval.stats import (
    McNemarResult,
    mcnemar_exact,
    mcnemar_paired,
    no_information_baseline,
)


@pytest.mark.parametrize(
    ("b", "c", "expected"),
    [
        # 2 * P(X <= 2), X ~ Bin(11, 1/2) = 2 * (1 + 11 + 55) / 2048
        (9, 2, 134 / 2048),
        (2, 9, 134 / 2048),
        (0, 5, 2 / 32),  # 2 * (1/2)^5
        (3, 0, 2 / 8),
        (1, 1, 1.0),  # 2 * 3/4 capped at 1
        (5, 5, 1.0),
        (0, 0, 1.0),  # no discordant pair: cannot tell the systems apart
        # 2 * (1 + 10 + 45 + 120) / 1024 = 352 / 1024
        (7, 3, 352 / 1024),
        (0, 1, 1.0),
    ],
)
def test_mcnemar_exact_known_values(b: int, c: int, expected: float) -> None:
    assert mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-12)


def test_mcnemar_exact_large_counts_stay_finite_and_exact() -> None:
    # 2000 discordant pairs: 2^2000 overflows a float, the integer arithmetic does not.
    p = mcnemar_exact(900, 1100)
    exact = min(Fraction(1), 2 * Fraction(sum(comb(2000, i) for i in range(901)), 2**2000))
    assert p == pytest.approx(float(exact), rel=1e-12)
    assert 0 < p < 1e-5
    assert mcnemar_exact(25000, 25000) == 1.0


@given(st.integers(0, 60), st.integers(0, 60))
def test_mcnemar_exact_is_symmetric_and_a_probability(b: int, c: int) -> None:
    p = mcnemar_exact(b, c)
    assert p == mcnemar_exact(c, b)
    assert 0.0 < p <= 1.0
    k, n = min(b, c), b + c
    assert p == pytest.approx(min(1.0, 2 * sum(comb(n, i) for i in range(k + 1)) / 2**n))


def test_mcnemar_exact_rejects_negative_counts() -> None:
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 3)


def test_mcnemar_paired_counts_the_two_by_two_table() -> None:
    a = [True, True, True, False, False, True, True]
    b = [True, False, False, False, True, False, True]
    r = mcnemar_paired(a, b)
    assert r == McNemarResult(b=3, c=1, p_value=mcnemar_exact(3, 1), both=2, neither=1)
    assert r.discordant == 4 and r.n == 7
    assert r.p_value == pytest.approx(2 * (1 + 4) / 16)
    with pytest.raises(ValueError, match="3 results for A but 2"):
        mcnemar_paired([True] * 3, [True] * 2)


def test_no_information_baseline_most_frequent_label() -> None:
    base = no_information_baseline(["db", "net", "db", None, "cpu", "db", "net"])
    assert (base.label, base.hits, base.n) == ("db", 3, 6)
    assert base.rate == pytest.approx(0.5)


def test_no_information_baseline_ties_and_empty() -> None:
    # a tie goes to the label that sorts first, whatever the input order
    assert no_information_baseline(["b", "a", "b", "a"]).label == "a"
    assert no_information_baseline(["a", "b", "a", "b"]).label == "a"
    empty = no_information_baseline([None, None])
    assert (empty.label, empty.hits, empty.n, empty.rate) == (None, 0, 0, None)
