"""A `command:` test agent for the Ray executor tests: the example command agent, except that
with ``$HOLD_DIR`` set, the ``$HOLD_AFTER``-th agent to start (0-based, default 0; agents
count themselves in ``$HOLD_DIR/started.*``) claims ``$HOLD_DIR/held`` unless it exists
(writing its workspace path there) and waits until ``$HOLD_DIR/release`` exists, then exits
1. The test kills its Ray worker or interrupts the run meanwhile: a barrier, not a timing."""

from __future__ import annotations

import os
import runpy
import sys
import time
from pathlib import Path


def main() -> None:
    hold = os.environ.get("HOLD_DIR")
    if hold:
        n = len(list(Path(hold).glob("started.*")))
        (Path(hold) / f"started.{os.getpid()}.{time.time_ns()}").touch()
    if hold and n >= int(os.environ.get("HOLD_AFTER", "0")):
        try:
            fd = os.open(Path(hold) / "held", os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        except FileExistsError:
            fd = None
        if fd is not None:
            os.write(fd, os.environ["RCAEVAL_WORKSPACE"].encode())
            os.close(fd)
            deadline = time.monotonic() + 600
            while not (Path(hold) / "release").exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            sys.exit(1)
    runpy.run_module("rcaeval.examples.example_command_agent", run_name="__main__")


if __name__ == "__main__":
    main()
