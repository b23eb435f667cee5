"""Output detectors read realistic answers the way a reviewer would: every expected call of
tests/fidelity/answers.yaml (English and Chinese; causal verbs, inline labels, hedges, roles,
negation) is right when judged by `judge_audit` against the shipped sample registry."""

from __future__ import annotations

import pytest
from fidelity_kit import ANSWERS, detector_calls, load


@pytest.fixture(scope="module")
def calls(tmp_path_factory):
    return detector_calls(tmp_path_factory.mktemp("fidelity"))


def test_corpus_covers_both_sides_of_every_kind():
    answers = load(ANSWERS)["answers"]
    kinds = {a["kind"] for a in answers}
    assert kinds >= {"causal_verb", "inline_label", "hedge", "role", "negation", "chinese"}
    for kind in kinds:
        values = {v for a in answers if a["kind"] == kind for v in a["expect"].values()}
        assert values == {True, False}, kind
    assert {a["lang"] for a in answers} == {"en", "zh"}


@pytest.mark.slow
def test_every_call_is_right(calls):
    wrong = [(c.item, c.name, c.expected, c.got) for c in calls if not c.right]
    assert not wrong, wrong
    assert len(calls) >= 80
