"""The bundle SDK's basics: its error, timestamps, ids and atomic JSON files."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:/@+-]{0,199}$")


class BundleError(ValueError):
    """A write the contract does not allow; ``rule`` names the contract rule."""

    def __init__(self, rule: str, message: str) -> None:
        self.rule = rule
        super().__init__(f"[{rule}] {message}")


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def parse_time(value: Any, what: str) -> datetime:
    """An ISO-8601 timestamp as an aware UTC datetime (naive values are UTC)."""
    if not isinstance(value, str) or not value.strip():
        raise BundleError("timestamp", f"{what}: expected an ISO-8601 timestamp, got {value!r}")
    try:
        dt = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError as exc:
        raise BundleError("timestamp", f"{what}: not an ISO-8601 timestamp: {value!r}") from exc
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


def check_id(value: Any, what: str) -> str:
    if not isinstance(value, str) or not _ID_RE.match(value):
        raise BundleError("evidence_id", f"{what}: id must be a non-empty string of letters, "
                          f"digits and _.:/@+- (at most 200), got {value!r}")
    return value


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def inside(root: Path, rel: str) -> Path:
    """``root/rel`` with its dir created and checked to resolve under ``root`` (a symlinked
    ``evidences`` or ``.opencode`` leading elsewhere is a :class:`BundleError`, rule
    ``symlink``: the writer never writes outside its bundle)."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    real_root, real_dir = root.resolve(), path.parent.resolve()
    if real_dir != real_root and not real_dir.is_relative_to(real_root):
        raise BundleError("symlink", f"{path.parent} resolves to {real_dir}, outside the "
                          f"bundle {real_root}: refusing to write {rel} there")
    return path


def write_atomic(root: Path, rel: str, data: bytes) -> None:
    """Replace ``root/rel`` with ``data`` atomically: a fresh temporary file (created, never
    opened through a symlink someone left at its name) renamed over it."""
    path = inside(root, rel)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    os.replace(tmp, path)


def append_bytes(root: Path, rel: str, data: bytes) -> None:
    """Append ``data`` to ``root/rel``, refusing a symlink at that name (rule ``symlink``)."""
    path = inside(root, rel)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NOFOLLOW, 0o644)
    except OSError:
        if path.is_symlink():
            raise BundleError("symlink", f"{path} is a symlink: refusing to append to "
                              "it") from None
        raise
    with os.fdopen(fd, "ab") as fh:
        fh.write(data)


def record(value: Any, rule: str, what: str) -> dict[str, Any]:
    """``value`` as a record dict, checked to be a mapping the bundle can write as JSON (an
    integer past 64 bits, a set or an object is a :class:`BundleError` here, before it
    enters the writer's state: there it would fail every later write)."""
    if not isinstance(value, Mapping):
        raise BundleError(rule, f"{what}: expected a JSON object (a mapping), got "
                          f"{type(value).__name__}")
    out = dict(value)
    try:
        orjson.dumps(out)
    except TypeError as exc:
        raise BundleError(rule, f"{what}: not writable as JSON ({exc})") from None
    return out


def _dump(root: Path, rel: str, doc: Any) -> None:
    write_atomic(root, rel, orjson.dumps(doc, option=orjson.OPT_INDENT_2
                                         | orjson.OPT_APPEND_NEWLINE))


def _load(path: Path, key: str) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    try:
        doc = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as exc:
        raise BundleError("json", f"{path}: cannot continue a bundle whose file is not JSON: "
                          f"{exc}") from exc
    items = doc.get(key) if isinstance(doc, dict) else None
    return [x for x in items if isinstance(x, dict)] if isinstance(items, list) else []
