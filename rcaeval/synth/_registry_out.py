"""Write the registry side of a scenario: case.yaml, judge.yaml, expected.md, incident/
(whose alerts.json holds the scenario's gate checks, served by the get_alerts tool)."""

from __future__ import annotations

from typing import Any

from rcaeval.synth._incident import Incident, iso, raw_log_text
from rcaeval.synth._io import TreeWriter
from rcaeval.synth._template import Scenario, load_library

SUITE_VERSION = "2026.11.1"
NOVEL_HARD_CHECKS: dict[str, str] = {
    "states_uncertainty": "calibrated_uncertainty",
    "plans_investigation": "investigation_plan",
    "cites_evidence": "grounded_in_evidence",
}
"""Hard checks of a novel case (detector -> check id): the honest provisional answer. With
the ``avoids_<familiar>_misdiagnosis`` checks they make the judge reward a grounded
provisional answer with a plan and fail a confident familiar family."""


def case_doc(inc: Incident, case_id: str) -> dict[str, Any]:
    sc = inc.scenario
    doc: dict[str, Any] = {
        "case_id": case_id,
        "title": sc.title,
        "case_type": sc.case_type,
        "tags": list(sc.tags),
        "prompt": {"text": inc.render_refs(sc.prompt.rstrip("\n") + "\n")},
        "environment": {"cluster_id": inc.cluster_id, "product": "tidb", "region": sc.region},
        "time_window": {"start": iso(inc.start), "end": iso(inc.end),
                        "tolerance_s": sc.window.tolerance_s},
        "execution": {"max_turns": 1 + len(sc.followup), "timeout_s": 900},
    }
    if sc.followup:
        doc["followup"] = [{"text": t} for t in sc.followup]
    doc["incident_data"] = "incident"
    return doc


def _detector(spec: dict[str, Any], scope: str = "root_cause", negation: bool = True) -> dict:
    doc = {"description": spec["description"], "any": list(spec["any"]),
           "all": list(spec.get("all", [])), "scope": spec.get("scope", scope),
           "negation": spec.get("negation", negation)}
    if spec.get("examples"):
        # answers the detector must fire / stay silent on; `rcaeval validate` judges them
        doc["examples"] = {k: list(v) for k, v in spec["examples"].items()}
    return doc


def judge_doc(sc: Scenario, case_id: str) -> dict[str, Any]:
    lib = load_library()
    jt = sc.judge
    novel = sc.case_type == "novel"
    detectors: dict[str, Any] = {}
    hard: list[dict[str, Any]] = []
    supporting: list[dict[str, Any]] = []
    detectors[f"asserts_{jt.asserts}"] = _detector(lib["families"][jt.asserts])
    identifies = {"id": f"identifies_{jt.asserts}",
                  "description": "The root-cause statement names the ground-truth family.",
                  "all_of": [{"detector": f"asserts_{jt.asserts}"}]}
    if novel:
        # a novel incident may be answered provisionally or left unresolved: naming the
        # mechanism earns supporting credit, it is not required
        supporting.append({**identifies, "weight": 2})
    else:
        hard.append(identifies)
    for ch in jt.missing_data:
        det = f"reports_missing_{ch}"
        detectors[det] = _detector(lib["missing_data"][ch], scope="anywhere", negation=False)
        hard.append({"id": f"reports_missing_{ch}_data",
                     "description": f"The answer says honestly that {ch} data is missing.",
                     "all_of": [{"detector": det}]})
    for fam in jt.must_not:
        detectors[f"asserts_{fam}"] = _detector(lib["families"][fam])
        why = (f"The answer does not force the familiar family {fam} onto this novel incident."
               if novel else f"The answer does not state {fam} as the root cause.")
        hard.append({"id": f"avoids_{fam}_misdiagnosis", "description": why,
                     "all_of": [{"detector": f"asserts_{fam}", "expect": False}]})
    if novel:
        for name, check in NOVEL_HARD_CHECKS.items():
            detectors[name] = _detector(lib["generic_detectors"][name])
            hard.append({"id": check, "description": lib["generic_detectors"][name]
                         ["description"], "all_of": [{"detector": name}]})
    for name, spec in jt.detectors.items():
        detectors[name] = _detector(spec)
    supporting += [dict(c) for c in jt.supporting_checks]
    generic = ["gives_remediation", "rules_out_alternatives"]
    for name in generic:
        detectors[name] = _detector(lib["generic_detectors"][name])
        supporting.append({"id": name, "weight": 1, "any_of": [{"detector": name}]})
    gt = sc.ground_truth
    root: dict[str, Any] = {"family": gt.family}
    if gt.synonyms:
        root["synonyms"] = list(gt.synonyms)
    if gt.component:
        root["component"] = gt.component
    if gt.component_synonyms:
        root["component_synonyms"] = list(gt.component_synonyms)
    root["summary"] = gt.summary.strip()
    if gt.mechanism:
        root["mechanism"] = gt.mechanism.strip()
    return {
        "case_id": case_id,
        "ground_truth": {"root_cause": root},
        "detectors": detectors,
        "judge": {
            "evidence_collection": {"preferred_channels": list(jt.preferred_channels),
                                    "min_preferred_channels": jt.min_preferred_channels},
            "critical_evidence": {"checks": [dict(c) for c in jt.critical_evidence]},
            "diagnosis": {"mode": "deterministic_only", "hard_checks": hard,
                          "supporting_checks": supporting},
        },
    }


