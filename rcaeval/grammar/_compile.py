"""The grammar compiled into RE2 regexes for one detector (bound as parameters of
queries/facts/detector_match.sql).

RE2 has no lookaround, so a cue that acts on a mention is compiled together with the
detector's own patterns: ``cue + window + pattern`` (a cue *before* the mention) and
``pattern + window + cue`` (a cue *after* it). The SQL blanks every such span out of the
sentence, stage by stage (negation, hedge, role, weak consequence), and a stage decided the
sentence when the pattern matched before it and no longer matches after it. Windows never
cross clause punctuation (``. ; : ! ?``, their CJK forms and the CJK comma ``，``); the clause
breaks are rewritten to ``;`` first, so "not X but Y" negates X only.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from rcaeval.grammar._vocab import merged

PRE_WINDOW = 60
"""Characters a cue before a mention reaches (negation, hedge, role)."""
POST_WINDOW = 25
"""Characters a negation cue after a mention reaches back."""
HEDGE_POST_WINDOW = 60
"""... a hedge after a mention ("X or Y, we cannot tell")."""
ROLE_POST_WINDOW = 40
"""... a role or consequence cue after a mention ("X on tikv-1 was merely a symptom")."""

NO_BREAK = r"[^.;:!?。；：！？，\n]"
NO_BREAK_POST = r"[^.;!?。；！？，\n]"
NO_BREAK_CHAIN = r"[^.;:!?。；：！？\n]"
"""Between two mentions a cue governs (commas and CJK commas included)."""
CHAIN_WINDOW = 60
RETRACTION_WINDOW = 60
"""Characters a retraction after a mention reaches back (commas included)."""

CLAUSE = r"(?:[^;:!?。；：！？\n]|:\d)"
"""A character of one clause (a colon in a time, 14:05, does not end it)."""
CLAUSE_NO_COLON = r"[^;:!?。；：！？\n]"
SENTENCE = r"[^!?。！？\n]"

NEVER_MATCHES = r"\b\B"
"""An RE2 pattern that matches nothing (bound for a stage that is off)."""

LABEL = r"^[\s*_>#•·-]*((?:[^\s:：]{1,24}\s+){0,3}[^\s:：]{1,24})\s*\**\s*[:：]"
"""The inline label of a line: the text before its first ``:`` / ``：`` when that is at most
four words (group 1)."""
_LABEL_END = r"[\s*_)）\]]*$"
LEAD = (r"^[\s*_>#•·-]*((?:[^\s:：]+\s+){0,11}[^\s:：]+?)\s*\**\s*"
        r"(?:[:：](?:\s|$)|：)")
"""The lead of a line: the text before its first colon when that is at most twelve words
(group 1); a label must end with its vocabulary word, a lead must start with it."""
BOLD_LEAD = r"^[\s>#•·-]*\*\*([^*]{1,80}?)\s*[:：]?\s*\*\*"
"""A bold span opening a line ("**Not the root cause**, only noise: ..."): a lead too."""
_LEAD_MODS = (r"(?:(?:the|our|my|final|most|likely|probable|main|primary|actual|real|"
              r"underlying|overall|immediate|identified|confirmed)\s+)*")
_LEAD_TAIL = (r"(?:\s+(?:analysis|statement|identified|found|confirmed|determined|summary))?"
              r"(?:\s*[(（][^)）]*[)）])?(?:\s+(?:of|for|behind|in|on)\s.*)?\W*$")

REGEX_KEYS = (
    "clause_break", "subject_break", "causal", "heading_conclusion", "heading_alternatives",
    "heading_role",
    "label", "label_conclusion", "label_alternatives", "label_role",
    "lead", "bold_lead", "lead_conclusion", "lead_alternatives", "lead_role", "lead_evidence",
    "label_evidence", "subordinate", "causal_bound", "anaphora_in", "anaphora_next",
    "anaphora_cue", "pick", "fuzzy_words",
    "hedge_pre", "hedge_post", "role_pre", "role_post", "weak_pre", "weak_post",
    "neg_before_cue", "neg_after_cue", "hedge_before_cue", "hedge_after_cue",
    "role_before_cue", "role_after_cue", "weak_before_cue", "weak_after_cue",
)
"""The keys of :func:`detector_regexes` besides ``neg_pre`` / ``neg_post`` (which have their
own rule_detector columns)."""


def alternation(patterns: list[str]) -> str:
    return "|".join(f"(?:{p})" for p in patterns)


def any_regex(patterns: list[str]) -> str:
    """Case-insensitive alternation of a detector's ``any`` patterns."""
    if not patterns:
        raise ValueError("a detector needs at least one `any` pattern")
    return "(?i)" + alternation(patterns)


