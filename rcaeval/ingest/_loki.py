"""Loki ``query_range`` JSON streams and ``journalctl -o json`` exports -> incident log lines
(docs/import.md, "Loki" and "journald").

Loki: ``GET /loki/api/v1/query_range`` answers ``{"status": "success", "data": {"resultType":
"streams", "result": [{"stream": {labels}, "values": [["<unix ns>", "<line>"], ...]}]}}``
(with ``categorize-labels`` a value may carry a third element, its structured metadata).
journald: ``journalctl -o json`` writes one JSON object per line whose fields are strings:
``__REALTIME_TIMESTAMP`` (microseconds since the epoch), ``MESSAGE`` (a string, or an array of
byte values when it is not valid UTF-8, or null), ``PRIORITY`` (``"0"`` emerg .. ``"7"``
debug), ``_HOSTNAME``, ``SYSLOG_IDENTIFIER``, ``_SYSTEMD_UNIT``, ``_COMM``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from rcaeval.ingest._common import Window, from_unix_nanos, json_documents, read_json, unix_int
from rcaeval.ingest._incident import source_error
from rcaeval.ingest._loglines import Entry, level_of, norm_level

INSTANCE_LABELS = ("pod", "instance", "host", "hostname", "node_name", "container", "job",
                   "service_name", "filename")
"""The stream labels that name an entry's instance (its log file), first present wins."""
COMPONENT_LABELS = ("component", "app", "app_kubernetes_io_name", "service_name", "container",
                    "job")
"""The stream labels that name an entry's component, first present wins."""
LEVEL_LABELS = ("level", "detected_level", "severity")
PRIORITY_LEVELS = ("FATAL", "FATAL", "FATAL", "ERROR", "WARN", "INFO", "INFO", "DEBUG")
"""syslog priority 0 (emerg) .. 7 (debug) -> incident level."""


def _first(labels: Mapping[str, Any], names: Iterable[str], default: str) -> str:
    for n in names:
        v = labels.get(n)
        if isinstance(v, str) and v.strip():
            return v
    return default


def loki_entries(path: Path, *, instance_label: str | None = None,
                 component_label: str | None = None) -> list[Entry]:
    """The entries of one Loki ``query_range`` (or ``query``) streams answer."""
    return loki_doc_entries(read_json(path), path, instance_label=instance_label,
                            component_label=component_label)


def loki_doc_entries(doc: Any, path: str | Path, *, instance_label: str | None = None,
                     component_label: str | None = None) -> list[Entry]:
    """The entries of a Loki streams answer already parsed (``path`` names where it came
    from: a file, or the query asked of a live Loki)."""
    data = doc.get("data") if isinstance(doc, dict) else None
    if not isinstance(data, dict) or not isinstance(data.get("result"), list):
        raise source_error("expected a Loki query answer {\"data\": {\"resultType\": "
                           "\"streams\", \"result\": [...]}}", path, field="data.result")
    if data.get("resultType") != "streams":
        raise source_error(f"resultType is {data.get('resultType')!r}, not 'streams' (a "
                           "metric query's matrix is imported with `rcaeval import "
                           "prometheus`)", path, field="data.resultType")
    out = []
    for i, stream in enumerate(data["result"]):
        where = f"data.result[{i}]"
        labels = stream.get("stream") if isinstance(stream, dict) else None
        values = stream.get("values") if isinstance(stream, dict) else None
        if not isinstance(labels, dict) or not isinstance(values, list):
            raise source_error("a stream needs a 'stream' label object and a 'values' list",
                               path, field=where)
        inst = labels.get(instance_label) if instance_label else None
        inst = inst if isinstance(inst, str) and inst else _first(labels, INSTANCE_LABELS,
                                                                  "loki")
        comp = labels.get(component_label) if component_label else None
        comp = comp if isinstance(comp, str) and comp else _first(labels, COMPONENT_LABELS,
                                                                  inst)
        lvl = _first(labels, LEVEL_LABELS, "")
        for j, v in enumerate(values):
            if not isinstance(v, list) or len(v) not in (2, 3) or not isinstance(v[1], str):
                raise source_error("a value must be [\"<unix ns>\", \"<line>\"]", path,
                                   field=f"{where}.values[{j}]")
            at = from_unix_nanos(unix_int(v[0], path, f"{where}.values[{j}][0]"))
            out.append(Entry(at, norm_level(lvl) if lvl else level_of(v[1]), comp, inst,
                             v[1]))
    return out


