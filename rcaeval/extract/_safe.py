"""Guarded file access rooted at one case dir.

Every read of a bundle file goes through :class:`CaseFS`. It refuses paths with ``..``
components, anything whose realpath leaves the case dir (symlinks pointing outside are
recorded as ``outside_bundle`` and never opened), non-regular files and files over the size
cap. Every file it is asked about gets one :class:`FileRecord` (a future ``raw_file`` row).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import orjson

DEFAULT_MAX_FILE_BYTES = 32 * 1024 * 1024
"""Files larger than this are recorded as ``too_large`` and not parsed."""

OK = "ok"
PARSE_ERROR = "parse_error"
TOO_LARGE = "too_large"
NOT_UTF8 = "not_utf8"
OUTSIDE_BUNDLE = "outside_bundle"
UNREADABLE = "unreadable"

_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
"""Opening a FIFO swapped in after the ``stat`` check must not block (regular files
ignore the flag)."""


@dataclass
class FileRecord:
    """One ``raw_file`` row: a file extraction considered, and what became of it."""

    file: str
    kind: str
    size: int | None = None
    sha256: str | None = None
    status: str = OK
    notes: list[str] = field(default_factory=list)

    @property
    def detail(self) -> str | None:
        return "; ".join(self.notes) if self.notes else None

    def note(self, message: str) -> None:
        self.notes.append(message)

    def as_row(self) -> dict[str, Any]:
        return {"file": self.file, "kind": self.kind, "size": self.size,
                "sha256": self.sha256, "status": self.status, "detail": self.detail}


def has_dotdot(rel: str) -> bool:
    """True when a relative path is absolute or has a ``..`` component (what
    ``PurePosixPath`` says, with string operations: this runs for every file read)."""
    p = rel.replace("\\", "/")
    return p.startswith("/") or ".." in p.split("/")


def _parts(rel: str) -> list[str]:
    """``PurePosixPath(rel).parts`` of a relative path: its components without empty and
    ``.`` ones."""
    if rel.startswith("/"):
        return list(PurePosixPath(rel).parts)
    return [p for p in rel.split("/") if p and p != "."]


def decode_text(data: bytes, record: FileRecord | None = None) -> str:
    """UTF-8 decode (BOM stripped); invalid bytes become U+FFFD and mark ``not_utf8``."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if record is not None:
            if record.status == OK:
                record.status = NOT_UTF8
            record.note(f"invalid UTF-8 at byte {exc.start}; replaced with U+FFFD")
        return data.decode("utf-8", errors="replace")


NONFINITE_NOTE = "non-standard JSON: bare NaN/Infinity read as non-finite numbers"
"""The note a file parsed only by the lenient reader gets (docs/extract.md)."""


def _lenient(text: str) -> tuple[bool, Any]:
    """Parse ``text`` as Python's ``json`` module does (which accepts the bare ``NaN``,
    ``Infinity`` and ``-Infinity`` tokens its ``dumps`` writes by default); succeed only when
    such a token was actually read, so every other kind of invalid JSON stays invalid."""
    seen: list[str] = []

    def constant(token: str) -> float:
        seen.append(token)
        return float(token.replace("Infinity", "inf"))

    try:
        obj = json.loads(text, parse_constant=constant)
    except (ValueError, RecursionError):
        return False, None
    return (True, obj) if seen else (False, None)


def parse_json(data: bytes, record: FileRecord | None = None) -> tuple[bool, Any]:
    """Decode and parse JSON. A document with bare ``NaN`` / ``Infinity`` tokens (Python's
    ``json.dumps`` default) is read as Python's ``json`` reads it, with a note on the record
    (:data:`NONFINITE_NOTE`). On any other failure mark the record ``parse_error`` with
    orjson's message and the byte offset, and return ``(False, None)``."""
    text = decode_text(data, record)
    try:
        return True, orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        ok, obj = _lenient(text)
        if ok:
            if record is not None:
                record.note(NONFINITE_NOTE)
            return True, obj
        if record is not None:
            byte_off = len(text[: exc.pos].encode("utf-8"))
            record.status = PARSE_ERROR
            record.note(f"{exc.msg} at line {exc.lineno} column {exc.colno} (byte {byte_off})")
        return False, None


def _read_capped(fh: Any, size: int, cap: int) -> bytes:
    """The file's bytes up to EOF, or ``cap + 1`` bytes when it holds more than ``cap``
    (the caller refuses it as ``too_large``). The first read asks for the ``fstat`` size + 1
    (asking for ``cap + 1`` allocates the whole cap on every read: ~1.3 ms of a run's CPU);
    a file that grew since is topped up read by read until EOF or past the cap."""
    want = min(size, cap) + 1
    data = fh.read(want)
    if len(data) < want:  # EOF reached: the usual case, one read
        return data
    parts = [data]
    total = len(data)
    while total <= cap:
        more = fh.read(min(max(total, 1 << 16), cap + 1 - total))
        if not more:
            break
        parts.append(more)
        total += len(more)
    return b"".join(parts)


