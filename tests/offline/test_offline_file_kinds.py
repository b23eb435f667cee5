"""The offline table readers (`offline openrca`, `ranked`, `compare`) and `offline score
--baseline` read their files as every user input is read: a FIFO or a device is exit 3
naming it, at once (they used to open it and block forever, or read /dev/zero without end)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "data" / "offline" / "fixtures.jsonl"

COMMANDS = {
    "openrca": ("offline", "openrca", "--query", "{}", "--predictions", "{}"),
    "ranked-csv": ("offline", "ranked", "--truth", "{}", "--ranks", "{}"),
    "ranked-jsonl": ("offline", "ranked", "--truth", "t.csv", "--ranks", "{}"),
    "compare": ("offline", "compare", "{}", "{}"),
    "baseline": ("offline", "score", "--fixtures", str(FIXTURES), "--baseline", "{}"),
}


@pytest.mark.parametrize("special", ["fifo", "/dev/zero"])
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_fifo_or_device_input_is_refused_without_blocking(tmp_path: Path, name: str,
                                                           special: str) -> None:
    (tmp_path / "t.csv").write_text("case_id,root_cause\nc1,a\n")
    target = special
    if special == "fifo":
        os.mkfifo(tmp_path / "fifo")
    args = [a.replace("{}", target) for a in COMMANDS[name]]
    proc = subprocess.run([sys.executable, "-m", "rcaeval", *args], capture_output=True,
                          text=True, timeout=60, cwd=tmp_path, stdin=subprocess.DEVNULL)
    assert proc.returncode == 3, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr
    kind = "FIFO" if special == "fifo" else "character device"
    assert f"{target}" in proc.stderr and kind in proc.stderr, proc.stderr
