"""A deterministic example RCA agent for the ``command`` adapter (no LLM).

``--agent 'command:python -m rcaeval.runner.example_command_agent'``. It reads the prompt on
stdin (or from the file named as its first argument, for prompt-file mode), runs the same
investigation as the ACP example agent in its working directory, prints its Markdown
diagnosis on stdout and reports its (estimated) usage in ``.rcaeval/usage.json``. Follow-up
turns (``RCAEVAL_TURN`` > 1) print a short answer naming the key evidence ids.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import orjson

from rcaeval.runner._example_diagnosis import diagnose, load_incident, render_followup
from rcaeval.runner._example_investigation import Investigation


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    prompt = Path(args[0]).read_text(encoding="utf-8") if args else sys.stdin.read()
    turn = int(os.environ.get("RCAEVAL_TURN", "1"))
    root = Path.cwd()
    if turn == 1:
        answer = Investigation(root, dict(os.environ)).run()
    else:
        answer = render_followup(diagnose(load_incident(root)), turn, prompt)
    sys.stdout.write(answer)
    usage = {"input_tokens": max(1, len(prompt) // 4), "output_tokens": max(1, len(answer) // 4),
             "cost_usd": 0.0}
    runner_dir = root / ".rcaeval"
    if runner_dir.is_dir():
        (runner_dir / "usage.json").write_bytes(orjson.dumps(usage))
    return 0


if __name__ == "__main__":
    sys.exit(main())
