"""Opening a user-supplied input file safely: the one helper every command that reads a
user's file goes through (docs/reliability.md, "Bounded reads").

The file must be a regular file (a FIFO, a device, a socket or a directory is refused with
exit 3, and opening never blocks: ``O_NONBLOCK``), and no larger than the command's cap
(:data:`CAPS`, documented per command in docs/cli.md). A symlink to a regular file is
followed (users pass their own paths); one to ``/dev/zero`` is refused like the device.
"""

from __future__ import annotations

import csv
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import TypeVar

from rcaeval.errors import InputError, NotFoundError

_Row = TypeVar("_Row")

MiB = 1024 * 1024

CAPS: dict[str, int] = {
    "harness": 512 * MiB,
    "registry": 8 * MiB,
    "captures": 2048 * MiB,
    "reviews": 256 * MiB,
    "offline": 512 * MiB,
    "import": 4096 * MiB,
    "config": 1 * MiB,
    "artifact": 64 * MiB,
    "labels": 256 * MiB,
}
"""The largest file each kind of input may be, in bytes: ``harness`` responses (JSON, JSONL,
Parquet), ``registry`` YAML files (one case.yaml, judge.yaml or suite file), ``offline``
fixtures, release ``captures`` (each JSONL or Parquet file) and ``reviews``, ``labels``
sheets (``label import``), ``import`` (telemetry sources, ``db import`` Parquet), a release
metrics ``artifact`` and small ``config`` files (the semantic judge prompt, capture query
files)."""

_KINDS = {stat.S_IFIFO: "a FIFO", stat.S_IFCHR: "a character device",
          stat.S_IFBLK: "a block device", stat.S_IFSOCK: "a socket", stat.S_IFDIR: "a directory"}


def describe_mode(mode: int) -> str:
    """What a file of ``mode`` is, when it is not a regular file (``a FIFO``, ...)."""
    return _KINDS.get(stat.S_IFMT(mode), "not a regular file")


def _cap(kind: str, cap: int | None) -> int:
    return cap if cap is not None else CAPS[kind]


def _too_big(size: int, limit: int, path: Path, field: str | None) -> InputError:
    return InputError(f"is {size:,} bytes, larger than the {limit:,}-byte limit for this input",
                      file=str(path), field=field)


def check_input_file(path: str | os.PathLike[str], kind: str, *, cap: int | None = None,
                     field: str | None = None) -> Path:
    """``path`` if it names a regular file within the cap of ``kind``, for a reader that
    opens it itself (Parquet, DuckDB); :class:`NotFoundError` if it does not exist,
    :class:`InputError` (exit 3) otherwise."""
    p = Path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise NotFoundError(f"{p}: no such file") from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=str(p), field=field) from None
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"is {describe_mode(st.st_mode)}, expected a regular file", file=str(p),
                         field=field)
    limit = _cap(kind, cap)
    if st.st_size > limit:
        raise _too_big(st.st_size, limit, p, field)
    return p


def read_input(path: str | os.PathLike[str], kind: str, *, cap: int | None = None,
               field: str | None = None) -> bytes:
    """The bytes of the user's input file ``path`` (see the module doc): opened without
    blocking, checked to be a regular file on the open descriptor, read to at most the cap
    of ``kind`` (a file growing past it while read is refused too)."""
    p = Path(path)
    limit = _cap(kind, cap)
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise NotFoundError(f"{p}: no such file") from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=str(p), field=field) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"is {describe_mode(st.st_mode)}, expected a regular file",
                             file=str(p), field=field)
        if st.st_size > limit:
            raise _too_big(st.st_size, limit, p, field)
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(8 * MiB, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise _too_big(total, limit, p, field)
        return b"".join(chunks)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=str(p), field=field) from None
    finally:
        os.close(fd)


def _check_ancestor(p: Path, field: str) -> None:
    """A path that does not exist yet can be created only under a directory: its nearest
    existing ancestor must be one (``out.json/x.csv`` with ``out.json`` a file is refused)."""
    parent = p.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if parent.exists() and not parent.is_dir():
        raise InputError(f"cannot write here: {parent} is not a directory", file=str(p),
                         field=field)


def _check_output(path: str | os.PathLike[str], field: str, *, directory: bool) -> Path:
    p = Path(path)
    try:
        st = os.stat(p)
    except (FileNotFoundError, NotADirectoryError):
        _check_ancestor(p, field)
        return p
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror or exc}", file=str(p), field=field
                         ) from None
    if directory and not stat.S_ISDIR(st.st_mode):
        what = "a file" if stat.S_ISREG(st.st_mode) else describe_mode(st.st_mode)
        raise InputError(f"is not a directory ({what}): name a directory to write into",
                         file=str(p), field=field)
    if not directory and not stat.S_ISREG(st.st_mode):
        raise InputError(f"is {describe_mode(st.st_mode)}: name a file to write", file=str(p),
                         field=field)
    return p


def check_output_file(path: str | os.PathLike[str], *, field: str) -> Path:
    """``path`` if a file can be written there: not an existing directory, FIFO or device,
    and its parent not a file. Checked before any work is done, so a bad ``--...-out`` is a
    clear exit 3 instead of a traceback at the end."""
    return _check_output(path, field, directory=False)


def check_output_dir(path: str | os.PathLike[str], *, field: str) -> Path:
    """``path`` if a directory can be written there: an existing directory, or a path whose
    nearest existing ancestor is a directory (checked before any work is done, like
    :func:`check_output_file`)."""
    return _check_output(path, field, directory=True)


def make_output_dir(path: str | os.PathLike[str], *, field: str) -> Path:
    """:func:`check_output_dir`, then the directory made (with its parents); a directory
    that cannot be made (permissions, a read-only file system) is exit 3 naming it."""
    p = check_output_dir(path, field=field)
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create the directory: {exc.strerror or exc}", file=str(p),
                         field=field) from None
    return p


def require_dir(path: str | os.PathLike[str], what: str, *, field: str | None = None) -> Path:
    """``path`` if it is a directory (a symlink to one is followed): :class:`NotFoundError`
    when nothing is there, :class:`InputError` (exit 3) when it is a file, a FIFO, a device."""
    p = Path(path)
    try:
        st = os.stat(p)
    except (FileNotFoundError, NotADirectoryError):
        raise NotFoundError(f"{what} {p} does not exist") from None
    except OSError as exc:
        raise InputError(f"cannot read the {what}: {exc.strerror or exc}", file=str(p),
                         field=field) from None
    if not stat.S_ISDIR(st.st_mode):
        kind = "a regular file" if stat.S_ISREG(st.st_mode) else describe_mode(st.st_mode)
        raise InputError(f"is {kind}, expected the {what} (a directory)", file=str(p),
                         field=field)
    return p


def csv_rows(reader: Iterator[_Row]) -> Iterator[_Row | csv.Error]:
    """The rows of a ``csv`` reader, a row the reader cannot parse as the :class:`csv.Error`
    it raised (``reader.line_num`` still names its line), so the caller decides: refuse the
    file, or mark that row and read on."""
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            yield exc
            continue
        yield row
