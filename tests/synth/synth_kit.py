"""A small, pessimistic reference of the documented detector and evidence-method semantics
(docs/registry.md), used only to check that the scenario templates do what they claim. It is
not the judge: the real one is SQL in queries/. "Pessimistic" means: for a detector that must
fire, any negation cue before the match counts; for one that must not fire, only a cue within
a few words does."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson

_ROOT_HEAD = re.compile(r"root cause|conclusion|diagnosis|summary|根因|结论", re.I)
_ALT_HEAD = re.compile(r"ruled out|alternatives|other hypotheses|considered|excluded|排除", re.I)
_CAUSAL = re.compile(r"root cause|caused by|primary cause|was due to|triggered by", re.I)
_CUES = re.compile(
    r"\b(?:not|no|never|isn't|wasn't|ruled out|rule out|unlikely|excluded|rather than|"
    r"instead of)\b|不是|排除", re.I)
_POST = re.compile(r"(?:was|were|is|are|has been) ruled out|is not the (?:root )?cause|"
                   r"can be excluded", re.I)
_SPLIT = re.compile(r"(?<=[.!?;])\s+")


def sentences(text: str) -> list[tuple[str, str]]:
    """(section kind, sentence) pairs; like docs/extract.md, every line is on its own."""
    out: list[tuple[str, str]] = []
    kind = "other"
    block: list[str] = []

    def flush() -> None:
        if block:
            for s in _SPLIT.split(" ".join(block)):
                if s.strip():
                    out.append((kind, s.strip()))
            block.clear()

    for line in text.splitlines():
        s = line.strip()
        if s.startswith("#"):
            flush()
            head = s.lstrip("#").strip()
            kind = ("alternatives" if _ALT_HEAD.search(head)
                    else "root_cause" if _ROOT_HEAD.search(head) else "other")
            continue
        if not s:
            flush()
            continue
        s = re.sub(r"^(?:[-*]|\d+\.)\s+", "", s)
        block.append(s)
        flush()
    flush()
    return out


def _negated(sentence: str, m: re.Match[str], window_words: int | None) -> bool:
    before = sentence[: m.start()]
    if window_words is not None:
        before = " ".join(before.split()[-window_words:])
    return bool(_CUES.search(before)) or bool(_POST.search(sentence[m.end():]))


def fires(det: dict[str, Any], text: str, *, window_words: int | None) -> bool:
    """window_words=None: any earlier cue negates (pessimistic for must-fire);
    a small number: only a nearby cue negates (pessimistic for must-not-fire)."""
    for kind, sent in sentences(text):
        scope = det.get("scope", "root_cause")
        if scope == "root_cause" and not (
            kind == "root_cause" or (kind != "alternatives" and _CAUSAL.search(sent))):
            continue
        if scope == "alternatives" and kind != "alternatives":
            continue
        if not all(re.search(p, sent, re.I) for p in det.get("all", [])):
            continue
        for pat in det["any"]:
            for m in re.finditer(pat, sent, re.I):
                if det.get("negation", True) and _negated(sent, m, window_words):
                    continue
                return True
    return False


def _jsonpath(doc: Any, path: str) -> list[Any]:
    vals = [doc]
    for step in re.findall(r"\.[^.\[\]]+|\[\*\]|\[\d+\]", path[1:]):
        nxt: list[Any] = []
        for v in vals:
            if step == "[*]" and isinstance(v, list):
                nxt.extend(v)
            elif step.startswith("[") and isinstance(v, list):
                i = int(step[1:-1])
                if i < len(v):
                    nxt.append(v[i])
            elif step.startswith(".") and isinstance(v, dict) and step[1:] in v:
                nxt.append(v[step[1:]])
        vals = nxt
    return vals


def _strings(v: Any) -> list[str]:
    if isinstance(v, str):
        return [v]
    if isinstance(v, list):
        return [s for x in v for s in _strings(x)]
    if isinstance(v, dict):
        return [s for x in v.values() for s in _strings(x)]
    return []


def _load(bundle: Path, name: str) -> Any:
    p = bundle / "evidences" / name
    return orjson.loads(p.read_bytes()) if p.is_file() else None


def method_holds(cond: dict[str, Any], bundle: Path) -> bool:
    m = cond["method"]
    if m == "keyword_any":
        kws = [k.lower() for k in cond["keywords"]]
        if cond["source"] == "logs":
            texts = [e["message"] for e in (_load(bundle, "logs.json") or {}).get("entries", [])]
            for f in sorted((bundle / "logs").glob("*.log")) if (bundle / "logs").is_dir() else []:
                texts += f.read_text().splitlines()
        else:
            texts = _strings(_load(bundle, cond["source"]))
        return any(k in t.lower() for t in texts for k in kws)
    doc = _load(bundle, cond.get("file", "traces.json" if m == "span_error_any"
                                 else "metrics.json"))
    if doc is None:
        return False
    if m == "json_list_nonempty":
        return any(isinstance(v, list) and v for v in _jsonpath(doc, cond["path"]))
    if m == "json_text_contains_any":
        vals = _jsonpath(doc, cond["path"]) if cond.get("path") else [doc]
        needles = [n.lower() for n in cond["needles"]]
        return any(n in s.lower() for v in vals for s in _strings(v) for n in needles)
    if m == "numeric_series_any_gt":
        for s in doc.get("series", []):
            labels = s.get("labels", {})
            if s["name"] == cond["series"] and all(
                    labels.get(k) == v for k, v in cond.get("labels", {}).items()):
                if any(p[1] is not None and p[1] > cond["threshold"] for p in s["points"]):
                    return True
        return False
    if m == "span_error_any":
        kws = [k.lower() for k in cond.get("keywords") or []]
        for sp in doc.get("spans", []):
            if sp.get("status") != "error" or (cond.get("service") and str(
                    sp.get("service", "")).lower() != cond["service"].lower()):
                continue
            if not kws or any(k in s.lower() for s in _strings(sp) for k in kws):
                return True
        return False
    raise AssertionError(f"unknown method {m}")
