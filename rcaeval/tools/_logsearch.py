"""``search_logs``: matching log lines oldest first, from the case's log store
(rcaeval/tools/_logstore.py), recorded into the bundle's logs channel (docs/tools.md)."""

from __future__ import annotations

import re
from typing import Any

from rcaeval.tools._logstore import LEVELS, LogQuery, level_rank
from rcaeval.tools._paging import ToolInputError, next_cursor, window

LOG_LIMIT, LOG_LIMIT_MAX = 50, 200
MESSAGE_CHARS = 1000
PATTERN_CHARS = 1000
"""The longest ``search_logs`` pattern accepted."""


def search_logs(tools: Any, pattern: str | None = None, component: str | None = None,
                instance: str | None = None, min_level: str | None = None,
                start: str | None = None, end: str | None = None,
                limit: int | None = None, cursor: str | None = None) -> dict[str, Any]:
    """``IncidentTools.search_logs``: one recorded call of the logs channel."""
    args = {"pattern": pattern, "component": component, "instance": instance,
            "min_level": min_level, "start": start, "end": end, "limit": limit,
            "cursor": cursor}

    def run() -> dict[str, Any]:
        s, e = tools._range(start, end)
        rx = None
        if pattern and len(pattern) > PATTERN_CHARS:
            raise ToolInputError(f"pattern is {len(pattern)} characters long (at most "
                                 f"{PATTERN_CHARS})")
        if pattern:
            try:
                rx = re.compile(pattern, re.IGNORECASE)
            except (re.error, RecursionError, OverflowError) as exc:
                raise ToolInputError(f"pattern is not a valid regular expression: "
                                     f"{exc or type(exc).__name__}") from exc
        floor = level_rank(min_level) if min_level else -1
        if min_level and floor < 0:
            raise ToolInputError(f"min_level must be one of {', '.join(LEVELS)}")
        size, offset = window(limit, cursor, LOG_LIMIT, LOG_LIMIT_MAX)
        query = LogQuery(rx=rx, component=component.lower() if component else None,
                         instance=instance or None, floor=floor, start=s, end=e)
        store = tools.data.log_store
        page, total = store.search(query, offset, size)
        nxt = next_cursor(cursor, offset, size, total)
        entries = [ln.entry(MESSAGE_CHARS) for ln in page]
        w = tools.writer
        ids = w.add_log_entries(entries)
        w.milestone("log_query.completed", tool="search_logs",
                    detail=f"{total} matching lines")
        out = {"entries": entries, "total": total, "next_cursor": nxt,
               **tools._range_note(s, e, total), "_ids": ids}
        if not total and (component or instance):
            comps, insts = store.known()
            out["known"] = {"components": comps, "instances": insts}
        return out
    return tools.call("search_logs", args, run, channel="logs")
