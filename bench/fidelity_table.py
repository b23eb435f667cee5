"""Right/wrong calls of the output detectors and of the harness's disruptive-action and
generic-alert inference on the realistic answers and reports of tests/fidelity/*.yaml.

    .venv/bin/python bench/fidelity_table.py            # table per kind and language

Every call goes through the real path: `judge_audit` over a recorded run per answer (the
sample's thorough bundle with the answer as output.txt), `rcaeval.harness.check` per report.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "fidelity"))

from fidelity_kit import detector_calls, harness_calls, table  # noqa: E402


def _print(title: str, calls: list) -> None:
    print(f"\n{title}")
    print(f"{'kind':<16}{'right':>7}{'wrong':>7}")
    for kind, right, wrong in table(calls):
        print(f"{kind:<16}{right:>7}{wrong:>7}")
    for lang in ("en", "zh"):
        sub = [c for c in calls if c.lang == lang]
        print(f"{'  lang ' + lang:<16}{sum(c.right for c in sub):>7}"
              f"{sum(not c.right for c in sub):>7}")
    wrong = [f"{c.item}:{c.name}={c.got}" for c in calls if not c.right]
    if wrong:
        print("wrong: " + ", ".join(wrong))


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="fidelity-") as tmp:
        _print("output detectors (answers.yaml)", detector_calls(Path(tmp)))
    _print("harness inference (reports.yaml)", harness_calls())


if __name__ == "__main__":
    main()
