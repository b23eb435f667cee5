"""Negation-aware output detectors, compiled to RE2 (which has no lookaround).

A detector fires on a sentence when one of its ``any`` patterns matches and the match is not
negated. Instead of lookbehind, the judge compiles two explicit regexes per detector that
match a *negated occurrence* -- a cue plus a short window plus the pattern, or the pattern
plus a short window plus a post-negation -- and blanks those spans out of the sentence
(``regexp_replace``). The detector fires only if the pattern still matches what is left, so
"the TiKV panic was ruled out; the root cause is X" does not fire a TiKV-panic detector while
"not the network: the TiKV panic caused it" still does (the ``:`` ends the window).

Windows never cross clause punctuation (``. ; : ! ?`` and their CJK forms); the SQL also
rewrites contrastive conjunctions (``but``, ``however``, ``whereas``, ``而是`` ...) to ``;``
before applying them, so "not X but Y" negates X only. See docs/judge.md, "Detectors".
"""

from __future__ import annotations

# Cues that negate what follows them within PRE_WINDOW characters.
PRE_CUES: tuple[str, ...] = (
    r"\bnot\b",
    r"\bno\b",
    r"\bnor\b",
    r"\bnever\b",
    r"\bwithout\b",
    r"\b(?:is|was|are|were|does|did|do|has|have|had)n[’']?t\b",
    r"\bcannot\b",
    r"\bruled?\s+out\b",
    r"\brules\s+out\b",
    r"\bruling\s+out\b",
    r"\bunlikely\b",
    r"\bexclud(?:e|ed|es|ing)\b",
    r"\beliminat(?:e|ed|es|ing)\b",
    r"\bdismiss(?:ed)?\b",
    r"\brather\s+than\b",
    r"\binstead\s+of\b",
    r"\bas\s+opposed\s+to\b",
    "不是",
    "并非",
    "排除",
    "没有",
)

# Post-negations: they negate what precedes them within POST_WINDOW characters.
POST_CUES: tuple[str, ...] = (
    r"\b(?:was|were|is|are|been|be|being)\s+(?:also\s+|therefore\s+|thus\s+|clearly\s+|"
    r"quickly\s+|definitively\s+|subsequently\s+)?(?:ruled\s+out|excluded|eliminated|dismissed|"
    r"unlikely|not\s+(?:the\s+|a\s+)?(?:likely\s+)?(?:root\s+|primary\s+|main\s+|underlying\s+)?"
    r"(?:cause|culprit|trigger|issue|problem))",
    r"\b(?:is|was|are|were)n[’']?t\s+(?:the\s+|a\s+)?(?:root\s+|primary\s+|main\s+)?"
    r"(?:cause|culprit|trigger)",
    r"\b(?:can|could|may|should)\s+be\s+(?:safely\s+)?(?:ruled\s+out|excluded|eliminated|"
    r"dismissed)",
    r"\b(?:did\s+not|didn[’']?t|does\s+not|doesn[’']?t)\s+(?:cause|trigger|explain)",
    r"\bplayed\s+no\s+role\b",
    r"\b(?:not|never)\s+(?:involved|responsible|implicated)",
    "不是(?:根因|根本原因|原因|主因)",
    "并非(?:根因|根本原因|原因|主因)",
    "(?:已|被|可以|可)排除",
)

PRE_WINDOW = 60
POST_WINDOW = 25
_NO_BREAK = r"[^.;:!?。；：！？\n]"
_NO_BREAK_POST = r"[^.;!?。；！？\n]"

CLAUSE_BREAK = (
    r"(?i)\b(?:but|however|whereas|although|though|nevertheless|yet\s+the|so|therefore|thus|"
    r"hence|because)\b"
    r"|\band\s+(?:then\s+)?(?:identified|found|confirmed|determined|concluded|traced|"
    r"established|pinpointed|the\s+(?:root|real|actual|primary|true))\b"
    r"|但是|而是|然而|但|所以|因此"
)
"""Clause breaks (contrastive/consequential conjunctions) rewritten to ';' before the negation
regexes run, so a negation never reaches across them (documented in docs/judge.md)."""

NEVER_MATCHES = r"\b\B"
"""An RE2 pattern that matches nothing (bound when a detector has negation off)."""


def any_regex(patterns: list[str]) -> str:
    """Case-insensitive alternation of a detector's ``any`` patterns."""
    if not patterns:
        raise ValueError("a detector needs at least one `any` pattern")
    return "(?i)" + "|".join(f"(?:{p})" for p in patterns)


def each_regex(patterns: list[str]) -> list[str]:
    """Each ``all`` pattern, case-insensitive."""
    return [f"(?i)(?:{p})" for p in patterns]


def negation_regexes(patterns: list[str]) -> tuple[str, str]:
    """``(pre, post)`` RE2 regexes matching a negated occurrence of any of ``patterns``."""
    alt = "|".join(f"(?:{p})" for p in patterns)
    pre = (
        "(?i)(?:" + "|".join(PRE_CUES) + ")"
        + f"{_NO_BREAK}{{0,{PRE_WINDOW}}}?(?:{alt})"
    )
    post = (
        f"(?i)(?:{alt}){_NO_BREAK_POST}{{0,{POST_WINDOW}}}?"
        + "(?:" + "|".join(POST_CUES) + ")"
    )
    return pre, post
