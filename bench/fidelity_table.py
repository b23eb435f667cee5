"""Right/wrong calls of the output detectors and of the harness's disruptive-action and
generic-alert inference on the realistic answers and reports of tests/fidelity/*.yaml.

    .venv/bin/python bench/fidelity_table.py            # table per kind and language
    .venv/bin/python bench/fidelity_table.py --reading  # only the reading classes

Every call goes through the real path: `judge_audit` over a recorded run per answer (the
sample's thorough bundle with the answer as output.txt), `rcaeval.harness.check` per report.
The reading classes (fidelity_kit.READING_KINDS: "root cause" as a label or noun phrase, bold
lines, a hedge or retraction over a clause, a cause claimed by the next sentence or a numbered
pick, candidate lists, role cues, misspellings) are summed on their own line too; the figures
before and after the judge learned them are in bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "fidelity"))

from fidelity_kit import READING_KINDS, detector_calls, harness_calls, table  # noqa: E402


def _print(title: str, calls: list) -> None:
    print(f"\n{title}")
    print(f"{'kind':<16}{'right':>7}{'wrong':>7}")
    for kind, right, wrong in table(calls):
        print(f"{kind:<16}{right:>7}{wrong:>7}")
    for lang in ("en", "zh"):
        sub = [c for c in calls if c.lang == lang]
        print(f"{'  lang ' + lang:<16}{sum(c.right for c in sub):>7}"
              f"{sum(not c.right for c in sub):>7}")
    reading = [c for c in calls if c.kind in READING_KINDS]
    if reading:
        print(f"{'  reading':<16}{sum(c.right for c in reading):>7}"
              f"{sum(not c.right for c in reading):>7}"
              f"   ({len({c.item for c in reading})} answers; "
              f"{len({c.item for c in reading if not c.right})} with a wrong call)")
    wrong = [f"{c.item}:{c.name}={c.got}" for c in calls if not c.right]
    if wrong:
        print("wrong: " + ", ".join(wrong))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reading", action="store_true",
                    help="only the reading classes of answers.yaml (no harness table)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="fidelity-") as tmp:
        _print("output detectors (answers.yaml)",
               detector_calls(Path(tmp), kinds=READING_KINDS if args.reading else None))
    if not args.reading:
        _print("harness inference (reports.yaml)", harness_calls())


if __name__ == "__main__":
    main()
