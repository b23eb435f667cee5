"""Checks shared by the rendered-page tests: the decision banner comes first, no raw float
or ``1.0`` count is shown, and every chart's colours are the palette's."""

from __future__ import annotations

import re

import rcaeval.charts as rc
from rcaeval.charts._palette import normalize_color

BANNER = re.compile(r'<div class="rcaeval-banner" data-decision="(\w+)"[^>]*>'
                    r'<div[^>]*>([^<]*)</div>')


def banner(html: str) -> tuple[str, str]:
    """``(decision, headline)`` of the page's banner, which must come before any section."""
    m = BANNER.search(html)
    assert m, "no decision banner"
    first_section = re.search(r"<h2\b", html)
    assert first_section is None or m.start() < first_section.start(), "banner is not first"
    return m.group(1), m.group(2)


def visible_text(html: str) -> str:
    """The page's text outside charts, styles and scripts."""
    stripped = re.sub(r"<(svg|style|script)\b.*?</\1>", " ", html, flags=re.S | re.I)
    return re.sub(r"<[^>]+>", "\n", stripped)


def raw_numbers(html: str) -> list[str]:
    """Unrounded floats (four or more decimals) and integral floats (``1.0``) shown as text;
    p-values and timestamps' fractions are not numbers of that kind and are skipped."""
    text = visible_text(html)
    text = re.sub(r"\d{4}-\d\d-\d\dT?[ \d:.]*(?:\+00:00|Z)?", " ", text)  # timestamps
    text = re.sub(r"p = [0-9.e-]+", " ", text)
    return re.findall(r"(?<![\w.])(?:\d+\.\d{4,}|\d+\.0)(?![\w.])", text)


def assert_page_palette(html: str) -> None:
    """Every fill and stroke of every chart (inline ``<svg>``) of a rendered page is a
    palette colour (vega's axis greys included)."""
    svgs = re.findall(r"<svg.*?</svg>", html, re.S)
    assert svgs
    used = {normalize_color(c) for svg in svgs
            for c in re.findall(r'(?:fill|stroke)="(#[0-9a-fA-F]{3,6})"', svg)}
    assert used <= rc.palette_colors(), used - rc.palette_colors()
