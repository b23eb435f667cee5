"""Named metrics: one SQL file per metric under ``queries/metrics/``, registered by its file
name. The header of each file is the metric's definition (what it counts, over which rows);
the body is one SELECT returning a single row.

Header lines (``-- key: value``; a value may continue on following ``--   `` lines):

    -- metric: known_top1            (must equal the file name)
    -- kind: rate | count | value | bool
    -- reads: rel_a, rel_b           (relations the caller must provide: tables or views)
    -- numerator: ...                (rate, count)
    -- denominator: ...              (rate)
    -- rows: ...                     (which rows count, and which are excluded)
    -- params: $name, ...            (optional named parameters the body uses)
    -- key: col, ...                 (breakdown: the columns that identify a row)
    -- rates: name = num / den, ...  (breakdown: Wilson-interval rates over its columns)

Body columns by kind: ``rate`` -> ``numerator, denominator`` (the value is computed here, so
an empty denominator is reported as NULL with its sample size, never divided by zero);
``count`` -> ``numerator``; ``value`` / ``bool`` -> ``value`` (and optionally ``denominator``
as the sample size). A ``breakdown`` returns one row per ``key`` (e.g. per probe template);
:func:`compute_breakdown` runs it and adds ``<rate>``, ``<rate>_ci_low``, ``<rate>_ci_high``
for each declared rate (NULL where the denominator is 0).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from rcaeval._paths import queries_dir
from rcaeval.errors import InputError, NotFoundError
from rcaeval.stats import DEFAULT_CONFIDENCE, wilson_interval

KINDS = ("rate", "count", "value", "bool", "breakdown")
REQUIRED_KEYS = {
    "rate": ("metric", "kind", "reads", "numerator", "denominator", "rows"),
    "count": ("metric", "kind", "reads", "numerator", "rows"),
    "value": ("metric", "kind", "reads", "rows"),
    "bool": ("metric", "kind", "reads", "rows"),
    "breakdown": ("metric", "kind", "reads", "rows", "key", "rates"),
}
_RATE = re.compile(r"^([a-z_][a-z0-9_]*)\s*=\s*([a-z_][a-z0-9_]*)\s*/\s*([a-z_][a-z0-9_]*)$")
_HEADER_KEY = re.compile(r"^--\s*([a-z_]+):\s*(.*)$")
_HEADER_CONT = re.compile(r"^--\s{2,}(.*)$")
_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")

RESULT_SCHEMA = {
    "metric": pl.Utf8,
    "kind": pl.Utf8,
    "value": pl.Float64,
    "numerator": pl.Float64,
    "denominator": pl.Int64,
    "ci_low": pl.Float64,
    "ci_high": pl.Float64,
}
"""Columns of :func:`compute_metrics` (``value`` of a ``bool`` metric is 1.0 / 0.0)."""


@dataclass(frozen=True)
class Metric:
    """One registered metric: its definition (from the header) and its SQL."""

    name: str
    kind: str
    reads: tuple[str, ...]
    numerator: str | None
    denominator: str | None
    rows: str
    params: tuple[str, ...]
    path: Path
    sql: str
    key: tuple[str, ...] = ()
    rates: tuple[tuple[str, str, str], ...] = ()

    def describe(self) -> dict[str, Any]:
        """The definition as a plain dict (for docs, provenance and `--help` tables)."""
        return {
            "metric": self.name, "kind": self.kind, "reads": list(self.reads),
            "numerator": self.numerator, "denominator": self.denominator, "rows": self.rows,
            "file": f"queries/metrics/{self.path.name}",
        }


def parse_metric_file(path: Path) -> Metric:
    """Parse one ``queries/metrics/<name>.sql`` file; errors name the file and header key."""
    text = path.read_text(encoding="utf-8")
    header: dict[str, str] = {}
    last: str | None = None
    for line in text.splitlines():
        if not line.startswith("--"):
            if line.strip():
                break
            continue
        m = _HEADER_KEY.match(line)
        if m and m.group(1) not in header:
            last = m.group(1)
            header[last] = m.group(2).strip()
            continue
        c = _HEADER_CONT.match(line)
        if c and last is not None:
            header[last] = (header[last] + " " + c.group(1).strip()).strip()
    where = str(path)
    kind = header.get("kind", "")
    if kind not in KINDS:
        raise InputError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}",
                         file=where, field="kind")
    for key in REQUIRED_KEYS[kind]:
        if not header.get(key):
            raise InputError(f"metric header lacks '-- {key}:'", file=where, field=key)
    if header["metric"] != path.stem:
        raise InputError(f"'-- metric: {header['metric']}' must equal the file name "
                         f"{path.stem!r}", file=where, field="metric")
    declared = tuple(p.strip().lstrip("$") for p in header.get("params", "").split(",")
                     if p.strip())
    used = tuple(sorted(set(_PARAM.findall(text))))
    if set(used) != set(declared):
        raise InputError(f"params header {sorted(declared)} does not match the parameters "
                         f"the query uses {sorted(used)}", file=where, field="params")
    rates: list[tuple[str, str, str]] = []
    for part in (p.strip() for p in header.get("rates", "").split(",") if p.strip()):
        r = _RATE.match(part)
        if r is None:
            raise InputError(f"rate {part!r} must read 'name = numerator / denominator'",
                             file=where, field="rates")
        rates.append((r.group(1), r.group(2), r.group(3)))
    return Metric(
        key=tuple(k.strip() for k in header.get("key", "").split(",") if k.strip()),
        rates=tuple(rates),
        name=path.stem, kind=kind,
        reads=tuple(r.strip() for r in header["reads"].split(",") if r.strip()),
        numerator=header.get("numerator"), denominator=header.get("denominator"),
        rows=header["rows"], params=declared, path=path, sql=text,
    )


@cache
def _registry(root: str) -> dict[str, Metric]:
    out: dict[str, Metric] = {}
    for path in sorted(Path(root).glob("*.sql")):
        out[path.stem] = parse_metric_file(path)
    return out


def metric_registry() -> dict[str, Metric]:
    """Every registered metric by name (parsed once per process)."""
    return dict(_registry(str(queries_dir() / "metrics")))


def get_metric(name: str) -> Metric:
    reg = metric_registry()
    try:
        return reg[name]
    except KeyError:
        raise NotFoundError(f"no metric named {name!r}; registered: "
                            f"{', '.join(sorted(reg))}") from None


def compute_metrics(
    con: duckdb.DuckDBPyConnection,
    names: list[str] | tuple[str, ...],
    params: dict[str, Any] | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
) -> pl.DataFrame:
    """Run the named metrics on ``con`` (which must hold the relations each one ``reads``) and
    return one row per metric (:data:`RESULT_SCHEMA`). ``params`` supplies named parameters;
    each metric receives only the ones its header declares. Rates carry a Wilson interval."""
    params = params or {}
    rows: list[dict[str, Any]] = []
    for name in names:
        m = get_metric(name)
        if m.kind == "breakdown":
            raise InputError(f"metric {name!r} is a breakdown (one row per "
                             f"{', '.join(m.key)}): use compute_breakdown", file=str(m.path),
                             field="kind")
        missing = [p for p in m.params if p not in params]
        if missing:
            raise InputError(f"metric {name!r} needs parameter(s) {missing}",
                             file=str(m.path), field="params")
        got = con.execute(m.sql, {p: params[p] for p in m.params}).fetchall()
        cols = [d[0] for d in con.description] if con.description else []
        if len(got) != 1:
            raise InputError(f"metric query returned {len(got)} rows, expected 1",
                             file=str(m.path))
        rec = dict(zip(cols, got[0], strict=True))
        rows.append(_finish(m, rec, confidence))
    return pl.DataFrame(rows, schema=RESULT_SCHEMA, orient="row")


def _finish(m: Metric, rec: dict[str, Any], confidence: float) -> dict[str, Any]:
    num = rec.get("numerator")
    den = rec.get("denominator")
    den_i = int(den) if den is not None else None
    out: dict[str, Any] = {"metric": m.name, "kind": m.kind, "numerator": None,
                           "denominator": den_i, "value": None, "ci_low": None,
                           "ci_high": None}
    if m.kind == "rate":
        k = int(num or 0)
        out["numerator"] = float(k)
        if den_i:
            out["value"] = k / den_i
        out["ci_low"], out["ci_high"] = wilson_interval(k, den_i or 0, confidence)
    elif m.kind == "count":
        out["numerator"] = float(num or 0)
        out["value"] = float(num or 0)
    else:
        v = rec.get("value")
        out["value"] = None if v is None else float(v)
    return out


def compute_breakdown(
    con: duckdb.DuckDBPyConnection,
    name: str,
    params: dict[str, Any] | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
) -> pl.DataFrame:
    """Run the breakdown metric ``name``: its rows (one per ``key``), each declared rate with
    its Wilson interval added (``<rate>``, ``<rate>_ci_low``, ``<rate>_ci_high``; NULL when the
    denominator is 0)."""
    m = get_metric(name)
    if m.kind != "breakdown":
        raise InputError(f"metric {name!r} is a {m.kind}, not a breakdown: use compute_metrics",
                         file=str(m.path), field="kind")
    params = params or {}
    missing = [p for p in m.params if p not in params]
    if missing:
        raise InputError(f"metric {name!r} needs parameter(s) {missing}", file=str(m.path),
                         field="params")
    got = con.sql(m.sql, params={p: params[p] for p in m.params} or None).to_arrow_table()
    frame = pl.from_arrow(got)
    assert isinstance(frame, pl.DataFrame)
    for rate, num, den in m.rates:
        lo, hi, val = [], [], []
        for k, n in zip(frame[num].to_list(), frame[den].to_list(), strict=True):
            k, n = int(k or 0), int(n or 0)
            a, b = wilson_interval(k, n, confidence)
            val.append(k / n if n else None)
            lo.append(a)
            hi.append(b)
        frame = frame.with_columns(pl.Series(rate, val, pl.Float64),
                                   pl.Series(f"{rate}_ci_low", lo, pl.Float64),
                                   pl.Series(f"{rate}_ci_high", hi, pl.Float64))
    return frame
