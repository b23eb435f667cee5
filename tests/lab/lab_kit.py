"""Helpers of the live lab tests: waiting for a real condition with a bounded deadline."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(what: str, cond: Callable[[], object], timeout_s: float) -> None:
    """Poll ``cond`` until it is true; an ``AssertionError`` naming ``what`` after
    ``timeout_s`` seconds."""
    deadline = time.monotonic() + timeout_s
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)  # polling interval of a real condition
