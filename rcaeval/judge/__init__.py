"""The deterministic judge: judge.yaml rules as tables, facts as SQL views, one SQL file per
bucket, verdict precedence and banding in SQL, judgment packets (docs/judge.md,
docs/scoring.md).

Typical use::

    import rcaeval.store as st
    from rcaeval.judge import judge_audit

    s = st.connect()
    verdicts = judge_audit(s, "data/recorded", "data/registry", out_dir="out/judgments")

The judging session :class:`Judging` (``Judging(store).judge(keys, cases, refs=...)``)
owns the connection, transactions, the chunk loop and the write phase; every entry point
below goes through it. Lower levels, for tests and notebooks: :func:`flatten_rules` (judge
spec dict -> rule tables), :func:`register_cases` (rules + case_meta), :func:`judge_loaded`
(judge what is already extracted), :func:`rejudge_store` (judge again what the store holds,
with the registry's current rules), :func:`run_judge_sql` (frames only, nothing written).
:class:`Provider` is the protocol of the semantic shadow's second opinion (the manifest's
[shadow] phase; :class:`rcaeval.semantic.SemanticConfig` is one), :class:`Redecide` the
re-run of the decide phases a provider is handed. Reading
results: :func:`load_judgment`, :func:`explain_tree` / :func:`explain_html`,
:func:`load_detector_hits`.

This facade exports only what a user calls; the judge's own modules import each other's
private modules (``rcaeval.judge._packet``, ``._pipeline``, ...) directly.
"""

from __future__ import annotations

from rcaeval._vocab import BUCKETS, DEFAULT_CHUNK_SIZE
from rcaeval.judge._audit import BULK_MEMORY_LIMIT, judge_audit, judge_loaded, register_cases
from rcaeval.judge._explain import (
    case_anchor,
    explain_html,
    explain_tree,
    load_detector_hits,
    load_judgment,
)
from rcaeval.judge._pipeline import JudgeFrames, run_judge_sql
from rcaeval.judge._profiles import load_profiles
from rcaeval.judge._rejudge import rejudge_store
from rcaeval.judge._rules import flatten_rules
from rcaeval.judge._session import CaseRules, Judging
from rcaeval.judge._shadow import Provider, Redecide
from rcaeval.judge._version import JUDGE_VERSION

__all__ = [
    "BUCKETS",
    "BULK_MEMORY_LIMIT",
    "DEFAULT_CHUNK_SIZE",
    "JUDGE_VERSION",
    "CaseRules",
    "JudgeFrames",
    "Judging",
    "Provider",
    "Redecide",
    "case_anchor",
    "explain_html",
    "explain_tree",
    "flatten_rules",
    "judge_audit",
    "judge_loaded",
    "load_detector_hits",
    "load_judgment",
    "load_profiles",
    "register_cases",
    "rejudge_store",
    "run_judge_sql",
]
