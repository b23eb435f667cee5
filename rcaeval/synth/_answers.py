"""The final-answer texts and analysis patches of the recorded agent behaviours."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from rcaeval.synth._incident import Incident
from rcaeval.synth._template import EvidenceItem

IdMap = Callable[[str], tuple[str, str]]
"""``log:panic`` -> (ref type, evidence id)."""


def flow(text: str) -> str:
    """Unwrap hard-wrapped template paragraphs: one line per paragraph, as chat agents write
    them (the judge treats every output line as its own sentence, docs/extract.md)."""
    paras = [" ".join(p.split()) for p in text.strip().split("\n\n")]
    return "\n\n".join(p for p in paras if p)


def _ids(item: EvidenceItem, idmap: IdMap) -> str:
    return ", ".join(idmap(r)[1] for r in item.refs)


def _bullet(inc: Incident, item: EvidenceItem, idmap: IdMap) -> str:
    claim = inc.render_refs(item.claim)
    return f"- {claim} ({_ids(item, idmap)})" if item.refs else f"- {claim}"


HEADINGS = {
    "en": ("# Incident analysis: {title}", "## Root cause", "Confidence: {confidence}.",
           "## Evidence", "## Ruled out", "## Missing data", "## Recommended actions"),
    "zh": ("# 故障分析：{title}", "## 根因", "置信度：{confidence}。", "## 证据", "## 已排除",
           "## 缺失数据", "## 建议操作"),
}
"""The thorough answer's headings per language."""


def _answer_spec(inc: Incident, lang: str):
    if lang == "zh":
        if inc.scenario.answer_zh is None:
            raise ValueError(f"scenario {inc.scenario.case_id} has no answer_zh")
        return inc.scenario.answer_zh
    return inc.scenario.answer


def thorough_answer(inc: Incident, idmap: IdMap | None = None, lang: str = "en") -> str:
    """Root cause, cited evidence, ruled-out alternatives, missing data, actions; in English or
    (``lang="zh"``, from the scenario's ``answer_zh``) Chinese."""
    idmap = idmap or inc.ref
    a = _answer_spec(inc, lang)
    title, root, conf, evidence, ruled, missing, actions = HEADINGS[lang]
    out = [title.format(title=inc.scenario.title), "", root, "",
           flow(inc.render_refs(a.root_cause)), "", conf.format(confidence=a.confidence), "",
           evidence, ""]
    out += [_bullet(inc, e, idmap) for e in a.evidence]
    if a.ruled_out:
        out += ["", ruled, ""]
        out += [f"- {inc.render_refs(t)}" for t in a.ruled_out]
    if a.missing_data:
        out += ["", missing, ""]
        out += [f"- {inc.render_refs(t)}" for t in a.missing_data]
    out += ["", actions, ""]
    out += [f"{n}. {inc.render_refs(t)}" for n, t in enumerate(a.actions, start=1)]
    return "\n".join(out) + "\n"


def misdiagnosis_answer(inc: Incident) -> str:
    """A confident, well-formatted answer naming the scenario's classic misdiagnosis."""
    m = inc.scenario.misdiagnosis
    out = [f"# Incident analysis: {inc.scenario.title}", "", "## Root cause", "",
           flow(inc.render_refs(m.root_cause)), "", "Confidence: high.", "", "## Evidence", ""]
    out += [_bullet(inc, e, inc.ref) for e in m.evidence]
    out += ["", "## Recommended actions", ""]
    out += [f"{n}. {inc.render_refs(t)}" for n, t in enumerate(m.actions, start=1)]
    return "\n".join(out) + "\n"


def shallow_answer(inc: Incident) -> str:
    return "## Summary\n\n" + flow(inc.render_refs(inc.scenario.shallow)) + "\n"


def followup_answer(inc: Incident, lang: str = "en") -> str | None:
    a = _answer_spec(inc, lang)
    return flow(inc.render_refs(a.followup)) + "\n" if a.followup else None


def patch_items(inc: Incident, items: list[EvidenceItem], idmap: IdMap) -> dict[str, Any]:
    out = []
    for n, item in enumerate(items, start=1):
        refs = [dict(zip(("type", "id"), idmap(r), strict=True)) for r in item.refs]
        out.append({"id": f"A{n}", "claim": inc.render_refs(item.claim), "role": item.role,
                    "refs": refs})
    return {"items": out}


def fabricating_idmap(inc: Incident, rng: random.Random) -> IdMap:
    """Maps every ref onto a plausible-looking id that was never collected."""
    cache: dict[str, tuple[str, str]] = {}

    def fake(token: str) -> tuple[str, str]:
        if token not in cache:
            kind, real = inc.ref(token)
            if kind == "metric":
                fid = real.rsplit("-", 1)[0] + f"-{rng.randint(7, 9)}"
            elif kind == "query":
                fid = f"Q-{rng.getrandbits(32):08x}"
            elif kind == "log":
                fid = f"L-{rng.randint(900000, 999999):06d}"
            else:
                fid = f"EV-{rng.randint(9000, 9999):04d}"
            cache[token] = (kind, fid)
        return cache[token]

    return fake


def fabricated_patch(inc: Incident, rng: random.Random) -> dict[str, Any]:
    """The thorough patch with every ref fabricated, plus a path-traversal id and a made-up
    metric and query id, so the required metric/query routing checks fail."""
    idmap = fabricating_idmap(inc, rng)
    patch = patch_items(inc, inc.scenario.answer.evidence, idmap)
    n = len(patch["items"]) + 1
    patch["items"].append({
        "id": f"A{n}", "claim": "Corroborating host-level evidence for the root cause.",
        "role": "supporting",
        "refs": [{"type": "log", "id": "../../etc/passwd"},
                 {"type": "metric", "id": f"M-node-load1-{inc.cluster_id}"},
                 {"type": "query", "id": f"Q-{rng.getrandbits(32):08x}"}],
    })
    return patch
