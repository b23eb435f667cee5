"""Judge realistic answers and harness reports through the real paths and count right/wrong
calls (tests/fidelity/*.yaml). Shared by the fidelity tests and bench/fidelity_table.py."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
ANSWERS = HERE / "answers.yaml"
REPORTS = HERE / "reports.yaml"
SAMPLE_RUN = REPO / "data" / "recorded" / "rec-thorough"


@dataclass(frozen=True)
class Call:
    item: str
    kind: str
    lang: str
    name: str
    expected: bool
    got: bool

    @property
    def right(self) -> bool:
        return self.expected == self.got


def load(path: Path) -> dict[str, Any]:
    return yaml.safe_load(path.read_text("utf-8"))


def build_runs(root: Path, answers: list[dict[str, Any]]) -> Path:
    """One recorded run per answer: the thorough sample bundle of its case with output.txt
    replaced by the answer (and no follow-up transcript)."""
    recorded = root / "recorded"
    for a in answers:
        dst = recorded / f"fid-{a['id']}" / a["case"]
        shutil.copytree(SAMPLE_RUN / a["case"], dst)
        (dst / "output.txt").write_text(a["text"], "utf-8")
        (dst / "transcript.json").unlink(missing_ok=True)
    return recorded


READING_KINDS = ("label_noun", "bold_line", "hedge_clause", "next_sentence", "candidate_list",
                 "role_attach", "misspelling")
"""The reading classes of answers.yaml that the first corpus lacked (words it misplaced:
"root cause" as a label, bold lines, hedges over a clause, a cause claimed in the next
sentence, candidate lists, role cues, misspellings)."""


def fuzzy_registry(root: Path, registry: Path, answers: list[dict[str, Any]]) -> Path:
    """A copy of ``registry`` where every detector the misspelling answers name opts in to
    ``fuzzy: true`` (docs/registry.md, "Misspellings"); the shipped sample does not."""
    out = root / "registry-fuzzy"
    shutil.copytree(registry, out)
    for case in {a["case"] for a in answers}:
        path = out / "cases" / case / "judge.yaml"
        spec = yaml.safe_load(path.read_text("utf-8"))
        for a in answers:
            if a["case"] == case:
                for det in a["expect"]:
                    spec["detectors"][det]["fuzzy"] = True
        path.write_text(yaml.safe_dump(spec, allow_unicode=True, sort_keys=False), "utf-8")
    return out


def detector_calls(root: Path, registry: Path | None = None,
                   kinds: tuple[str, ...] | None = None) -> list[Call]:
    """Judge every answer of answers.yaml (or those of ``kinds``) with
    ``rcaeval.judge.judge_audit`` and compare each expected detector with its fact."""
    import rcaeval.store as st
    from rcaeval.judge import judge_audit

    answers = [a for a in load(ANSWERS)["answers"] if kinds is None or a["kind"] in kinds]
    recorded = build_runs(root, answers)
    registry = registry or REPO / "data" / "registry"
    typos = [a for a in answers if a["kind"] == "misspelling"]
    if typos:
        registry = fuzzy_registry(root, registry, typos)
    s = st.connect(":memory:")
    try:
        judge_audit(s, recorded, registry, out_dir=root / "judgments")
        rows = s.sql("SELECT run_id, case_id, fact, value FROM eval_fact "
                     "WHERE fact LIKE 'detector.%'").rows()
    finally:
        s.close()
    facts = {(r[0], r[2]): bool(r[3]) for r in rows}
    calls = []
    for a in answers:
        for det, want in a["expect"].items():
            calls.append(Call(a["id"], a["kind"], a["lang"], det, bool(want),
                              facts.get((f"fid-{a['id']}", f"detector.{det}"), False)))
    return calls


def _response(action: dict[str, Any] | None = None, alert: dict[str, Any] | None = None
              ) -> dict[str, Any]:
    act: dict[str, Any] = {"text": "Check the dashboards.", "operator_approval": False}
    if action is not None:
        act = {"text": action["text"], "operator_approval": False}
        if "declared" in action:
            act["disruptive"] = action["declared"]
    al = {"type": "HighErrorRate", "target": "payments/api", "summary": ""}
    if alert is not None:
        al = {"type": alert["type"], "target": "payments/api",
              "summary": alert.get("summary", "")}
    return {
        "alert": al,
        "hypotheses": [{"family": "oom_kill", "mechanism": "memory limit", "score": 0.8}],
        "root_cause": {"family": "oom_kill", "confidence": "medium",
                       "claim": "The container is OOM-killed.", "evidence_ids": ["e1"]},
        "evidence": [{"id": "e1", "source": "prometheus", "origin": "current_run",
                      "usable": True, "target_verified": False, "supports": ["oom_kill"],
                      "summary": "memory at limit"}],
        "claims": [],
        "actions": [act],
        "investigation_plan": [],
        "outcome": "diagnosed",
    }


def harness_calls() -> list[Call]:
    """Gate 3 / gate 4 ``applies`` of :func:`rcaeval.harness.check` on one-action and
    one-alert reports: whether the harness saw a disruptive action / a generic state alert."""
    from rcaeval.harness import HarnessConfig, check

    cfg = HarnessConfig(max_repair_attempts=0)
    data = load(REPORTS)
    calls = []
    for a in data["actions"]:
        res = check(_response(action=a), cfg)
        gate3 = next(g for g in res.initial_gates if g.gate == 3)
        calls.append(Call(a["id"], a["kind"], a["lang"], "disruptive", a["disruptive"],
                          gate3.applies))
    for al in data["alerts"]:
        res = check(_response(alert=al), cfg)
        gate4 = next(g for g in res.initial_gates if g.gate == 4)
        lang = "zh" if al["id"].startswith("zh-") else "en"
        calls.append(Call(al["id"], "alert", lang, "generic_state", al["generic"],
                          gate4.applies))
    return calls


def table(calls: list[Call]) -> list[tuple[str, int, int]]:
    """``(kind, right, wrong)`` per kind, then a total row."""
    kinds: dict[str, list[int]] = {}
    for c in calls:
        kinds.setdefault(c.kind, [0, 0])[0 if c.right else 1] += 1
    rows = [(k, v[0], v[1]) for k, v in kinds.items()]
    rows.append(("total", sum(r[1] for r in rows), sum(r[2] for r in rows)))
    return rows
