"""Writing a case's ``incident/`` dir from imported telemetry, never half-written
(docs/import.md, "How an import writes").

Every importer (``rcaeval import <source>``, ``rcaeval case capture``, the public-corpus
importers) writes through :func:`incident_update`: it copies the target incident dir (when
there is one) into a fresh temporary dir beside it, lets the importer add its records there,
and only when the importer returns does the finished dir take the target's place (the old one
is renamed aside, the new one renamed in, the old one removed). An error - bad input, a
crash, Ctrl-C - removes the temporary dir and leaves the target exactly as it was.

Records are merged by id: :func:`merge_records` adds a source's records to one incident file's
list (``metrics.json`` ``series``, ``events.json`` ``events``, ...), replacing a record whose
``id`` it already holds, so importing the same export twice gives the same dir. Log files are
named by :func:`log_name`, which makes any instance or stream label one safe file name.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson

from rcaeval.errors import InputError

_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]+")
MAX_NAME_CHARS = 120
"""The longest log file stem :func:`log_name` makes."""


def source_error(message: str, path: str | os.PathLike[str], *, line: int | None = None,
                 field: str | None = None) -> InputError:
    """The error an importer raises for bad source data: names the source file and, where
    known, the line (1-based) and the field, and exits 3."""
    return InputError(message, file=str(path), line=line, field=field)


@contextmanager
def incident_update(target: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a working copy of the incident dir ``target`` (empty when it does not exist);
    on a normal exit it replaces ``target``, on an exception it is removed and ``target`` is
    untouched (see the module doc). ``target`` must not be a symlink or a non-directory."""
    dest = Path(target)
    if dest.is_symlink() or (dest.exists() and not dest.is_dir()):
        raise InputError("the incident dir to write is not a plain directory", file=str(dest),
                         field="--out")
    from rcaeval._inputs import make_output_dir

    parent = make_output_dir(dest.parent, field="--out")
    try:
        work = Path(tempfile.mkdtemp(prefix=f".{dest.name}.import-", dir=parent))
    except OSError as exc:  # /proc, a read-only or foreign file system
        raise InputError(f"cannot write a working copy beside it: {exc.strerror or exc}",
                         file=str(dest), field="--out") from None
    try:
        if dest.is_dir():
            shutil.copytree(dest, work, symlinks=True, dirs_exist_ok=True)
            _refuse_escaping_links(work, dest)
        yield work
        _swap_in(work, dest)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise


def _refuse_escaping_links(work: Path, dest: Path) -> None:
    """An input error naming the first symlink of the copied incident dir that resolves
    outside it (``metrics.json -> /home/me/.bashrc``, ``logs -> /etc``): the import would
    write through it, outside ``--out``. Symlinks between the dir's own files are kept."""
    real_work = work.resolve()
    for dirpath, dirnames, filenames in os.walk(work):
        for name in sorted(dirnames + filenames):
            path = Path(dirpath) / name
            if not path.is_symlink():
                continue
            real = path.resolve()
            if real != real_work and not real.is_relative_to(real_work):
                shown = dest / path.relative_to(work)
                raise InputError(f"is a symlink to {os.readlink(path)!r}, outside the incident "
                                 "dir: an import never writes through it (replace it with the "
                                 "file itself)", file=str(shown), field="--out")


def _swap_in(work: Path, dest: Path) -> None:
    old = None
    if dest.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{dest.name}.old-", dir=dest.parent))
        old.rmdir()
        os.rename(dest, old)
    try:
        os.rename(work, dest)
    except BaseException:
        if old is not None:
            os.rename(old, dest)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def read_doc(incident: Path, name: str, key: str) -> dict[str, Any]:
    """The incident file ``name`` as an object with a ``key`` list (an empty one when the
    file does not exist yet)."""
    path = incident / name
    if not path.is_file():
        return {key: []}
    try:
        doc = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as exc:
        raise InputError(f"not valid JSON: {exc}", file=str(path)) from exc
    if not isinstance(doc, dict) or not isinstance(doc.get(key), list):
        raise InputError(f"expected an object with a {key!r} list", file=str(path), field=key)
    return doc


def write_doc(incident: Path, name: str, doc: Mapping[str, Any]) -> Path:
    """Write ``doc`` as the incident file ``name`` (indented, sorted keys inside records
    kept as given)."""
    path = incident / name
    try:
        data = orjson.dumps(dict(doc), option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)
    except TypeError:  # an integer past 64 bits a source gave: the stdlib writes any int
        data = (json.dumps(dict(doc), indent=2, ensure_ascii=False) + "\n").encode()
    path.write_bytes(data)
    return path


def merge_records(incident: Path, name: str, key: str,
                  records: Iterable[Mapping[str, Any]]) -> int:
    """Add ``records`` to the ``key`` list of the incident file ``name``: a record whose
    ``id`` is already there replaces it in place, the rest are appended in order. Returns
    how many records the file holds."""
    doc = read_doc(incident, name, key)
    items: list[dict[str, Any]] = [x for x in doc[key] if isinstance(x, dict)]
    where = {str(x["id"]): i for i, x in enumerate(items) if x.get("id") is not None}
    for rec in records:
        rec = dict(rec)
        rid = rec.get("id")
        if rid is not None and str(rid) in where:
            items[where[str(rid)]] = rec
        else:
            if rid is not None:
                where[str(rid)] = len(items)
            items.append(rec)
    doc[key] = items
    write_doc(incident, name, doc)
    return len(items)


def log_name(label: str) -> str:
    """A safe log file stem for an instance, pod or stream label: runs of characters other
    than letters, digits, ``_``, ``.`` and ``-`` become ``_``; no leading dot or dash; at
    most :data:`MAX_NAME_CHARS` characters; never empty."""
    stem = _UNSAFE_NAME.sub("_", label).lstrip(".-")[:MAX_NAME_CHARS]
    return stem or "log"


def append_log_lines(incident: Path, instance: str, lines: Iterable[str]) -> Path:
    """Append ``lines`` (each one incident log line: ``TS LEVEL [component] message``, no
    newline) to ``logs/<log_name(instance)>.log``."""
    logs = incident / "logs"
    logs.mkdir(exist_ok=True)
    path = logs / f"{log_name(instance)}.log"
    if path.is_symlink():
        raise InputError("refusing to write through a symlink", file=str(path))
    with path.open("a", encoding="utf-8") as fh:
        for line in lines:
            fh.write(line.replace("\n", " ").replace("\r", " ") + "\n")
    return path
