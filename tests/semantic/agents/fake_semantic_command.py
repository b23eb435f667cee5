"""A semantic provider for the `command` tests: reads semantic_context_v1.json on stdin and
prints a packet. argv[1]: ok | fail_all | malformed | exit1 | hang | partial | markup
(markup: odd samples say fail, rationales carry HTML markup)."""

import json
import sys
import time

mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
ctx = json.load(sys.stdin)
ids = [c["check_id"] for c in ctx["input"]["checks"]]
if mode == "hang":
    time.sleep(120)  # the provider under test never answers; rcaeval must kill it
if mode == "exit1":
    print("judge exploded", file=sys.stderr)
    sys.exit(1)
if mode == "malformed":
    print('{"checks": [{"check_id": 1}]}')
    sys.exit(0)
verdict = "fail" if mode == "fail_all" else "pass"
if mode == "partial":
    ids = ids[:1]
sample = int(__import__("os").environ.get("RCAEVAL_SEMANTIC_SAMPLE", "0"))
rationale = f"sample {sample}"
if mode == "markup":
    verdict = "fail" if sample % 2 else "pass"
    rationale = f"<i>sample {sample}</i> & co"
print(json.dumps({"packet_version": 1, "status": "ok",
                  "checks": [{"check_id": c, "verdict": verdict, "rationale": rationale}
                             for c in ids],
                  "usage": {"requests": 1, "input_tokens": 7, "output_tokens": 3,
                            "cost_usd": 0.001}}))