def each_regex(patterns: list[str]) -> list[str]:
    """Each ``all`` pattern, case-insensitive."""
    return [f"(?i)(?:{p})" for p in patterns]


def _cue(cues: list[str]) -> str:
    return "(?i)" + ("|".join(cues) if cues else NEVER_MATCHES)


def _chain(patterns: list[str]) -> str:
    """Further mentions of ``patterns`` after one a cue governs, each within
    :data:`CHAIN_WINDOW` characters of the previous one in the same clause: the cue governs
    them all ("we suspect a hot region and a read hotspot", "怀疑缺少索引，全表扫描...")."""
    return f"(?:{NO_BREAK_CHAIN}{{0,{CHAIN_WINDOW}}}?(?:{alternation(patterns)}))*"


def pre_regex(cues: list[str], patterns: list[str], window: int = PRE_WINDOW) -> str:
    """A mention of ``patterns`` preceded (within ``window`` characters of one clause) by a
    cue, with the further mentions of the clause the cue governs."""
    if not cues:
        return NEVER_MATCHES
    return ("(?i)(?:" + "|".join(cues) + ")"
            + f"{NO_BREAK}{{0,{window}}}?(?:{alternation(patterns)})" + _chain(patterns))


def post_regex(cues: list[str], patterns: list[str], window: int,
               gap: str = NO_BREAK_POST, chain: bool = True) -> str:
    """A mention of ``patterns`` followed (within ``window`` characters) by a cue, with the
    mentions before it in the same clause that the cue governs too (``chain``; a role cue
    names only the mention it follows)."""
    if not cues:
        return NEVER_MATCHES
    p = f"(?:{alternation(patterns)})"
    before = f"(?:{NO_BREAK_CHAIN}{{0,{CHAIN_WINDOW}}}?{p})*" if chain else ""
    return (f"(?i){p}{before}{gap}{{0,{window}}}?"
            + "(?:" + "|".join(cues) + ")")


def negation_regexes(patterns: list[str], vocab: dict[str, list[str]] | None = None
                     ) -> tuple[str, str]:
    """``(pre, post)`` RE2 regexes matching a negated occurrence of any of ``patterns``."""
    v = vocab or merged()
    post = post_regex(v["negation_cues.after"], patterns, POST_WINDOW)
    retract = post_regex(v.get("retraction_cues", []), patterns, RETRACTION_WINDOW,
                         NO_BREAK_CHAIN)
    if retract != NEVER_MATCHES:
        post = retract if post == NEVER_MATCHES else f"{post}|{retract[4:]}"
    return pre_regex(v["negation_cues.before"], patterns), post


def causal_bound_regex(cues: list[str], patterns: list[str]) -> str:
    """A mention of ``patterns`` sharing a clause with a causal cue (either order), or after
    a colon that follows the cue and more words ("the root cause is clear: X", "originated
    from the data volume: X"); a cue that ends the text before the colon is a label's noun
    ("evidence for the root cause: X") and does not reach past it."""
    if not cues:
        return NEVER_MATCHES
    c, p = "(?:" + "|".join(cues) + ")", f"(?:{alternation(patterns)})"
    return (f"(?i){c}{CLAUSE}*?{p}|{p}{CLAUSE}*?{c}"
            f"|{c}{CLAUSE_NO_COLON}*?(?:\\s[\\p{{L}}\\p{{N}}]|\\p{{Han}}){CLAUSE_NO_COLON}*?[:：]"
            f"{CLAUSE}*?{p}")


