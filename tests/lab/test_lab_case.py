"""A lab scenario as a registry case (rcaeval.lab.scenario_judge): its judge.yaml loads, the
ground truth's answer is identified and passes the guard, the misdiagnosis a wrong agent gives
trips the guard and is not identified — judged by the judge itself (`case try`)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from rcaeval.authoring import try_answer
from rcaeval.lab import load_scenarios
from rcaeval.lab._case import scenario_judge
from rcaeval.prove._plan import family_phrase, wrong_root_cause
from rcaeval.registry import load_case
from rcaeval.registry._judge import JudgeSpec

pytestmark = pytest.mark.slow  # 16 judged answers, ~75 s on 2 cores

SAMPLE = Path(__file__).parents[2] / "data" / "registry" / "cases" / "stale-stats-plan-flip-001"
SCENARIOS = load_scenarios()


@pytest.fixture(scope="module")
def registry(tmp_path_factory) -> Path:
    reg = tmp_path_factory.mktemp("lab-registry")
    for sc in SCENARIOS:
        case = reg / "cases" / sc.id
        case.mkdir(parents=True)
        doc = yaml.safe_load((SAMPLE / "case.yaml").read_text())
        doc["case_id"] = sc.id
        (case / "case.yaml").write_text(yaml.safe_dump(doc))
        shutil.copytree(SAMPLE / "incident", case / "incident")
        (case / "judge.yaml").write_text(yaml.safe_dump(scenario_judge(sc), sort_keys=False))
    return reg


@pytest.mark.parametrize("sc", SCENARIOS, ids=lambda s: s.id)
def test_scenario_case_identifies_the_truth_and_guards_the_misdiagnosis(registry, sc):
    JudgeSpec.model_validate(scenario_judge(sc))
    merged = load_case(registry, sc.id)
    first, guard = next(iter(sc.judge.detectors)), sc.judge.misdiagnosis.id
    hard = [c.id for c in merged.judge.judge.diagnosis.hard_checks]
    assert hard == [f"identifies_{sc.ground_truth.family}",
                    f"avoids_{guard.removeprefix('asserts_')}_misdiagnosis"]
    gt = sc.ground_truth
    right = try_answer(registry, sc.id, f"## Root cause\n\n{gt.summary}\n\nThe mechanism: "
                       f"{gt.mechanism}\n\nConfidence: high.\n")
    assert right.detectors[first].fires and not right.detectors[guard].fires
    wrong = try_answer(registry, sc.id, "## Root cause\n\n"
                       f"{wrong_root_cause(family_phrase(guard))}\n")
    assert wrong.detectors[guard].fires and not wrong.detectors[first].fires
