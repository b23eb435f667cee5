"""The statistics take counts: a NaN or infinite count is an error naming the function and
the argument, never a made-up interval or p-value (a NaN passes every range check, since
each comparison with NaN is false)."""

from __future__ import annotations

import pytest

from rcaeval.stats import cohen_kappa, fisher_exact_lower, mcnemar_exact, wilson_interval

NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize("call,arg", [
    (lambda v: wilson_interval(v, 10), "successes"),
    (lambda v: wilson_interval(1, v), "n"),
    (lambda v: fisher_exact_lower(v, 10, 1, 10), "successes_a"),
    (lambda v: fisher_exact_lower(1, 10, 1, v), "n_b"),
    (lambda v: mcnemar_exact(v, 1), "b"),
    (lambda v: cohen_kappa(1, v, 1, 1), "a_yes_b_no"),
])
@pytest.mark.parametrize("value", [NAN, INF, -INF, 2.5])
def test_non_whole_counts_are_rejected(call, arg, value):
    with pytest.raises(ValueError, match=f"{arg} must be a whole number"):
        call(value)


def test_integral_floats_still_count():
    assert wilson_interval(2.0, 4.0) == wilson_interval(2, 4)


def test_nan_confidence_is_rejected():
    with pytest.raises(ValueError, match="confidence"):
        wilson_interval(1, 10, NAN)
