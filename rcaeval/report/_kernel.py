"""How report notebooks start their kernel: the ``python3`` kernelspec (the interpreter running
rcaeval, docs/notebooks.md) over IPC sockets in a private temporary directory. Over TCP without
CurveZMQ keys, ipykernel prints a warning on stderr at every start; local IPC is also the
safer transport for a kernel that only this process talks to.

The kernel logs at CRITICAL only. jupyter_client always interrupts (SIGINT) a kernel before it
asks it to shut down, and an idle ipykernel answers by logging "KeyboardInterrupt caught in
kernel" at ERROR on the inherited stderr, depending on timing. Cell errors are not affected:
they are recorded in the executed notebook and raised by papermill."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

KERNEL_ARGUMENTS: tuple[str, ...] = ("--IPKernelApp.log_level=CRITICAL",)
"""Command-line options given to every report kernel."""


@contextmanager
def kernel_options() -> Iterator[dict[str, Any]]:
    """Keyword arguments for ``papermill.execute_notebook`` (passed on to nbclient) that start
    the kernel on IPC sockets under a temporary directory removed afterwards."""
    from traitlets.config import Config

    with tempfile.TemporaryDirectory(prefix="rcaeval-kernel-") as tmp:
        cfg = Config({"KernelManager": {"transport": "ipc", "ip": f"{tmp}/kernel"}})
        yield {"config": cfg, "extra_arguments": list(KERNEL_ARGUMENTS)}
