"""Readable tables: a polars frame as a plain HTML table (no dtype row, no shape line, strings
unquoted, nulls blank, numbers in the one display format of :func:`rcaeval._numfmt.display_value`),
for notebooks and the static HTML export."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import polars as pl

from rcaeval._numfmt import display_value
from rcaeval._vocab import TABLE_CLASS


def _cell(value: Any, column: str, kinds: dict[str, str]) -> str:
    return html.escape(display_value(value, kind=kinds.get(column), column=column, missing=""))


def table_html(df: pl.DataFrame, *, max_rows: int = 500,
               links: dict[str, str | Callable[[Any], str | None]] | None = None,
               kinds: dict[str, str] | None = None) -> str:
    """``df`` as an HTML ``<table>``: a header row of column names, then the values as text.

    Numbers go through :func:`rcaeval._numfmt.display_value`: the column name picks the
    format (scores two decimals, rates three, counts as integers, booleans ``true`` /
    ``false``); ``kinds`` maps a column to a format kind explicitly. At most ``max_rows``
    rows are shown (a last row says how many were left out). ``links`` maps a column name to
    a URL template (``"#case-{value}"``) or to a function of the cell value returning the URL
    (``None``: no link): that column's non-null cells become links."""
    links = links or {}
    head = "".join(f"<th>{html.escape(c)}</th>" for c in df.columns)
    rows: list[str] = []
    for row in df.head(max_rows).iter_rows():
        cells = []
        for col, value in zip(df.columns, row, strict=True):
            text = _cell(value, col, kinds or {})
            link = links.get(col)
            if link is not None and value is not None:
                url = link(value) if callable(link) else link.format(value=value)
                if url is not None:
                    text = f'<a href="{html.escape(url, quote=True)}">{text}</a>'
            align = ' class="num"' if isinstance(value, int | float) and \
                not isinstance(value, bool) else ""
            cells.append(f"<td{align}>{text}</td>")
        rows.append(f"<tr>{''.join(cells)}</tr>")
    if df.height > max_rows:
        rows.append(f'<tr><td colspan="{len(df.columns)}">… {df.height - max_rows} more '
                    "rows</td></tr>")
    return (f'<table class="{TABLE_CLASS}"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>")


def show_table(df: pl.DataFrame, **kwargs: Any) -> None:
    """Display ``df`` in a notebook as :func:`table_html` (``text/html``, with a plain-text
    fallback), instead of polars' repr with its dtype row and quoted strings."""
    from IPython.display import display

    display({"text/html": table_html(df, **kwargs), "text/plain": str(df)}, raw=True)
