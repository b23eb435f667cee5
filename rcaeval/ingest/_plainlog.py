"""Plain log files -> incident log lines (docs/import.md, "Plain log files").

Each line that starts with a timestamp starts an entry; a line that does not (a stack
trace's ``at ...`` / ``Traceback`` frames, a wrapped message) continues the entry before it.
The timestamp formats, tried in this order on the file's first non-blank line (the format it
matches is the file's format):

- ``iso``: ISO-8601 / RFC 3339 and its common log-library variants, optionally in ``[...]``:
  ``2026-10-03T14:05:00Z``, ``2026-10-03 14:05:00,123`` (log4j, Python logging),
  ``2026/10/03 14:05:00.123 +08:00`` (Go, TiDB); no offset means UTC;
- ``clf``: the Common/Combined Log Format's ``[03/Oct/2026:14:05:00 +0000]`` (nginx and
  Apache access logs; the level follows the HTTP status: 5xx ERROR, 4xx WARN);
- ``klog``: glog/klog's ``E1003 14:05:00.123456 ...`` (the letter is the level);
- ``syslog``: RFC 3164's ``Oct  3 14:05:00 host program[pid]: ...`` (the program is the
  component);
- ``epoch``: Unix seconds (``1791036300`` or ``1791036300.123``) or milliseconds
  (13 digits).

``klog`` and ``syslog`` stamps carry no year: the import needs ``--year`` (or a
``--window``, whose start year it takes).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

from rcaeval._inputs import read_input
from rcaeval.errors import InputError
from rcaeval.ingest._common import Window
from rcaeval.ingest._incident import source_error
from rcaeval.ingest._loglines import Entry, level_of

_MONTHS = {m: i for i, m in enumerate(("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug",
                                       "Sep", "Oct", "Nov", "Dec"), start=1)}
_ISO = re.compile(r"^\[?(\d{4})[-/](\d{2})[-/](\d{2})[T ](\d{2}):(\d{2}):(\d{2})"
                  r"(?:[.,](\d{1,9}))?\s?(Z|[+-]\d{2}:?\d{2}|UTC)?\]?(?=\s|$)")
_CLF = re.compile(r"\[(\d{2})/([A-Z][a-z]{2})/(\d{4}):(\d{2}):(\d{2}):(\d{2}) ([+-]\d{4})\]")
_CLF_STATUS = re.compile(r'"\s+(\d{3})\s')
_KLOG = re.compile(r"^([IWEF])(\d{2})(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?\s+")
_SYSLOG = re.compile(r"^([A-Z][a-z]{2}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\S+) "
                     r"([^\s:\[]+)(?:\[\d+\])?: ?")
_EPOCH = re.compile(r"^(\d{10}(?:\.\d{1,9})?|\d{13})(?=\s)")
_KLOG_LEVEL = {"I": "INFO", "W": "WARN", "E": "ERROR", "F": "FATAL"}
FORMATS = ("iso", "clf", "klog", "syslog", "epoch")
_HEAD_CHARS = 400


def _frac(text: str | None) -> int:
    return int((text or "0")[:6].ljust(6, "0"))


def _tz(text: str | None) -> timezone:
    if not text or text in ("Z", "UTC"):
        return UTC
    sign = -1 if text[0] == "-" else 1
    digits = text[1:].replace(":", "")
    return timezone(sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:])))


Parsed = tuple[datetime, str | None, str | None, str]
"""(time, level or None, component or None, the message)."""


def _iso(line: str, year: int | None) -> Parsed | None:
    m = _ISO.match(line)
    if not m:
        return None
    y, mo, d, h, mi, s = (int(x) for x in m.groups()[:6])
    at = datetime(y, mo, d, h, mi, s, _frac(m.group(7)), _tz(m.group(8))).astimezone(UTC)
    return at, None, None, line[m.end():].lstrip()


def _clf(line: str, year: int | None) -> Parsed | None:
    m = _CLF.search(line[:_HEAD_CHARS])
    if not m or m.group(2) not in _MONTHS:
        return None
    d, mon, y, h, mi, s, tz = m.groups()
    at = datetime(int(y), _MONTHS[mon], int(d), int(h), int(mi), int(s),
                  tzinfo=_tz(tz)).astimezone(UTC)
    st = _CLF_STATUS.search(line)
    code = int(st.group(1)) if st else 0
    level = "ERROR" if code >= 500 else "WARN" if code >= 400 else "INFO"
    return at, level, None, line


def _klog(line: str, year: int | None) -> Parsed | None:
    m = _KLOG.match(line)
    if not m:
        return None
    lv, mo, d, h, mi, s, frac = m.groups()
    at = datetime(_year(year), int(mo), int(d), int(h), int(mi), int(s), _frac(frac), UTC)
    return at, _KLOG_LEVEL[lv], None, line[m.end():]


def _syslog(line: str, year: int | None) -> Parsed | None:
    m = _SYSLOG.match(line)
    if not m or m.group(1) not in _MONTHS:
        return None
    mon, d, h, mi, s, _host, prog = m.groups()
    at = datetime(_year(year), _MONTHS[mon], int(d), int(h), int(mi), int(s), tzinfo=UTC)
    return at, None, prog, line[m.end():]


def _epoch(line: str, year: int | None) -> Parsed | None:
    m = _EPOCH.match(line)
    if not m:
        return None
    text = m.group(1)
    secs = int(text) / 1000 if len(text) == 13 else float(text)
    at = datetime.fromtimestamp(secs, UTC)
    return at, None, None, line[m.end():].lstrip()


class _NoYear(Exception):
    pass


def _year(year: int | None) -> int:
    if year is None:
        raise _NoYear
    return year


PARSERS: dict[str, Callable[[str, int | None], Parsed | None]] = {
    "iso": _iso, "clf": _clf, "klog": _klog, "syslog": _syslog, "epoch": _epoch}


def plain_entries(path: Path, *, instance: str | None = None, component: str | None = None,
                  year: int | None = None, fmt: str | None = None) -> list[Entry]:
    """The entries of one plain log file (see the module doc); the instance and component
    default to the file's stem."""
    if fmt is not None and fmt not in PARSERS:
        raise InputError(f"unknown format {fmt!r}; formats: {', '.join(FORMATS)}",
                         field="--format")
    text = read_input(path, "import").decode("utf-8", "replace")
    inst = instance or path.name.split(".")[0] or "log"
    comp = component or inst
    parse = PARSERS[fmt] if fmt else None
    out: list[Entry] = []
    for no, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        if not line.strip():
            continue
        try:
            if parse is None:
                for name in FORMATS:
                    got = PARSERS[name](line, year)
                    if got is not None:
                        parse = PARSERS[name]
                        break
                else:
                    raise source_error(
                        "unknown timestamp format: the first line must start with a "
                        "timestamp (" + ", ".join(FORMATS) + "; docs/import.md), got "
                        f"{line[:80]!r}", path, line=no)
            else:
                got = parse(line, year)
        except _NoYear:
            raise source_error("this log's timestamps carry no year: pass --year (or a "
                               "--window)", path, line=no) from None
        except (ValueError, OverflowError) as exc:  # Feb 30; past year 9999 once in UTC
            raise source_error(f"not a valid timestamp: {exc}", path, line=no) from exc
        if got is None:
            if not out:
                raise source_error("expected a timestamp at the start of the line", path,
                                   line=no)
            out[-1].message += "\n" + line
            continue
        at, level, c, msg = got
        out.append(Entry(at, level or level_of(msg), c or comp, inst, msg))
    return out



def import_plain_logs(incident: Path, files: list[Path], window: Window | None = None, *,
                      instance: str | None = None, component: str | None = None,
                      year: int | None = None, fmt: str | None = None) -> dict[str, int]:
    """Add the entries of plain log files to ``incident/logs/`` (a file's entries go to
    ``logs/<instance>.log``, by default the file's stem)."""
    from rcaeval.ingest._loglines import write_entries
    from rcaeval.ingest._loki import in_window

    if year is None and window is not None:
        year = window.start.year
    entries: list[Entry] = []
    for p in files:
        entries += in_window(plain_entries(Path(p), instance=instance, component=component,
                                           year=year, fmt=fmt), window, Path(p), "log entry")
    return write_entries(incident, entries)
