"""Detector examples (``detectors.<id>.examples: {fires: [...], silent: [...]}`` in
judge.yaml): each example is judged as a whole final answer by the judge itself
(:mod:`rcaeval.authoring._judging`) and an example its detector disagrees with is a
``detector_example`` error naming the file, case, detector and example."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rcaeval.authoring._judging import Answer, judge_answers
from rcaeval.registry import Problem, dotted, parse_yaml, sort_problems

EXAMPLE_CODE = "detector_example"


@dataclass(frozen=True)
class Example:
    """One example of one detector of one case."""

    case_id: str
    detector_id: str
    expect: str           # "fires" | "silent"
    index: int
    text: str

    @property
    def path(self) -> tuple[str | int, ...]:
        """The example's YAML key path inside judge.yaml."""
        return ("detectors", self.detector_id, "examples", self.expect, self.index)

    @property
    def field(self) -> str:
        return dotted(self.path)


def case_examples(merged: Any) -> list[Example]:
    """Every example of a merged case's detectors, in detector then list order."""
    out: list[Example] = []
    for det_id, det in merged.judge.detectors.items():
        if det.examples is None:
            continue
        for expect in ("fires", "silent"):
            for i, text in enumerate(getattr(det.examples, expect)):
                out.append(Example(merged.case_id, det_id, expect, i, text))
    return out


def _short(text: str, limit: int = 80) -> str:
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 3] + "..."


def run_examples(cases: Iterable[Any]) -> list[tuple[Example, bool, str]]:
    """Judge every example of ``cases`` (merged cases) in one judge pass. Returns
    ``(example, agrees, rule)`` per example: ``agrees`` is whether the detector did what the
    example says; ``rule`` is the deciding rule (docs/judge.md, "Which rule decided")."""
    merged = {m.case_id: m for m in cases}
    examples = [ex for m in merged.values() for ex in case_examples(m)]
    answers = [Answer(key=f"example-{i:05d}", case_id=ex.case_id, text=ex.text)
               for i, ex in enumerate(examples)]
    judged = judge_answers(merged, answers)
    out = []
    for ex, answer in zip(examples, answers, strict=True):
        decision = judged[answer.key].detectors.get(ex.detector_id)
        fires = bool(decision and decision.fires)
        rule = decision.rule() if decision else "the detector was not evaluated"
        out.append((ex, fires == (ex.expect == "fires"), rule))
    return out


def example_problems(root: Path, cases: Iterable[Any]) -> list[Problem]:
    """A ``detector_example`` error for every example its detector disagrees with."""
    problems: list[Problem] = []
    lines: dict[str, Any] = {}
    for ex, agrees, rule in run_examples(cases):
        if agrees:
            continue
        rel = f"cases/{ex.case_id}/judge.yaml"
        if rel not in lines:
            lines[rel], _ = parse_yaml(root / rel, rel)
        doc = lines[rel]
        line = doc.line_of(ex.path) \
            if doc is not None else None
        did = "does not fire" if ex.expect == "fires" else "fires"
        problems.append(Problem(
            rel, line, ex.field, EXAMPLE_CODE,
            f"case {ex.case_id}: detector {ex.detector_id} {did} on its example "
            f"{ex.expect}[{ex.index}] {_short(ex.text)!r} ({rule})"))
    return sort_problems(problems)