def _text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(b, int) and 0 <= b < 256 for b in value):
        return bytes(value).decode("utf-8", "replace")
    if isinstance(value, list) and value and all(isinstance(x, str) for x in value):
        return value[0]  # a field logged more than once: its first value
    return None


def journal_entries(path: Path, *, instance: str | None = None) -> list[Entry]:
    """The entries of one ``journalctl -o json`` export (JSON Lines)."""
    out = []
    for line, rec in json_documents(path):
        if line is None:  # one document: a single entry, or a list of them
            recs = rec if isinstance(rec, list) else [rec]
        else:
            recs = [rec]
        for k, r in enumerate(recs):
            where = None if line is not None or len(recs) == 1 else f"[{k}]"
            if not isinstance(r, dict):
                raise source_error("a journal entry must be a JSON object", path, line=line,
                                   field=where)
            if "__REALTIME_TIMESTAMP" not in r:
                raise source_error("a journal entry needs __REALTIME_TIMESTAMP (export with "
                                   "journalctl -o json)", path, line=line,
                                   field="__REALTIME_TIMESTAMP")
            us = unix_int(r["__REALTIME_TIMESTAMP"], path, "__REALTIME_TIMESTAMP", line,
                          per_second=10**6)
            msg = _text(r.get("MESSAGE"))
            if msg is None:
                continue  # an entry without a message (journald allows it)
            prio = r.get("PRIORITY")
            if prio is not None and not (isinstance(prio, str) and prio.isdigit()
                                         and int(prio) < 8):
                raise source_error(f"PRIORITY must be \"0\"..\"7\", got {prio!r}", path,
                                   line=line, field="PRIORITY")
            unit = _text(r.get("_SYSTEMD_UNIT")) or ""
            comp = (_text(r.get("SYSLOG_IDENTIFIER")) or unit.removesuffix(".service")
                    or _text(r.get("_COMM")) or "journal")
            inst = instance or _text(r.get("_HOSTNAME")) or "journal"
            level = PRIORITY_LEVELS[int(prio)] if prio is not None else level_of(msg)
            out.append(Entry(from_unix_nanos(us * 1000), level, comp, inst, msg))
    return out


def in_window(entries: list[Entry], window: Window | None, path: Path, what: str
              ) -> list[Entry]:
    """``entries`` inside ``window``; none at all (or none inside) is an input error."""
    kept = entries if window is None else [e for e in entries if window.holds(e.at)]
    if not kept:
        raise source_error(f"no {what}" + (f" in the window {window.text()}" if window
                                           else "") + " (nothing to import)", path)
    return kept


def import_loki(incident: Path, files: Iterable[Path], window: Window | None = None, *,
                instance_label: str | None = None, component_label: str | None = None
                ) -> dict[str, int]:
    """Add the lines of Loki ``query_range`` answers to ``incident/logs/``; returns the
    lines added per log file."""
    from rcaeval.ingest._loglines import write_entries

    entries: list[Entry] = []
    for p in files:
        entries += in_window(loki_entries(Path(p), instance_label=instance_label,
                                          component_label=component_label), window, Path(p),
                             "log line")
    return write_entries(incident, entries)


def import_journal(incident: Path, files: Iterable[Path], window: Window | None = None, *,
                   instance: str | None = None) -> dict[str, int]:
    """Add the entries of ``journalctl -o json`` exports to ``incident/logs/``."""
    from rcaeval.ingest._loglines import write_entries

    entries: list[Entry] = []
    for p in files:
        entries += in_window(journal_entries(Path(p), instance=instance), window, Path(p),
                             "journal entry")
    return write_entries(incident, entries)
