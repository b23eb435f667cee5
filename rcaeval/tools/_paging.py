"""Paging of list results (docs/tools.md): ``limit`` bounded per tool, ``cursor`` the
previous page's ``next_cursor`` (``o<offset>``)."""

from __future__ import annotations

import re
from typing import Any


class ToolInputError(ValueError):
    """A bad call: the message says what was wrong and how to ask instead."""


def window(limit: int | None, cursor: str | None, default: int, cap: int) -> tuple[int, int]:
    """The page size and offset a call asks for (before knowing how many items match)."""
    if limit is None:
        limit = default
    if limit < 1 or limit > cap:
        raise ToolInputError(f"limit must be between 1 and {cap}, got {limit}")
    if cursor and not re.fullmatch(r"o\d{1,9}", cursor):
        raise bad_cursor(cursor)
    return limit, int(cursor[1:]) if cursor else 0


def bad_cursor(cursor: str) -> ToolInputError:
    return ToolInputError(f"bad cursor {cursor!r}: pass the next_cursor of the previous page "
                          "unchanged, with the same filters")


def next_cursor(cursor: str | None, offset: int, limit: int, total: int) -> str | None:
    """The next page's cursor; a cursor past the ``total`` items is refused."""
    if cursor and offset > total:
        raise bad_cursor(cursor)
    return f"o{offset + limit}" if offset + limit < total else None


def page(items: list[Any], limit: int | None, cursor: str | None, default: int,
         cap: int) -> tuple[list[Any], str | None, int]:
    """``items``' page, the next cursor and the page's offset."""
    limit, offset = window(limit, cursor, default, cap)
    nxt = next_cursor(cursor, offset, limit, len(items))
    return items[offset:offset + limit], nxt, offset