def _anaphora(v: dict[str, list[str]], patterns: list[str]) -> dict[str, str]:
    claims = v["anaphoric_claims"]
    if not claims:
        return {"anaphora_in": NEVER_MATCHES, "anaphora_next": NEVER_MATCHES,
                "anaphora_cue": NEVER_MATCHES}
    a = "(?:" + "|".join(claims) + ")"
    return {
        "anaphora_in": (f"(?i)(?:{alternation(patterns)}){SENTENCE}*?[;；:：,，—–]\\s*"
                        f"(?:(?:and|so)\\s+)?{a}"),
        "anaphora_next": f"(?i)^[^\\p{{L}}\\p{{N}}]*{a}",
        "anaphora_cue": f"(?i){a}",
    }


def pick_regex(cues: list[str]) -> str:
    """A sentence picking a numbered list item (group 1: the number): a pick cue, then the
    number in brackets, after option / candidate / # / 第, or ending the clause."""
    if not cues:
        return NEVER_MATCHES
    return ("(?i)(?:" + "|".join(cues) + ")\\s*"
            r"(?:(?:option|candidate|number|no\.?|item|hypothesis|choice|explanation|#|第)\s*"
            r"[(（]?\s*|[(（]\s*)?(\d{1,3})"
            r"(?:\s*[)）]|\s*(?:个|条|项|种|号)|\s*(?:[.:;,。：；，!！?？]|$))")


def _lead(labels: list[str]) -> str:
    """A lead (the long text before a line's first colon) that starts with one of
    ``labels``."""
    return f"(?i)^[^\\p{{L}}\\p{{N}}]*(?:{alternation(labels)})" if labels else NEVER_MATCHES


def _roles(v: dict[str, list[str]], side: str) -> list[str]:
    return [p for role in ("symptom", "contributing", "consequence")
            for p in v[f"role_cues.{role}.{side}"]]


_FUZZY_MIN = 5
"""Shortest word a fuzzy detector corrects (shorter words have too many one-edit
neighbours: 'disk' / 'desk', 'full' / 'fill')."""
_OPTIONAL_SEP = re.compile(r"(?:\[[^\]]*\]|\\s|\\W|[ _-])[?*]")
_ESCAPE = re.compile(r"\\[a-zA-Z]")


def fuzzy_words(patterns: list[str]) -> list[str]:
    """The literal Latin-script words (at least five letters, lower case, sorted) of
    ``patterns``: what a ``fuzzy: true`` detector reads misspellings of. An optional separator
    between two words also yields the joined word (``hot ?spot`` -> ``hotspot``)."""
    words: set[str] = set()
    for pattern in patterns:
        for src in (pattern, _OPTIONAL_SEP.sub("", pattern)):
            words.update(w.lower() for w in re.findall(r"[A-Za-z]+", _ESCAPE.sub(" ", src))
                         if len(w) >= _FUZZY_MIN)
    return sorted(words)