class CaseFS:
    """Read-only, containment-checked view of one case directory."""

    def __init__(self, case_dir: str | os.PathLike[str], *,
                 max_file_bytes: int = DEFAULT_MAX_FILE_BYTES) -> None:
        self.root = Path(os.path.abspath(case_dir))
        self._root_str = str(self.root)
        self.root_real = os.path.realpath(self.root)
        try:
            self._root_dev: int | None = os.stat(self.root_real).st_dev
        except OSError:
            self._root_dev = None
        self.max_file_bytes = max_file_bytes
        self.records: list[FileRecord] = []
        self._by_rel: dict[str, FileRecord] = {}
        self._reals: dict[str, str] = {self._root_str: self.root_real}

    def _realpath(self, full: str) -> str:
        """``os.path.realpath(full)`` for a path under the case dir, resolved one component
        at a time from its parent's (cached) realpath: a component that is not a symlink
        is appended as is, a symlink is resolved by ``os.path.realpath``. Same answer, but
        one ``lstat`` per new path instead of one per component of every path."""
        real = self._reals.get(full)
        if real is None:
            parent, name = os.path.split(full)
            if not name or parent == full or not parent.startswith(self._root_str):
                real = os.path.realpath(full)
            else:
                try:
                    link = stat.S_ISLNK(os.lstat(full).st_mode)
                except OSError:  # missing (or not a dir above it): realpath just appends
                    link = False
                real = os.path.realpath(full) if link else \
                    os.path.join(self._realpath(parent), name)
            self._reals[full] = real
        return real

    # -- containment -------------------------------------------------------------------
    def _full(self, rel: str) -> str:
        parts = _parts(rel)
        return os.path.join(self._root_str, *parts) if parts else self._root_str

    def contains_real(self, real: str) -> bool:
        return real == self.root_real or real.startswith(self.root_real.rstrip(os.sep) + os.sep)

    def inside(self, rel: str) -> bool:
        """True when ``rel`` has no ``..`` and its realpath stays inside the case dir."""
        if has_dotdot(rel):
            return False
        return self.contains_real(self._realpath(self._full(rel)))

    def lexists(self, rel: str) -> bool:
        return not has_dotdot(rel) and os.path.lexists(self._full(rel))

    def is_real_dir(self, rel: str) -> bool:
        """A directory that is not itself a symlink (used when walking for bundles)."""
        if has_dotdot(rel):
            return False
        full = self._full(rel)
        return os.path.isdir(full) and not os.path.islink(full)

    def is_regular_inside(self, rel: str) -> bool:
        """A regular file whose realpath stays inside the case dir (no record made)."""
        return self.inside(rel) and os.path.isfile(self._full(rel))

    # -- records -----------------------------------------------------------------------
    def record(self, label: str, kind: str, rel: str | None = None) -> FileRecord:
        """The record of the file at ``rel`` (default: ``label``), created on first use."""
        key = rel if rel is not None else label
        rec = self._by_rel.get(key)
        if rec is None:
            rec = FileRecord(file=label, kind=kind)
            self._by_rel[key] = rec
            self.records.append(rec)
        return rec

    def _refuse(self, rec: FileRecord, status: str, detail: str) -> None:
        rec.status = status
        rec.note(detail)

    # -- access ------------------------------------------------------------------------
    def listdir(self, rel: str, label: str, kind: str) -> list[str] | None:
        """Sorted entry names of a directory inside the case dir; ``None`` (and an
        ``outside_bundle`` record) when the directory resolves outside it."""
        if not self.lexists(rel):
            return None
        full = self._full(rel)
        if not self.inside(rel):
            self._refuse(self.record(label, kind, rel), OUTSIDE_BUNDLE,
                         "directory resolves outside the case dir; not listed")
            return None
        if not os.path.isdir(full):
            return None
        try:
            return sorted(os.listdir(full))
        except OSError as exc:
            self._refuse(self.record(label, kind, rel), UNREADABLE, exc.strerror or str(exc))
            return None

    def read(self, rel: str, label: str, kind: str, *,
             keep: bool = True) -> tuple[FileRecord, bytes | None]:
        """Read one file. Returns its record and its bytes, or ``None`` when refused.

        ``keep=False`` applies the same guards but leaves no record (a peek).
        """
        rec = self.record(label, kind, rel) if keep else FileRecord(file=label, kind=kind)
        if has_dotdot(rel):
            self._refuse(rec, OUTSIDE_BUNDLE, "path has a '..' component; not read")
            return rec, None
        real = self._realpath(self._full(rel))
        if not self.contains_real(real):
            self._refuse(rec, OUTSIDE_BUNDLE, "resolves outside the case dir; not read")
            return rec, None
        try:
            st = os.stat(real)
            if not stat.S_ISREG(st.st_mode):
                self._refuse(rec, UNREADABLE, "not a regular file")
                return rec, None
            rec.size = st.st_size
            if st.st_size > self.max_file_bytes:
                self._refuse(rec, TOO_LARGE,
                             f"{st.st_size} bytes exceeds the {self.max_file_bytes}-byte cap")
                return rec, None
            fd = os.open(real, os.O_RDONLY | _O_NOFOLLOW | _O_NONBLOCK)
            with os.fdopen(fd, "rb") as fh:
                fst = os.fstat(fh.fileno())
                if not stat.S_ISREG(fst.st_mode):
                    self._refuse(rec, UNREADABLE, "not a regular file")
                    return rec, None
                if fst.st_nlink > 1:  # another name may lie outside: like a symlink out
                    self._refuse(rec, OUTSIDE_BUNDLE, f"a hard link ({fst.st_nlink} names, "
                                 "which may lie outside the case dir); not read")
                    return rec, None
                if self._root_dev is not None and fst.st_dev != self._root_dev:
                    self._refuse(rec, OUTSIDE_BUNDLE, "on another device than the case dir "
                                 "(a mount); not read")
                    return rec, None
                data = _read_capped(fh, fst.st_size, self.max_file_bytes)
        except OSError as exc:
            self._refuse(rec, UNREADABLE, exc.strerror or str(exc))
            return rec, None
        rec.size = len(data)
        if len(data) > self.max_file_bytes:
            self._refuse(rec, TOO_LARGE, f"grew past the {self.max_file_bytes}-byte cap")
            return rec, None
        rec.sha256 = hashlib.sha256(data).hexdigest()
        return rec, data
