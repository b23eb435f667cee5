"""The harness's inference tables (``patterns.yaml``): disruptive actions (gate 3) and generic
state alerts (gate 4), in English and Chinese, as data. See docs/harness.md, "Inference"."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field

PATTERNS_RESOURCE = "patterns.yaml"

Vocab = str | list[str] | dict[str, Any]


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    pattern: str
    unless: str | None = None


class _Disruptive(BaseModel):
    model_config = ConfigDict(extra="forbid")
    leading_verbs: Vocab
    leading_prefix: str
    destructive_verbs: Vocab
    destructive_gerunds: Vocab
    destructive_participles: Vocab
    patterns: Vocab


class _Generic(BaseModel):
    model_config = ConfigDict(extra="forbid")
    patterns: Vocab


class PatternFile(BaseModel):
    """The shape of ``patterns.yaml``."""

    model_config = ConfigDict(extra="forbid")
    disruptive: _Disruptive
    generic_state: _Generic = Field()


@dataclass(frozen=True)
class Rule:
    """One compiled entry: it matches ``text`` when ``pattern`` finds a span that ``unless``
    does not match."""

    source: str
    rx: re.Pattern[str]
    unless: re.Pattern[str] | None = None

    def search(self, text: str) -> str | None:
        for m in self.rx.finditer(text):
            if self.unless is None or not self.unless.search(m.group(0)):
                return m.group(0)
        return None


def _items(v: Any) -> list[Any]:
    """Flatten a vocabulary: a string, an entry ``{pattern, unless}``, a list of them, or a
    mapping language -> any of these."""
    if v is None:
        return []
    if isinstance(v, str):
        return [v]
    if isinstance(v, list):
        return [x for item in v for x in _items(item)]
    if isinstance(v, dict) and "pattern" not in v:
        return [x for group in v.values() for x in _items(group)]
    return [v]


def _compile(pattern: str, what: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern, re.IGNORECASE)
    except re.error as exc:
        raise ValueError(f"{PATTERNS_RESOURCE}: {what}: invalid pattern {pattern!r}: {exc}"
                         ) from exc


@dataclass(frozen=True)
class Tables:
    disruptive: tuple[Rule, ...]
    generic_state: tuple[Rule, ...]


def _rules(entries: list[Any], subst: dict[str, str], what: str) -> tuple[Rule, ...]:
    out = []
    for e in entries:
        entry = _Entry.model_validate(e if isinstance(e, dict) else {"pattern": e})
        pattern = entry.pattern
        for key, value in subst.items():
            pattern = pattern.replace("{" + key + "}", value)
        out.append(Rule(entry.pattern, _compile(pattern, what),
                        _compile(entry.unless, what) if entry.unless else None))
    return tuple(out)


@lru_cache(maxsize=1)
def tables() -> Tables:
    """The compiled tables of the packaged ``patterns.yaml`` (parsed once)."""
    text = resources.files("rcaeval.harness").joinpath(PATTERNS_RESOURCE).read_text("utf-8")
    spec = PatternFile.model_validate(yaml.safe_load(text))
    d = spec.disruptive
    subst = {
        "destructive_verbs": "|".join(_items(d.destructive_verbs)),
        "destructive_gerunds": "|".join(_items(d.destructive_gerunds)),
        "destructive_participles": "|".join(_items(d.destructive_participles)),
    }
    leading = d.leading_prefix + "(?:" + "|".join(_items(d.leading_verbs)) + r")\b"
    disruptive = (Rule("leading verb", _compile(leading, "leading_verbs")),
                  *_rules(_items(d.patterns), subst, "disruptive.patterns"))
    return Tables(disruptive, _rules(_items(spec.generic_state.patterns), {},
                                     "generic_state.patterns"))


MATCH_CACHE = 16_384
"""Texts whose match is remembered: one report asks about the same action texts in several
gates, repairs and scores, and a batch repeats them across reports (the tables never change
in a process, so a cached answer is the answer)."""


@lru_cache(maxsize=MATCH_CACHE)
def disruptive_match(text: str) -> str | None:
    """The text span that makes ``text`` a disruptive action (None when nothing does)."""
    for rule in tables().disruptive:
        hit = rule.search(text)
        if hit is not None:
            return hit
    return None


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEP = re.compile(r"[_\-/.:]+")


def alert_words(text: str) -> str:
    """``KubeStatefulSetUpdateNotRolledOut`` -> ``kube stateful set update not rolled out``:
    CamelCase and ``_ - / . :`` split into spaces, lower case."""
    return " ".join(_SEP.sub(" ", _CAMEL.sub(" ", text)).lower().split())


@lru_cache(maxsize=MATCH_CACHE)
def generic_state_match(*texts: str) -> str | None:
    """The span of an alert type or summary naming a generic state (None when none does)."""
    for text in texts:
        if not text:
            continue
        words = alert_words(text)
        for rule in tables().generic_state:
            hit = rule.search(words)
            if hit is not None:
                return hit
    return None