def expected_md(inc: Incident, case_id: str) -> str:
    sc = inc.scenario
    gt = sc.ground_truth
    lines = [f"# {case_id}: {sc.title}", "", f"Case type: **{sc.case_type}** · cluster "
             f"`{inc.cluster_id}` · window {iso(inc.start)} – {iso(inc.end)}", "",
             "## Story", "", sc.story.strip(), "", "## Ground truth", "",
             f"- family: `{gt.family}`"
             + (f" (component `{gt.component}`)" if gt.component else ""),
             f"- {gt.summary.strip()}"]
    if gt.mechanism:
        lines.append(f"- mechanism: {gt.mechanism.strip()}")
    lines += ["", "## A good answer", "", inc.render_refs(sc.answer.root_cause.strip()), ""]
    lines += [f"- {inc.render_refs(e.claim)} ({', '.join(inc.ref(r)[1] for r in e.refs)})"
              for e in sc.answer.evidence]
    if sc.unavailable:
        lines += ["", "Unavailable channels: " + ", ".join(sc.unavailable) +
                  " — the answer must say this data is missing."]
    lines += ["", "## Classic misdiagnoses", ""]
    lines += [f"- `{fam}`" for fam in sc.judge.must_not]
    return "\n".join(lines) + "\n"


def write_case(w: TreeWriter, inc: Incident, case_id: str) -> None:
    """``cases/<case_id>/`` with case.yaml, judge.yaml, expected.md and incident/."""
    base = f"cases/{case_id}"
    w.yaml(f"{base}/case.yaml", case_doc(inc, case_id))
    w.yaml(f"{base}/judge.yaml", judge_doc(inc.scenario, case_id))
    w.text(f"{base}/expected.md", expected_md(inc, case_id))
    down = set(inc.unavailable)
    d = f"{base}/incident"
    w.json(f"{d}/topology.json", inc.topology)
    w.json(f"{d}/ticket.json", inc.ticket)
    if "logs" not in down:
        for inst in [c["instance"] for c in inc.topology["components"]]:
            lines = [e for e in inc.log_lines if e["instance"] == inst]
            if lines:
                w.text(f"{d}/logs/{inst}.log", raw_log_text(lines))
    if "metrics" not in down:
        w.json(f"{d}/metrics.json", {"series": inc.series})
    if "queries" not in down:
        w.json(f"{d}/slow_queries.json", {"queries": inc.queries})
    if "events" not in down:
        w.json(f"{d}/events.json", {"events": inc.events})
    w.json(f"{d}/component_health.json", {"components": inc.health})
    if inc.gate_checks:
        w.json(f"{d}/alerts.json", {"checks": inc.gate_checks})
    if down:
        w.json(f"{d}/tool_status.json", {"unavailable": sorted(down)})


def suite_doc(suite_id: str, description: str, cases: list[tuple[str, str]]) -> dict[str, Any]:
    return {
        "suite_id": suite_id,
        "version": SUITE_VERSION,
        "description": description,
        "execution": {"jobs": 2, "case_timeout_s": 900, "max_infra_retries": 1,
                      "turn_timeout_s": 600},
        "cases": [{"id": cid, "status": "active", "baseline_eligible": True, "tags": [ctype]}
                  for cid, ctype in cases],
    }
