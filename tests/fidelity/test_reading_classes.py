"""The reading classes (tests/fidelity/answers.yaml, kinds in fidelity_kit.READING_KINDS):
answers written for each way a keyword reader misplaces words - "root cause" as a label or a
noun phrase of another clause, bold lines, a hedge or retraction over a whole clause, a cause
claimed by the next sentence or by a numbered pick, candidate lists, role cues, misspellings -
each judged through extraction and the judge (judge_audit) against the shipped sample
registry, in English and Chinese where the grammar reads both."""

from __future__ import annotations

import pytest
from fidelity_kit import ANSWERS, READING_KINDS, detector_calls, load


@pytest.fixture(scope="module")
def calls(tmp_path_factory):
    return detector_calls(tmp_path_factory.mktemp("reading"), kinds=READING_KINDS)


def test_every_reading_class_has_both_sides_and_both_languages():
    answers = [a for a in load(ANSWERS)["answers"] if a["kind"] in READING_KINDS]
    kinds = {a["kind"] for a in answers}
    assert kinds == set(READING_KINDS) - ({"misspelling"} - kinds)
    for kind in kinds:
        values = {v for a in answers if a["kind"] == kind for v in a["expect"].values()}
        assert values == {True, False}, kind
        langs = {a["lang"] for a in answers if a["kind"] == kind}
        assert langs == ({"en"} if kind == "misspelling" else {"en", "zh"}), kind


@pytest.mark.parametrize("kind", READING_KINDS)
def test_reading_class_calls_are_right(calls, kind):
    mine = [c for c in calls if c.kind == kind]
    wrong = [(c.item, c.name, c.expected, c.got) for c in mine if not c.right]
    assert not wrong, wrong
