"""The one palette of every report page (run page, regression report, explore, release gate):
the verdict colours, the "baseline vs this run" pair, the categorical colours of other series
(agents, runs) and the decision-banner colours. Altair charts (:mod:`rcaeval.charts`) and the
run page's inline CSS (:func:`palette_css`) both read it, so a verdict has one colour on every
chart of every page. ``tests/notebooks/test_palette.py`` checks that every chart spec draws
from it."""

from __future__ import annotations

from types import MappingProxyType

VERDICT_PALETTE = MappingProxyType({
    "pass": "#3f8a24",
    "fail": "#d0701f",
    "invalid": "#a8323a",
})
"""Colour of each verdict (:data:`rcaeval._vocab.VERDICTS`). A gate decision (release gate
metric pass/fail, a decision banner) uses the ``pass`` and ``fail`` colours."""

STATUS_PALETTE = MappingProxyType({
    "errored": "#6b4c9a",
    "timed_out": "#6b4c9a",
    "partial": "#b8860b",
    "tie": "#b8860b",
    "not_evaluated": "#777777",
})
"""Colours of the other states the drill-down marks (run statuses, bucket states; ``tie``: a
semantic vote without a majority, styled only on pages with a semantic shadow)."""

BASELINE_COLOR = "#9aa5b1"
"""The baseline / reference series (the regression report's baseline, explore's run A)."""
RUN_COLOR = "#2f6db5"
"""This run / the candidate series (the regression report's run, explore's run B)."""
CATEGORY_COLORS: tuple[str, ...] = ("#2f6db5", "#6b4c9a", "#2a9d8f", "#8c564b", "#c2649a",
                                    "#1f3b73", "#7a7a2a", "#5f8fb0")
"""Series without a role (agents, runs), in order; cycled when there are more."""
NEUTRAL_COLORS: tuple[str, ...] = ("#000000", "#ffffff", "#888888", "#dddddd")
"""Rules, rings and text (threshold lines, the current-window ring) and vega's own axis,
tick and grid greys."""

VERDICT_COLORS: tuple[str, ...] = tuple(VERDICT_PALETTE.values())
"""Verdict colours in :data:`rcaeval._vocab.VERDICTS` order (pass, fail, invalid)."""
SERIES_COLORS: tuple[str, ...] = (BASELINE_COLOR, RUN_COLOR, *CATEGORY_COLORS[1:])
"""Series colours in order: baseline, this run, then the categorical ones."""


def normalize_color(color: str) -> str:
    """``#abc`` / ``#AABBCC`` as lower-case six-digit hex (``#aabbcc``)."""
    c = color.strip().lower()
    if len(c) == 4 and c.startswith("#"):
        c = "#" + "".join(ch * 2 for ch in c[1:])
    return c


def palette_colors() -> frozenset[str]:
    """Every colour a chart of the reports may draw with (lower-case six-digit hex)."""
    every = (*VERDICT_PALETTE.values(), *STATUS_PALETTE.values(), BASELINE_COLOR, RUN_COLOR,
             *CATEGORY_COLORS, *NEUTRAL_COLORS)
    return frozenset(normalize_color(c) for c in every)


def verdict_scale(domain: list[str] | None = None) -> dict[str, list[str]]:
    """``domain`` and ``range`` of an Altair colour scale over verdicts (default: all of
    :data:`VERDICT_PALETTE`, in order); pass it as ``alt.Scale(**verdict_scale())``."""
    names = list(VERDICT_PALETTE) if domain is None else list(domain)
    return {"domain": names, "range": [VERDICT_PALETTE.get(n) or STATUS_PALETTE[n]
                                       for n in names]}


def comparison_scale(baseline: str, run: str) -> dict[str, list[str]]:
    """A colour scale for a two-series comparison: ``baseline`` (the reference) in
    :data:`BASELINE_COLOR`, ``run`` (the candidate) in :data:`RUN_COLOR`."""
    return {"domain": [baseline, run], "range": [BASELINE_COLOR, RUN_COLOR]}


def category_scale(names: list[str]) -> dict[str, list[str]]:
    """A colour scale for series without a role (agents, runs): :data:`CATEGORY_COLORS` in
    order, cycled."""
    return {"domain": list(names),
            "range": [CATEGORY_COLORS[i % len(CATEGORY_COLORS)] for i in range(len(names))]}


def palette_css(states: tuple[str, ...] | None = None) -> str:
    """The ``.v-<state>`` text classes of the HTML pages (drill-down marks, banners), in the
    palette's colours: every verdict and status, or only ``states``."""
    colors = {**VERDICT_PALETTE, **STATUS_PALETTE}
    names = [n for n in colors if n != "tie"] if states is None else list(states)
    return "\n".join(f".v-{n} {{ color: {colors[n]}; }}" for n in names)
