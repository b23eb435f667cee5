"""Strict readers for the tabular inputs of offline evaluation (CSV and JSONL).

Every record carries the line it starts on, so a bad value is reported as
``file:line [field]: message`` (:class:`rcaeval.errors.InputError`, exit code 3).
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import orjson
import polars as pl

from rcaeval._inputs import check_input_file
from rcaeval._paths import read_query
from rcaeval.errors import InputError

_FIELD_LIMIT = 1 << 28
"""Largest CSV field accepted (the csv module's default of 128 KiB is too small for long
free-text agent answers)."""


@dataclass(frozen=True)
class Record:
    """One data row: its 1-based starting line in the file and its values by column name."""

    line: int
    values: dict[str, Any]


def _check_exists(path: Path) -> None:
    """A regular file within the ``offline`` cap (rcaeval._inputs): a FIFO, a device or a
    directory is refused before it is opened (opening a FIFO would block, a device never
    end); a missing file is not found."""
    check_input_file(path, "offline")


def _csv_rows(path: Path, required: tuple[str, ...]) -> Iterator[tuple[int, list[str]]]:
    """The header (as line 1) and then every data row with the line it starts on."""
    _check_exists(path)
    csv.field_size_limit(max(csv.field_size_limit(), _FIELD_LIMIT))
    where = str(path)
    with path.open("r", encoding="utf-8-sig", newline="") as fh:
        reader = csv.reader(fh, strict=True)
        last = 0
        try:
            header = next(reader, None)
            if header is None:
                raise InputError("empty file: expected a header line with the columns "
                                 f"{', '.join(required)}", file=where, line=1)
            names = [h.strip() for h in header]
            dupes = sorted({n for n in names if names.count(n) > 1})
            if dupes:
                raise InputError(f"duplicate column(s) {', '.join(dupes)} in the header",
                                 file=where, line=1, field=dupes[0])
            for col in required:
                if col not in names:
                    raise InputError(f"missing column {col!r}; the header has "
                                     f"{', '.join(repr(n) for n in names)}",
                                     file=where, line=1, field=col)
            yield 1, names
            width = len(names)
            last = reader.line_num
            for row in reader:
                start = last + 1
                last = reader.line_num
                if len(row) != width:
                    if not row or (len(row) == 1 and not row[0].strip()):
                        continue  # a blank line
                    raise InputError(f"{len(row)} fields, the header has {width}",
                                     file=where, line=start)
                yield start, row
        except UnicodeDecodeError as exc:
            raise InputError(f"not UTF-8 text ({exc.reason} at byte {exc.start})",
                             file=where, line=last + 1) from None
        except csv.Error as exc:
            raise InputError(f"malformed CSV: {exc}", file=where, line=last + 1) from None


def read_csv_records(path: Path, required: tuple[str, ...]) -> Iterator[Record]:
    """The rows of the CSV file ``path`` (UTF-8, optional BOM, header line first, quoted fields
    may span lines). ``required`` columns must be in the header; other columns are kept. Blank
    lines are skipped; a row with more or fewer fields than the header is an error."""
    rows = _csv_rows(path, required)
    _, names = next(rows)
    for line, row in rows:
        yield Record(line, dict(zip(names, row, strict=True)))


class Table:
    """A CSV or JSONL input read whole: ``frame`` holds the columns (CSV values are text, ''
    when empty); ``lines[i]`` is the line row ``i`` starts on, worked out only when an error
    needs it (a fast read does not track lines)."""

    def __init__(self, path: Path, frame: pl.DataFrame, lines: list[int] | None = None,
                 required: tuple[str, ...] = ()) -> None:
        self.path = path
        self.frame = frame
        self._lines = lines
        self._required = required

    @property
    def lines(self) -> list[int]:
        if self._lines is None:
            rows = _csv_rows(self.path, self._required)
            next(rows)
            self._lines = [line for line, _ in rows]
        return self._lines

    def error(self, index: int, field: str | None, message: str) -> InputError:
        return InputError(message, file=str(self.path), line=self.lines[index], field=field)

    def int_column(self, field: str) -> pl.Series:
        """``field`` as Int64 (an integer, or text holding one, surrounding blanks allowed);
        the first row that is not is an InputError."""
        col = self.frame[field]
        if col.dtype.is_integer():
            return col.cast(pl.Int64)
        if col.dtype != pl.Utf8:
            raise self.error(0, field, f"must be an integer, got {col[0]!r}")
        text = col.str.strip_chars()
        ok = text.str.contains(r"^[+-]?[0-9]{1,18}$").fill_null(False)
        if not ok.all():
            i = int(ok.arg_min() or 0)
            raise self.error(i, field, f"must be an integer, got {col[i]!r}")
        return text.cast(pl.Int64)

    def text_column(self, field: str, *, allow_empty: bool = True) -> pl.Series:
        """``field`` as text; a missing value, or with ``allow_empty=False`` a blank one, is an
        InputError."""
        col = self.frame[field]
        if col.dtype != pl.Utf8:
            raise self.error(0, field, f"must be text, got {col[0]!r}")
        bad = col.is_null()
        if not allow_empty:
            bad = bad | (col.str.strip_chars() == "")
        if bad.any():
            i = int(bad.arg_max() or 0)
            raise self.error(i, field, "missing" if col[i] is None else "must not be empty")
        return col

    def unique(self, values: pl.Series, field: str) -> None:
        """A value of ``values`` seen twice is an InputError naming both lines."""
        dup = values.is_duplicated()
        if dup.any():
            first = int(dup.arg_max() or 0)
            again = next(i for i in range(first + 1, len(values))
                         if values[i] == values[first])
            raise self.error(again, field, f"duplicate {field} {values[first]!r} "
                             f"(first on line {self.lines[first]})")


def csv_header(path: Path, required: tuple[str, ...]) -> list[str]:
    rows = _csv_rows(path, required)
    _, names = next(rows)
    rows.close()
    return names


def _csv_table_slow(path: Path, required: tuple[str, ...]) -> Table:
    """Python's csv module: tracks every row's line, reports the exact line of an error."""
    rows = _csv_rows(path, required)
    _, names = next(rows)
    lines: list[int] = []
    data: list[list[str]] = []
    for line, row in rows:
        lines.append(line)
        data.append(row)
    cols = list(zip(*data, strict=True)) if data else [() for _ in names]
    frame = pl.DataFrame({n: pl.Series(n, list(c), dtype=pl.Utf8)
                          for n, c in zip(names, cols, strict=True)})
    return Table(path, frame, lines, required)


def read_csv_table(path: Path, required: tuple[str, ...], *, only_required: bool = False,
                   ) -> Table:
    """The whole CSV file as a :class:`Table` (the rules of :func:`read_csv_records`). DuckDB's
    strict CSV reader does the reading (``queries/offline/read_csv_text.sql``); whenever it
    refuses the file, Python's csv module reads it again to name the exact line. With
    ``only_required`` the frame holds just the ``required`` columns (DuckDB then skips
    building the others, e.g. OpenRCA's long instructions)."""
    path = Path(path)
    names = csv_header(path, required)
    con = duckdb.connect()
    try:
        rel = con.sql(read_query("offline/read_csv_text.sql"),
                      params={"path": str(path), "columns": {n: "VARCHAR" for n in names}})
        if only_required:
            rel = rel.select(*(duckdb.ColumnExpression(n) for n in required))
        frame = rel.pl()
    except duckdb.Error:
        table = _csv_table_slow(path, required)
        if only_required:
            table.frame = table.frame.select(required)
        return table
    finally:
        con.close()
    frame = frame.with_columns(pl.all().cast(pl.Utf8).fill_null(""))
    return Table(path, frame, None, required)


def read_jsonl_records(path: Path, required: tuple[str, ...]) -> Iterator[Record]:
    """The objects of the JSON-lines file ``path`` (one JSON object a line; blank lines are
    skipped). ``required`` keys must be present in every object."""
    _check_exists(path)
    where = str(path)
    with path.open("rb") as fh:
        for number, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                obj = orjson.loads(raw)
            except orjson.JSONDecodeError as exc:
                raise InputError(f"not valid JSON: {exc}", file=where, line=number) from None
            if not isinstance(obj, dict):
                raise InputError(f"expected a JSON object, got {type(obj).__name__}",
                                 file=where, line=number)
            for key in required:
                if key not in obj:
                    raise InputError(f"missing key {key!r}", file=where, line=number,
                                     field=key)
            yield Record(number, obj)


def read_records(path: Path, required: tuple[str, ...]) -> Iterator[Record]:
    """CSV or JSON lines, chosen by the file name (``.jsonl`` / ``.ndjson`` are JSON lines,
    anything else is CSV)."""
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        return read_jsonl_records(path, required)
    return read_csv_records(path, required)


def unique_key(seen: dict[Any, int], key: Any, rec: Record, field: str, file: Path) -> None:
    """Record ``key`` as seen at ``rec.line``; a second occurrence is an InputError naming
    both lines."""
    first = seen.get(key)
    if first is not None:
        raise InputError(f"duplicate {field} {key!r} (first on line {first})",
                         file=str(file), line=rec.line, field=field)
    seen[key] = rec.line
