"""Writing imported log entries as incident log lines (``TS LEVEL [component] message`` in
``logs/<instance>.log``, docs/bundle-contract.md "Incident data"), shared by the Loki,
journald and plain-log importers (docs/import.md).

A re-import is idempotent: a line the log file already holds is not added again, and the
file is kept in time order (stable, so entries of the same instant keep their order).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from rcaeval.errors import InputError
from rcaeval.ingest._common import iso, parse_iso
from rcaeval.ingest._incident import log_name

LEVELS = ("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL")
_ALIASES = {"WARNING": "WARN", "ERR": "ERROR", "CRITICAL": "FATAL", "CRIT": "FATAL",
            "PANIC": "FATAL", "EMERG": "FATAL", "EMERGENCY": "FATAL", "ALERT": "FATAL",
            "NOTICE": "INFO", "INFORMATION": "INFO", "DBG": "DEBUG", "TRC": "TRACE",
            "EROR": "ERROR", "WRN": "WARN", "INF": "INFO", "FTL": "FATAL", "SEVERE": "ERROR"}
_WORD = "|".join(sorted({*LEVELS, *_ALIASES}, key=len, reverse=True))
_LEVEL_TOKEN = re.compile(rf"(?:^|[\s\[\(<|:])({_WORD})(?:$|[\s\]\)>|:])", re.IGNORECASE)
_LEVEL_KV = re.compile(rf"""["']?(?:level|lvl|severity|loglevel)["']?\s*[=:]\s*["']?({_WORD})\b""",
                       re.IGNORECASE)
MESSAGE_MAX = 64 * 1024
"""The longest message one entry keeps (a longer multi-line entry is cut, saying so)."""
JOIN = " | "
"""How the lines of a multi-line entry (a stack trace) are joined into one log line."""


def level_of(text: str, default: str = "INFO") -> str:
    """The level a free-text log line states (``level=error``, ``"level":"warn"``, a
    ``[ERROR]``/``WARN`` token near its start), else ``default``."""
    head = text[:300]
    m = _LEVEL_KV.search(head) or _LEVEL_TOKEN.search(head[:120])
    return norm_level(m.group(1)) if m else default


def norm_level(word: str) -> str:
    w = word.upper()
    return _ALIASES.get(w, w) if _ALIASES.get(w, w) in LEVELS else "INFO"


@dataclass
class Entry:
    """One imported log entry."""

    at: datetime
    level: str
    component: str
    instance: str
    message: str

    def line(self) -> str:
        msg = self.message.replace("\r\n", "\n").replace("\r", "\n").strip()
        msg = JOIN.join(part.strip() for part in msg.split("\n") if part.strip())
        if len(msg) > MESSAGE_MAX:
            msg = msg[:MESSAGE_MAX] + f" [... {len(msg) - MESSAGE_MAX} chars cut]"
        comp = re.sub(r"[\[\]\s]+", "_", self.component) or "unknown"
        return f"{iso(self.at)} {self.level} [{comp}] {msg}"


def _ts_of(line: str) -> datetime | None:
    head = line.split(" ", 1)[0]
    try:
        return parse_iso(head, "ts")
    except InputError:
        return None


def write_entries(incident: Path, entries: Iterable[Entry]) -> dict[str, int]:
    """Add ``entries`` to ``logs/<instance>.log`` files (per entry's instance); returns how
    many lines each file gained."""
    by_file: dict[str, list[Entry]] = {}
    for e in entries:
        by_file.setdefault(log_name(e.instance), []).append(e)
    logs = incident / "logs"
    logs.mkdir(exist_ok=True)
    added: dict[str, int] = {}
    for stem, items in by_file.items():
        path = logs / f"{stem}.log"
        if path.is_symlink():
            raise InputError("refusing to write through a symlink", file=str(path))
        old = path.read_text(encoding="utf-8", errors="replace").splitlines() \
            if path.is_file() else []
        seen = set(old)
        new = []
        for e in items:
            ln = e.line()
            if ln not in seen:
                seen.add(ln)
                new.append(ln)
        lines = old + new
        stamps = [_ts_of(ln) for ln in lines]
        if all(s is not None for s in stamps):
            order = sorted(range(len(lines)), key=lambda i: (stamps[i], i))
            lines = [lines[i] for i in order]
        path.write_text("".join(ln + "\n" for ln in lines), encoding="utf-8")
        added[f"logs/{stem}.log"] = len(new)
    return added
