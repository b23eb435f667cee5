"""The deterministic judge: judge.yaml rules as tables, facts as SQL views, one SQL file per
bucket, verdict precedence and banding in SQL, judgment packets (docs/judge.md,
docs/scoring.md).

Typical use::

    import rcaeval.store as st
    from rcaeval.judge import judge_audit

    s = st.connect()
    verdicts = judge_audit(s, "data/recorded", "data/registry", out_dir="out/judgments")

Lower levels, for tests and notebooks: :func:`flatten_rules` (judge spec dict -> rule
tables), :func:`register_cases` (rules + case_meta), :func:`judge_loaded` (judge what is
already extracted), :func:`rejudge_store` (judge again what the store holds, with the
registry's current rules), :func:`run_judge_sql` (frames only, nothing written).
"""

from __future__ import annotations

from rcaeval._vocab import BUCKETS, DEFAULT_CHUNK_SIZE
from rcaeval.judge._audit import (
    BULK_MEMORY_LIMIT,
    CaseRules,
    judge_audit,
    judge_loaded,
    raw_connection,
    register_cases,
)
from rcaeval.judge._explain import (
    case_anchor,
    explain_html,
    explain_tree,
    load_detector_hits,
    load_judgment,
)
from rcaeval.judge._jsonpath import CompiledPath, compile_path
from rcaeval.judge._load import (
    case_fields,
    case_meta_table,
    concat_rule_tables,
    load_case_meta,
    load_rules,
    validate_rule_regexes,
)
from rcaeval.judge._negation import negation_regexes
from rcaeval.judge._packet import (
    JUDGMENT_FILE,
    JUDGMENT_VERSION,
    build_packets,
    judgments_frame,
    write_packets,
    write_results,
)
from rcaeval.judge._pipeline import (
    JudgeFrames,
    run_judge_sql,
    scope_keys,
    score_and_verdict,
    sql_digest,
)
from rcaeval.judge._profiles import COMPONENTS, load_profiles
from rcaeval.judge._rejudge import rejudge_store
from rcaeval.judge._rules import (
    RULE_TABLES,
    SOFT_CHECK_IDS,
    compute_rules_hash,
    flatten_rules,
)
from rcaeval.judge._version import JUDGE_VERSION

__all__ = [
    "BUCKETS",
    "BULK_MEMORY_LIMIT",
    "COMPONENTS",
    "DEFAULT_CHUNK_SIZE",
    "JUDGE_VERSION",
    "JUDGMENT_FILE",
    "JUDGMENT_VERSION",
    "RULE_TABLES",
    "SOFT_CHECK_IDS",
    "CaseRules",
    "CompiledPath",
    "JudgeFrames",
    "build_packets",
    "case_fields",
    "case_meta_table",
    "compile_path",
    "compute_rules_hash",
    "concat_rule_tables",
    "case_anchor",
    "explain_html",
    "explain_tree",
    "load_detector_hits",
    "flatten_rules",
    "judge_audit",
    "judge_loaded",
    "judgments_frame",
    "load_case_meta",
    "load_judgment",
    "load_profiles",
    "load_rules",
    "negation_regexes",
    "raw_connection",
    "register_cases",
    "rejudge_store",
    "run_judge_sql",
    "scope_keys",
    "score_and_verdict",
    "sql_digest",
    "validate_rule_regexes",
    "write_packets",
    "write_results",
]
