"""A `command:` test agent whose behaviour is chosen per case. It needs the real case id in
$RCAEVAL_CASE_ID, so its runs pass --expose-case-ids.

Environment (passed with --agent-env):
  AGENT_MODES  "case_id:mode,case_id:mode" (default mode for other cases: $AGENT_DEFAULT,
               else "replay")
  REC_DIR      recorded-run dir holding <case_id>/ bundles (for replay and symlink)
  SLEEP_S      seconds to sleep before answering (replay), default 0
  LOG          file to append "<case_id>" to when a replay finishes
  PID_DIR      dir to write "<case_id>.pid" into (hang)
  SECRET_FILE  a file outside the workspace the symlink mode links to

  COUNT_DIR    dir holding "<case_id>.n", how often the case ran (alternate)
  GATE_DIR     with GATE_AFTER=N: every case touches GATE_DIR/<case_id>.started; from the
               (N+1)th case on, while GATE_DIR/release does not exist, the agent writes its
               pid to GATE_DIR/<case_id>.waiting and waits for the file (a test's barrier)

Follow-up turns (RCAEVAL_TURN > 1) print a one-line answer. Modes: replay (copy the
recording, print its answer), crash (print a partial answer, exit 3), hang (sleep for
ever), symlink (replay, plus evidences/secret.json -> $SECRET_FILE), alternate (replay on
the 1st, 3rd, ... run of the case, crash on the others: a flaky agent).
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path


def _replay(case_id: str) -> None:
    src = Path(os.environ["REC_DIR"]) / case_id
    time.sleep(float(os.environ.get("SLEEP_S", "0")))
    for item in src.iterdir():
        if item.name == "manifest.json":
            continue
        if item.is_dir():
            shutil.copytree(item, item.name, dirs_exist_ok=True)
        else:
            shutil.copy2(item, item.name)
    out = Path("output.txt")
    sys.stdout.write(out.read_text(encoding="utf-8") if out.exists() else "no answer\n")
    log = os.environ.get("LOG")
    if log:
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(case_id + "\n")


def main() -> int:
    sys.stdin.read()
    if os.environ.get("RCAEVAL_TURN", "1") != "1":
        sys.stdout.write("The key evidence is listed in analysis_patch.json.\n")
        return 0
    case_id = os.environ["RCAEVAL_CASE_ID"]
    modes = dict(item.split(":", 1) for item in os.environ.get("AGENT_MODES", "").split(",")
                 if ":" in item)
    mode = modes.get(case_id, os.environ.get("AGENT_DEFAULT", "replay"))
    gate_dir = os.environ.get("GATE_DIR")
    if gate_dir:
        gates = Path(gate_dir)
        (gates / f"{case_id}.started").touch()
        release = gates / "release"
        if len(list(gates.glob("*.started"))) > int(os.environ.get("GATE_AFTER", "0")) \
                and not release.exists():
            (gates / f"{case_id}.waiting").write_text(str(os.getpid()))
            while not release.exists():
                time.sleep(0.05)
    if mode == "alternate":
        counter = Path(os.environ["COUNT_DIR"]) / f"{case_id}.n"
        n = int(counter.read_text()) + 1 if counter.exists() else 1
        counter.write_text(str(n))
        mode = "replay" if n % 2 else "crash"
    if mode == "crash":
        sys.stdout.write("## Root cause\nI was about to say")
        sys.stdout.flush()
        return 3
    if mode == "hang":
        pid_dir = Path(os.environ["PID_DIR"])
        (pid_dir / f"{case_id}.pid").write_text(os.readlink("/proc/self"))  # host pid
        while True:
            time.sleep(1)
    _replay(case_id)
    if mode == "symlink":
        Path("evidences").mkdir(exist_ok=True)
        os.symlink(os.environ["SECRET_FILE"], "evidences/secret.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
