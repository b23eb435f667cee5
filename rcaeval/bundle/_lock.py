"""The bundle lock: one writer at a time per bundle, across processes.

Several processes may write one bundle at once - tool servers an agent starts per tool call
(the LangGraph pattern), one per prompt turn, an agent's own ``BundleWriter`` beside them.
Every :class:`~rcaeval.bundle.BundleWriter` mutation runs under an exclusive ``flock`` on
:data:`LOCK_FILE` in the bundle's root and re-reads the bundle's state files first when any
changed since this writer last wrote them (a generation counter in the lock file, bumped by
every writer that wrote, and the files' inode, mtime and size), so a read-modify-write never
drops a record another process wrote (docs/bundle-sdk.md,
"Several writers").
"""

from __future__ import annotations

import fcntl
import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

LOCK_FILE = ".rcaeval-bundle.lock"
"""The lock file in the bundle's root (empty; never mirrored into the audit)."""

_FLAGS = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)

Signature = tuple[tuple[int, int, int] | None, ...]


class BundleLock:
    """A re-entrant (per writer) exclusive lock on ``root/LOCK_FILE``."""

    def __init__(self, root: Path) -> None:
        self.path = root / LOCK_FILE
        self._fd: int | None = None
        self._depth = 0

    def acquire(self) -> bool:
        """Take the lock; ``True`` when this call took it (not a nested acquire)."""
        self._depth += 1
        if self._depth > 1:
            return False
        try:
            fd = os.open(self.path, _FLAGS, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
            except BaseException:
                os.close(fd)
                raise
        except BaseException:
            self._depth = 0
            raise
        self._fd = fd
        return True

    def generation(self) -> bytes:
        """The lock file's generation counter (held: read through the lock's fd)."""
        assert self._fd is not None
        return os.pread(self._fd, 32, 0)

    def bump(self) -> bytes:
        """Advance the generation counter (held: this writer changed the bundle)."""
        assert self._fd is not None
        old = self.generation()
        new = str(int(old) + 1 if old.strip().isdigit() else 1).encode().ljust(20)
        os.pwrite(self._fd, new, 0)
        return new

    def release(self) -> None:
        self._depth -= 1
        if self._depth == 0 and self._fd is not None:
            fd, self._fd = self._fd, None
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)


def signature(root: Path, rels: tuple[str, ...]) -> Signature:
    """What identifies the current contents of ``rels`` (``None`` for a missing file)."""
    out: list[tuple[int, int, int] | None] = []
    for rel in rels:
        try:
            st = os.stat(root / rel)
        except OSError:
            out.append(None)
            continue
        out.append((st.st_ino, st.st_mtime_ns, st.st_size))
    return tuple(out)


def locked(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run a writer method under its bundle lock (``self.exclusive()``)."""
    @functools.wraps(fn)
    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        with self.exclusive():
            return fn(self, *args, **kwargs)
    return run
