"""A hostile `command:` agent for the reliability tests: for the cases named in $HOSTILE_CASES
(comma-separated; every case when unset) it does $HOSTILE_MODE, otherwise it replays the
recording in $REC_DIR (a well-behaved agent). Needs --expose-case-ids.

Modes (each also replays the recording first unless noted):
  usage_huge      .rcaeval/usage.json {"input_tokens": 1e300, "output_tokens": 6e14, ...}
                  every turn (two turns pass the 1e15 bound), "cost_usd": -3
  big_output      a sparse output.txt of $HOSTILE_SIZE bytes (default 2 GiB)
  nul_stdout      $HOSTILE_SIZE NUL bytes on stdout (default 300 MB), no output.txt
  deep_tree       a directory tree $HOSTILE_DEPTH levels deep (default 1500) in evidences/
  wide_dir        $HOSTILE_WIDTH empty files (default 20000) in logs/
  symlink_runner  replaces .rcaeval/ with a symlink to /tmp
  symlink_workspace  replays, then replaces its whole workspace with a symlink to
                  $HOSTILE_TARGET (default /tmp), leaving no transcript.json
  delete_workspace   replays, then deletes its whole workspace
  daemon          double-forks a daemon (setsid) that writes its host pid to $HOSTILE_PID_FILE
  hang_after      replays, then waits for the file $HOSTILE_GATE before exiting (no sleep loop
                  is needed by the tests: they create the gate when they want it to finish)
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path


def _replay(case_id: str) -> str:
    src = Path(os.environ["REC_DIR"]) / case_id
    for item in src.iterdir():
        if item.name == "manifest.json":
            continue
        if item.is_dir():
            shutil.copytree(item, item.name, dirs_exist_ok=True)
        else:
            shutil.copy2(item, item.name)
    out = Path("output.txt")
    return out.read_text(encoding="utf-8") if out.exists() else "no answer\n"


def _deep(root: Path, depth: int) -> None:
    fd = os.open(".", os.O_RDONLY)
    try:
        root.mkdir(parents=True, exist_ok=True)
        os.chdir(root)
        for _ in range(depth):
            os.mkdir("d")
            os.chdir("d")
        Path("leaf.json").write_text("{}")
    finally:
        os.fchdir(fd)
        os.close(fd)


def main() -> int:
    sys.stdin.read()
    mode = os.environ.get("HOSTILE_MODE", "replay")
    case_id = os.environ["RCAEVAL_CASE_ID"]
    targets = [c for c in os.environ.get("HOSTILE_CASES", "").split(",") if c]
    if targets and case_id not in targets:
        mode = "replay"
    turn = os.environ.get("RCAEVAL_TURN", "1")
    if mode == "usage_huge":
        Path(".rcaeval/usage.json").write_text(
            '{"input_tokens": 1e300, "output_tokens": 600000000000000, '
            '"cache_read_tokens": 5, "cost_usd": -3}')
    if turn != "1":
        sys.stdout.write("The key evidence is listed in analysis_patch.json.\n")
        return 0
    answer = _replay(case_id) if mode != "nul_stdout" else ""
    size = int(os.environ.get("HOSTILE_SIZE", "0"))
    if mode == "big_output":
        with open("output.txt", "wb") as fh:
            fh.write(answer.encode())
            fh.truncate(size or 2 * 1024**3)
    elif mode == "nul_stdout":
        os.unlink("output.txt") if os.path.exists("output.txt") else None
        chunk = b"\0" * (1 << 20)
        left = size or 300 * 1000 * 1000
        out = sys.stdout.buffer
        while left > 0:
            out.write(chunk[: min(left, len(chunk))])
            left -= len(chunk)
        out.flush()
        return 0
    elif mode == "deep_tree":
        _deep(Path("evidences") / "deep", int(os.environ.get("HOSTILE_DEPTH", "1500")))
    elif mode == "wide_dir":
        Path("logs/wide").mkdir(parents=True, exist_ok=True)
        for i in range(int(os.environ.get("HOSTILE_WIDTH", "20000"))):
            open(f"logs/wide/f{i}.log", "w").close()
    elif mode == "symlink_runner":
        shutil.rmtree(".rcaeval")
        os.symlink(os.environ.get("HOSTILE_TARGET", "/tmp"), ".rcaeval")
    elif mode in ("symlink_workspace", "delete_workspace"):
        here = os.getcwd()
        os.chdir("/")
        shutil.rmtree(here)
        if mode == "symlink_workspace":
            os.symlink(os.environ.get("HOSTILE_TARGET", "/tmp"), here)
    elif mode == "daemon":
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                Path(os.environ["HOSTILE_PID_FILE"]).write_text(os.readlink("/proc/self"))
                time.sleep(1000)
            os._exit(0)
        while not Path(os.environ["HOSTILE_PID_FILE"]).exists():
            time.sleep(0.01)
    elif mode == "hang_after":
        gate = Path(os.environ["HOSTILE_GATE"])
        while not gate.exists():
            time.sleep(0.05)
    sys.stdout.write(answer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
