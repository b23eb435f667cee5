"""The decision banner every report page opens with: one coloured box saying what the page
decided (REGRESSION / no regression, PASSED / FAILED, the run's verdict counts) in the
palette's pass / fail colours, with the figures behind it on a second line."""

from __future__ import annotations

import html
from collections.abc import Sequence

from rcaeval.charts._palette import BASELINE_COLOR, VERDICT_PALETTE

BANNER_CLASS = "rcaeval-banner"


def banner_color(ok: bool | None) -> str:
    """The banner colour: the ``pass`` verdict colour for a good decision, ``fail`` for a bad
    one, the neutral baseline grey when there is nothing to decide (``None``)."""
    if ok is None:
        return BASELINE_COLOR
    return VERDICT_PALETTE["pass"] if ok else VERDICT_PALETTE["fail"]


def banner_html(ok: bool | None, headline: str, details: str | Sequence[str] = ()) -> str:
    """A ``<div class="rcaeval-banner">``: ``headline`` in bold on a band of
    :func:`banner_color`, then ``details`` (a line, or one line each). Static, escaped."""
    color = banner_color(ok)
    lines = [details] if isinstance(details, str) else list(details)
    state = "none" if ok is None else ("ok" if ok else "bad")
    head = "#333333" if ok is None else color
    body = "".join(f'<div style="margin-top:0.3em">{html.escape(d)}</div>' for d in lines if d)
    return (f'<div class="{BANNER_CLASS}" data-decision="{state}" style="border-left:0.6em solid '
            f'{color};background:{color}1f;padding:0.6em 1em;margin:0.5em 0 1em 0;'
            f'font-size:110%"><div style="font-size:130%;font-weight:bold;color:{head}">'
            f"{html.escape(headline)}</div>{body}</div>")


def show_banner(ok: bool | None, headline: str, details: str | Sequence[str] = ()) -> None:
    """Display :func:`banner_html` in a notebook (with a plain-text fallback)."""
    from IPython.display import display

    text = "\n".join([headline, *([details] if isinstance(details, str) else details)])
    display({"text/html": banner_html(ok, headline, details), "text/plain": text}, raw=True)
