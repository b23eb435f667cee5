"""How report notebooks start their kernel: the ``python3`` kernelspec (the interpreter running
rcaeval, docs/notebooks.md) over IPC sockets in a private temporary directory. Over TCP without
CurveZMQ keys, ipykernel prints a warning on stderr at every start; local IPC is also the
safer transport for a kernel that only this process talks to."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def kernel_options() -> Iterator[dict[str, Any]]:
    """Keyword arguments for ``papermill.execute_notebook`` (passed on to nbclient) that start
    the kernel on IPC sockets under a temporary directory removed afterwards."""
    from traitlets.config import Config

    with tempfile.TemporaryDirectory(prefix="rcaeval-kernel-") as tmp:
        cfg = Config({"KernelManager": {"transport": "ipc", "ip": f"{tmp}/kernel"}})
        yield {"config": cfg}