def detector_regexes(patterns: list[str], *, scope: str, negation: bool,
                     extension: dict[str, Any] | None = None,
                     fuzzy: bool = False) -> dict[str, str]:
    """Every regex one detector needs: ``neg_pre`` / ``neg_post`` plus :data:`REGEX_KEYS`.

    Negation applies in every scope (``negation: false`` turns all cue stages off). Hedge,
    role and consequence stages apply only in scope ``root_cause``: they are about what the
    answer asserts as the cause, while an ``alternatives`` or ``anywhere`` detector looks for
    mentions whatever their status."""
    v = merged(extension)
    cause_stages = negation and scope == "root_cause"
    pre, post = negation_regexes(patterns, v) if negation else (NEVER_MATCHES, NEVER_MATCHES)
    role_pre, role_post = _roles(v, "before"), _roles(v, "after")
    out = {
        "neg_pre": pre,
        "neg_post": post,
        "clause_break": _cue(v["clause_breaks"]),
        "subject_break": _cue(v["subject_breaks"]),
        "causal": _cue(v["causal_cues"]),
        "heading_conclusion": _cue(v["conclusion_labels"]),
        "heading_alternatives": _cue(v["alternative_labels"]),
        "heading_role": _cue(v["role_labels"]),
        "label": LABEL,
        "label_conclusion": f"(?i)(?:{alternation(v['conclusion_labels'])}){_LABEL_END}",
        "label_alternatives": f"(?i)(?:{alternation(v['alternative_labels'])}){_LABEL_END}",
        "label_role": (f"(?i)(?:{alternation(v['role_labels'])}){_LABEL_END}"
                       if v["role_labels"] else NEVER_MATCHES),
        "lead": LEAD,
        "bold_lead": BOLD_LEAD,
        "lead_conclusion": (f"(?i)^[^\\p{{L}}\\p{{N}}]*{_LEAD_MODS}"
                            f"(?:{alternation(v['conclusion_labels'])})" + _LEAD_TAIL),
        "lead_alternatives": _lead(v["alternative_labels"]),
        "lead_role": _lead(v["role_labels"]),
        "lead_evidence": _lead(v["evidence_labels"]),
        "label_evidence": (f"(?i)(?:{alternation(v['evidence_labels'])}){_LABEL_END}"
                           if v["evidence_labels"] else NEVER_MATCHES),
        "subordinate": _cue(v["subordinate_labels"]),
        "causal_bound": causal_bound_regex(v["causal_cues"], patterns),
        **_anaphora(v, patterns),
        "pick": pick_regex(v["pick_cues"]),
        "fuzzy_words": "|".join(fuzzy_words(patterns)) if fuzzy else "",
        "hedge_pre": NEVER_MATCHES, "hedge_post": NEVER_MATCHES,
        "role_pre": NEVER_MATCHES, "role_post": NEVER_MATCHES,
        "weak_pre": NEVER_MATCHES, "weak_post": NEVER_MATCHES,
        "neg_before_cue": _cue(v["negation_cues.before"]),
        "neg_after_cue": _cue(v["negation_cues.after"] + v["retraction_cues"]),
        "hedge_before_cue": _cue(v["hedge_cues.before"]),
        "hedge_after_cue": _cue(v["hedge_cues.after"]),
        "role_before_cue": _cue(role_pre),
        "role_after_cue": _cue(role_post),
        "weak_before_cue": _cue(v["consequence_cues.before"]),
        "weak_after_cue": _cue(v["consequence_cues.after"]),
    }
    if cause_stages:
        out.update(
            hedge_pre=pre_regex(v["hedge_cues.before"], patterns),
            hedge_post=post_regex(v["hedge_cues.after"], patterns, HEDGE_POST_WINDOW),
            role_pre=pre_regex(role_pre, patterns),
            role_post=post_regex(role_post, patterns, ROLE_POST_WINDOW, chain=False),
            weak_pre=pre_regex(v["consequence_cues.before"], patterns),
            weak_post=post_regex(v["consequence_cues.after"], patterns, ROLE_POST_WINDOW),
        )
    return out


@lru_cache(maxsize=1)
def _default_heading_res() -> tuple[tuple[str, re.Pattern[str]], ...]:
    v = merged()
    return tuple((kind, re.compile(alternation(v[key]), re.IGNORECASE))
                 for kind, key in (("alternatives", "alternative_labels"),
                                   ("role", "role_labels"),
                                   ("conclusion", "conclusion_labels")) if v[key])


def heading_kind(heading: str) -> str:
    """``alternatives`` / ``role`` / ``conclusion`` / ``other`` for a section heading by the
    default labels (Python ``re``; the judge decides the same in SQL with each detector's
    merged grammar)."""
    for kind, rx in _default_heading_res():
        if rx.search(heading):
            return kind
    return "other"


@lru_cache(maxsize=1)
def _default_causal_re() -> re.Pattern[str]:
    return re.compile(alternation(merged()["causal_cues"]), re.IGNORECASE)


def has_causal_cue(text: str) -> bool:
    """Whether ``text`` carries a causal cue of the default grammar (Python ``re``; used by
    extraction to tell a bold sentence from a bold heading)."""
    return bool(_default_causal_re().search(text))
