"""Negation-aware output detectors: the regexes come from the detector grammar
(:mod:`rcaeval.grammar`, whose ``defaults.yaml`` is the one home of the cue vocabularies).
Kept as the judge's names for them; see docs/judge.md, "Detectors"."""

from __future__ import annotations

from rcaeval.grammar import NEVER_MATCHES, any_regex, each_regex, merged, negation_regexes

CLAUSE_BREAK = "(?i)" + "|".join(merged()["clause_breaks"])
"""Clause breaks (contrastive/consequential conjunctions) rewritten to ';' before the cue
regexes run, so a cue never reaches across them (the defaults; a detector's grammar may add
more)."""

__all__ = ["CLAUSE_BREAK", "NEVER_MATCHES", "any_regex", "each_regex", "negation_regexes"]
