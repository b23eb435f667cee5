"""An `acp:` agent that prints $GARBAGE_LINES lines of garbage on stdout, then exits 1."""

from __future__ import annotations

import os
import sys

for i in range(int(os.environ.get("GARBAGE_LINES", "1000"))):
    sys.stdout.write(f"this is not JSON-RPC {i} {{[\n")
sys.stdout.flush()
sys.exit(1)
