"""Cohen's kappa for two raters with binary verdicts."""

from __future__ import annotations

from rcaeval.stats._counts import check_counts


def cohen_kappa(both_yes: int, a_yes_b_no: int, a_no_b_yes: int, both_no: int) -> float | None:
    """Cohen's kappa of a 2x2 confusion table: ``(p_o - p_e) / (1 - p_e)`` with observed
    agreement ``p_o`` and chance agreement ``p_e`` from the raters' marginals.

    Returns ``None`` when it is undefined: no items, or ``p_e == 1`` (both raters gave one
    and the same verdict to every item, so agreement cannot be told from chance). 1 is perfect
    agreement, 0 chance level, negative worse than chance."""
    counts = (both_yes, a_yes_b_no, a_no_b_yes, both_no)
    check_counts("cohen_kappa", both_yes=both_yes, a_yes_b_no=a_yes_b_no,
                 a_no_b_yes=a_no_b_yes, both_no=both_no)
    if any(c < 0 for c in counts):
        raise ValueError(f"cohen_kappa: counts must be >= 0, got {counts}")
    n = sum(counts)
    if n == 0:
        return None
    p_o = (both_yes + both_no) / n
    a_yes, b_yes = (both_yes + a_yes_b_no) / n, (both_yes + a_no_b_yes) / n
    p_e = a_yes * b_yes + (1 - a_yes) * (1 - b_yes)
    if p_e >= 1.0:
        return None
    return (p_o - p_e) / (1 - p_e)
