"""Prometheus HTTP API ``query_range`` responses into ``incident/metrics.json``
(docs/import.md, "Prometheus").

The source format is what ``GET /api/v1/query_range`` returns::

    {"status": "success",
     "data": {"resultType": "matrix",
              "result": [{"metric": {"__name__": "up", "job": "api", "instance": "a:9100"},
                          "values": [[1764626400, "1"], [1764626415.5, "0"]]}]}}

Each result becomes one series: ``name`` is the ``__name__`` label (or the query / the
``name`` given, for an expression whose result has none), ``labels`` the other labels,
``points`` ``[ISO-8601 UTC time, float]``. Samples Prometheus writes as ``NaN`` / ``+Inf`` /
``-Inf`` cannot be JSON numbers and are left out (counted); a series left with no sample is
skipped and reported. A series id is ``M-<name>-<label>:<value>...`` (labels in key order),
so the same series from two exports is one record, its points merged by timestamp.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from rcaeval.ingest._common import MAX_UNIX_S
from rcaeval.ingest._incident import incident_update, read_doc, source_error, write_doc

METRICS_FILE, SERIES_KEY = "metrics.json", "series"
_ID_UNSAFE = re.compile(r"[^A-Za-z0-9_.:/@+-]+")
MAX_ID = 200
_UNITS = (("_seconds", "seconds"), ("_seconds_total", "seconds"), ("_bytes", "bytes"),
          ("_bytes_total", "bytes"), ("_ratio", "ratio"), ("_percent", "percent"),
          ("_total", "count"))


@dataclass
class SeriesImport:
    """What one import read: the series (incident records), how many samples were left out
    as non-finite, and a note per series skipped (no finite sample, native histograms)."""

    series: list[dict[str, Any]] = field(default_factory=list)
    dropped_samples: int = 0
    skipped: list[str] = field(default_factory=list)

    @property
    def points(self) -> int:
        return sum(len(s["points"]) for s in self.series)

    def extend(self, other: SeriesImport) -> None:
        self.series += other.series
        self.dropped_samples += other.dropped_samples
        self.skipped += other.skipped


def iso_time(unix: float) -> str:
    """A Unix time as ISO-8601 UTC (``Z``), with milliseconds only when it has a fraction."""
    dt = datetime.fromtimestamp(unix, UTC)
    spec = "seconds" if dt.microsecond == 0 else "milliseconds"
    return dt.isoformat(timespec=spec).replace("+00:00", "Z")


def series_id(name: str, labels: Mapping[str, str]) -> str:
    """The stable evidence id of the series ``name{labels}`` (see the module doc); when the
    readable form had to change a character or be cut, a digest of the exact label set is
    appended so two series never share an id."""
    raw = "M-" + name + "".join(f"-{k}:{labels[k]}" for k in sorted(labels))
    safe = _ID_UNSAFE.sub("_", raw)
    if safe == raw and len(raw) <= MAX_ID:
        return raw
    digest = hashlib.sha1(orjson.dumps([name, dict(sorted(labels.items()))])).hexdigest()[:10]
    return safe[: MAX_ID - 11].rstrip("-") + "-" + digest


def _unit(name: str) -> str | None:
    for suffix, unit in _UNITS:
        if name.endswith(suffix):
            return unit
    return None


def _sample(value: Any, src: str, where: str) -> tuple[float, float] | None:
    """``[unix_time, "value"]`` as (time, value); None for a non-finite value."""
    if (not isinstance(value, list) or len(value) != 2 or isinstance(value[0], bool)
            or not isinstance(value[0], int | float) or not isinstance(value[1], str)):
        raise source_error(f'expected a sample [<unix time>, "<value>"], got {value!r:.80}',
                           src, field=where)
    try:
        num = float(value[1])
    except ValueError:
        raise source_error(f"sample value {value[1]!r:.40} is not a number", src,
                           field=where) from None
    if not (math.isfinite(value[0]) and 0 <= value[0] <= MAX_UNIX_S):
        raise source_error(f"sample time {value[0]!r:.40} is no Unix time between 1970 and "
                           "9999", src, field=where)
    return (float(value[0]), num) if math.isfinite(num) else None


def prometheus_series(doc: Any, source: str | os.PathLike[str], *,
                      name: str | None = None) -> SeriesImport:
    """The series of one ``query_range`` response ``doc`` (parsed JSON). ``source`` names it
    in errors (a file or a URL); ``name`` names a result without a ``__name__`` label (an
    expression such as ``rate(x[5m])``), which is otherwise an error. An ``error`` response,
    another ``resultType``, a malformed sample or a series with no samples at all is an
    :class:`rcaeval.errors.InputError` naming ``source`` and the field."""
    src = str(source)
    if not isinstance(doc, dict):
        raise source_error("expected a Prometheus query_range response (a JSON object with "
                           "status and data)", src)
    if doc.get("status") == "error":
        raise source_error(f"the response is an error: {doc.get('errorType', 'error')}: "
                           f"{doc.get('error', '')}", src, field="status")
    if doc.get("status") != "success":
        raise source_error(f"status must be 'success', got {doc.get('status')!r:.40}", src,
                           field="status")
    data = doc.get("data")
    if not isinstance(data, dict):
        raise source_error("data must be an object", src, field="data")
    if data.get("resultType") != "matrix":
        raise source_error(f"resultType must be 'matrix' (a query_range response), got "
                           f"{data.get('resultType')!r:.40}", src, field="data.resultType")
    result = data.get("result")
    if not isinstance(result, list):
        raise source_error("data.result must be a list", src, field="data.result")
    out = SeriesImport()
    for i, item in enumerate(result):
        where = f"data.result[{i}]"
        if not isinstance(item, dict) or not isinstance(item.get("metric"), dict):
            raise source_error("expected an object with a metric label set", src,
                               field=f"{where}.metric")
        metric = item["metric"]
        bad = [k for k, v in metric.items() if not isinstance(v, str)]
        if bad:
            raise source_error("label values must be strings", src,
                               field=f"{where}.metric.{bad[0]}")
        labels = {k: v for k, v in sorted(metric.items()) if k != "__name__"}
        sname = metric.get("__name__") or name
        if not sname:
            raise source_error("the series has no __name__ label (the result of an "
                               "expression); give it a name (--name)", src,
                               field=f"{where}.metric.__name__")
        shown = f"{sname}{{{', '.join(f'{k}={v!r}' for k, v in labels.items())}}}"
        values = item.get("values")
        if values is None and item.get("histograms") is not None:
            out.skipped.append(f"{shown}: native histogram samples are not imported (query "
                               "histogram_quantile(...) or the _sum/_count series)")
            continue
        if not isinstance(values, list):
            raise source_error("expected a values list", src, field=f"{where}.values")
        if not values:
            raise source_error(f"series {shown} has no samples", src, field=f"{where}.values")
        points: dict[float, float] = {}
        for j, v in enumerate(values):
            got = _sample(v, src, f"{where}.values[{j}]")
            if got is None:
                out.dropped_samples += 1
            else:
                points[got[0]] = got[1]
        if not points:
            out.skipped.append(f"{shown}: every sample is NaN or infinite")
            continue
        rec: dict[str, Any] = {"id": series_id(str(sname), labels), "name": str(sname),
                               "labels": labels}
        if unit := _unit(str(sname)):
            rec["unit"] = unit
        rec["points"] = [[iso_time(t), points[t]] for t in sorted(points)]
        out.series.append(rec)
    return out


def read_prometheus(path: str | os.PathLike[str], *, name: str | None = None) -> SeriesImport:
    """The series of one saved ``query_range`` response file (see :func:`prometheus_series`);
    invalid JSON is an error naming the file and the line."""
    from rcaeval._inputs import read_input

    raw = read_input(path, "import")
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise source_error(f"not valid JSON: {exc.msg}", path, line=exc.lineno) from None
    return prometheus_series(doc, path, name=name)


def merge_series(incident: Path, series: Iterable[Mapping[str, Any]]) -> int:
    """Add ``series`` to ``incident/metrics.json``: a series whose id is already there gets
    the union of both point lists (the new value wins at a shared timestamp). Returns how
    many series the file holds."""
    doc = read_doc(incident, METRICS_FILE, SERIES_KEY)
    items = [x for x in doc[SERIES_KEY] if isinstance(x, dict)]
    where = {str(x["id"]): i for i, x in enumerate(items) if x.get("id") is not None}
    for s in series:
        rec = dict(s)
        at = where.get(str(rec["id"]))
        if at is None:
            where[str(rec["id"])] = len(items)
            items.append(rec)
            continue
        old = {p[0]: p for p in items[at].get("points") or [] if isinstance(p, list) and p}
        merged = old | {p[0]: p for p in rec["points"]}
        items[at] = {**items[at], **rec, "points": [merged[t] for t in sorted(merged)]}
    doc[SERIES_KEY] = items
    write_doc(incident, METRICS_FILE, doc)
    return len(items)


def import_prometheus(paths: Sequence[str | os.PathLike[str]], out: str | os.PathLike[str],
                      *, name: str | None = None) -> SeriesImport:
    """Import saved ``query_range`` responses (one file or many) into the incident dir
    ``out`` (created when missing), through :func:`rcaeval.ingest.incident_update`: every
    file is read and checked before the dir changes, and a bad file changes nothing. The
    same series in several files (adjacent windows) is one series. Returns what was read;
    a file with no series (an empty result: no data in its window) is an error."""
    if not paths:
        raise source_error("no query_range response files given", "<arguments>", field="FILE")
    got = SeriesImport()
    for p in paths:
        one = read_prometheus(p, name=name)
        if not one.series:
            raise source_error("no series with samples" + (
                f" ({'; '.join(one.skipped[:3])})" if one.skipped else
                ": the result is empty (no data in the queried window)"), p,
                field="data.result")
        got.extend(one)
    with incident_update(out) as work:
        merge_series(work, got.series)
    return got
