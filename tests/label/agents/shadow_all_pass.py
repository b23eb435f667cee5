"""A semantic `command` provider for the label tests: reads the semantic context JSON on
stdin and says every diagnosis check passes (a shadow that is easy to persuade)."""

import json
import sys

ctx = json.load(sys.stdin)
print(json.dumps({"packet_version": 1, "status": "ok",
                  "checks": [{"check_id": c["check_id"], "verdict": "pass",
                              "rationale": "looks fine"} for c in ctx["input"]["checks"]],
                  "usage": {"requests": 1, "input_tokens": 1, "output_tokens": 1}}))
