"""A command-adapter test agent. Usage: python cmd_agent.py <mode> [prompt_file]

  echo          print "turn <n>: <prompt>" (prompt from stdin, or from prompt_file)
  own_output    write output.txt itself and print something else
  stderr_flood  write 2 MiB to stderr, then answer
  crash         exit 3 without output
  crash_late    print a partial answer, then exit 4
  usage         answer and report usage in .rcaeval/usage.json
  symlink       write evidences/ with a symlink to /etc/hostname and a real file
  snoop         dump argv, cwd, env, prompt and every file reachable under cwd, HOME and
                TMPDIR into output.txt (turn 1) or stdout (later turns)
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

mode = sys.argv[1]
turn = int(os.environ.get("RCAEVAL_TURN", "0"))
prompt = Path(sys.argv[2]).read_text() if len(sys.argv) > 2 else sys.stdin.read()
stdin_rest = "" if len(sys.argv) <= 2 else sys.stdin.read()

if mode == "echo":
    print(f"turn {turn}: {prompt}" + (f" [stdin:{stdin_rest!r}]" if stdin_rest else ""))
elif mode == "own_output":
    Path("output.txt").write_text("answer from output.txt")
    print("chatter on stdout")
elif mode == "stderr_flood":
    line = "e" * 1023 + "\n"
    for _ in range(2 * 1024):
        sys.stderr.write(line)
    sys.stderr.flush()
    print("done after flood")
elif mode == "crash":
    sys.exit(3)
elif mode == "crash_late":
    print("partial answer", flush=True)
    sys.exit(4)
elif mode == "usage":
    Path(".rcaeval/usage.json").write_text(json.dumps(
        {"input_tokens": 10 * turn, "output_tokens": 5, "cost_usd": 0.25, "model": "m"}))
    print("with usage")
elif mode == "symlink":
    Path("evidences").mkdir()
    Path("evidences/real.json").write_text("{}")
    os.symlink("/etc/hostname", "evidences/hostname.json")
    os.symlink("real.json", "evidences/inside_link.json")
    print("wrote links")
elif mode == "snoop":
    out = ["ARGV:", json.dumps(sys.argv), "CWD:", os.getcwd(), "PROMPT:", prompt,
           "ENV:", json.dumps(dict(os.environ))]
    for base in {Path.cwd(), Path(os.environ["HOME"]), Path(os.environ.get("TMPDIR", "."))}:
        for dirpath, _dirs, files in os.walk(base):
            for name in files:
                p = Path(dirpath) / name
                out.append(f"FILE {p}")
                try:
                    out.append(p.read_text(errors="replace"))
                except OSError as exc:
                    out.append(f"unreadable {exc}")
    if turn > 1:
        print("\n".join(out))
    else:
        Path("output.txt").write_text("\n".join(out))
        print("snooped")
