"""Statistics shared by reports, offline evaluation and the release gate: one home for the
interval and test formulas so every rate in rcaeval carries the same kind of interval.

    from rcaeval.stats import wilson_interval, mcnemar_exact, no_information_baseline
    wilson_interval(22, 23)                       # (lower, upper) at 95%
    mcnemar_exact(b=9, c=2)                       # exact two-sided p-value, 0.0654...
    no_information_baseline(["db", "db", "net"])  # NoInfoBaseline(label='db', hits=2, n=3)
    fisher_exact_lower(9, 10, 12, 30)             # one-sided p that 12/30 is below 9/10
"""

from __future__ import annotations

from rcaeval.stats._fisher import fisher_exact_lower
from rcaeval.stats._kappa import cohen_kappa
from rcaeval.stats._mcnemar import McNemarResult, mcnemar_exact, mcnemar_paired
from rcaeval.stats._noinfo import NoInfoBaseline, no_information_baseline
from rcaeval.stats._wilson import DEFAULT_CONFIDENCE, wilson_interval

__all__ = ["DEFAULT_CONFIDENCE", "McNemarResult", "NoInfoBaseline", "cohen_kappa",
           "fisher_exact_lower", "mcnemar_exact", "mcnemar_paired", "no_information_baseline",
           "wilson_interval"]
