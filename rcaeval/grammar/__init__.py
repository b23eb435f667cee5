"""The detector grammar: how the judge reads a sentence of an answer (docs/registry.md,
"Detector grammar"). Conclusion / alternative / role labels, causal, hedge, role, consequence
and negation cues and clause breaks, as vocabularies of RE2 patterns with shipped English and
Chinese defaults (``defaults.yaml``) that a registry (``grammar.yaml``) or a detector
(``grammar:``) extends."""

from rcaeval.grammar._compile import (
    NEVER_MATCHES,
    REGEX_KEYS,
    any_regex,
    detector_regexes,
    each_regex,
    has_causal_cue,
    heading_kind,
    negation_regexes,
)
from rcaeval.grammar._vocab import (
    Grammar,
    default_grammar,
    defaults_digest_bytes,
    merge_extensions,
    merged,
)

__all__ = [
    "NEVER_MATCHES",
    "REGEX_KEYS",
    "Grammar",
    "any_regex",
    "default_grammar",
    "defaults_digest_bytes",
    "detector_regexes",
    "each_regex",
    "has_causal_cue",
    "heading_kind",
    "merge_extensions",
    "merged",
    "negation_regexes",
]
