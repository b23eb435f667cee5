"""A lab scenario as a registry case, so a lab run is judged by the ordinary judge: the
scenario gives judge.yaml (ground truth, its detectors, the critical-evidence checks, the
diagnosis hard checks ``identifies_<family>`` and ``avoids_<misdiagnosis>_misdiagnosis``),
``lab capture`` of the window gives case.yaml and the incident data the judge cross-checks
the evidence against."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from rcaeval.lab._capture import capture
from rcaeval.lab._scenario import Scenario


def _detector(det: Any) -> dict[str, Any]:
    return {"description": det.description, "any": list(det.any), "all": list(det.all),
            "scope": "root_cause", "negation": True}


def scenario_judge(sc: Scenario) -> dict[str, Any]:
    """The judge.yaml document of scenario ``sc`` (its case id is the scenario's id)."""
    gt = sc.ground_truth
    first = next(iter(sc.judge.detectors))
    mis = sc.judge.misdiagnosis
    detectors = {k: _detector(d) for k, d in sc.judge.detectors.items()}
    detectors[mis.id] = _detector(mis)
    guard = mis.id.removeprefix("asserts_")
    root = {"family": gt.family, "component": gt.component, "summary": gt.summary}
    if gt.mechanism:
        root["mechanism"] = gt.mechanism
    return {
        "case_id": sc.id,
        "ground_truth": {"root_cause": root},
        "detectors": detectors,
        "judge": {
            "evidence_collection": {"preferred_channels": list(sc.judge.required_channels),
                                    "min_preferred_channels": 1},
            "critical_evidence": {"checks": list(sc.judge.critical)},
            "diagnosis": {"mode": "deterministic_only", "hard_checks": [
                {"id": f"identifies_{gt.family}",
                 "description": "The root-cause statement names the ground-truth family.",
                 "all_of": [{"detector": first}]},
                {"id": f"avoids_{guard}_misdiagnosis",
                 "description": f"The answer does not state {guard} as the root cause.",
                 "all_of": [{"detector": mis.id, "expect": False}]}]},
        },
    }


def scenario_case(sc: Scenario, registry: Path, lab_dir: Path, *,
                  case_id: str | None = None) -> Path:
    """Capture the running lab's window into ``registry/cases/<case_id>`` (default: the
    scenario's id) and give it the scenario's judge.yaml; the case dir (replaced if it
    exists)."""
    case_id = case_id or sc.id
    out = Path(registry) / "cases" / case_id
    capture(out, lab_dir, scenario=sc, force=True)
    doc = scenario_judge(sc)
    doc["case_id"] = case_id
    (out / "judge.yaml").write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True),
                                    encoding="utf-8")
    return out
