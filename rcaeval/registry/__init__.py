"""The registry: pydantic models for suite/case/judge/baseline YAML, loaders that keep YAML
line numbers, the fact catalog, bucket defaults, lints and JSON Schema export.

Formats: docs/registry.md. Typical use::

    from rcaeval.registry import load_case, validate_registry
    merged = load_case("data/registry", "tikv-panic-restart-001")
    merged.judge.judge.workflow.checks     # defaults applied, ``required`` resolved
    merged.rules_hash
"""

from __future__ import annotations

from rcaeval._vocab import BUCKETS, DEFAULTABLE_BUCKETS, EVIDENCE_CHANNELS, EVIDENCE_METHODS
from rcaeval.registry._baseline import BaselineCase, BaselineSpec, BaselineSummary
from rcaeval.registry._case import (
    JUDGE_ONLY_FIELDS,
    CaseExecution,
    CaseSpec,
    Environment,
    Followup,
    Prompt,
    TimeWindow,
)
from rcaeval.registry._common import ID_PATTERN, Problem, RegistryError, sort_problems
from rcaeval.registry._conditions import (
    Condition,
    DetectorCondition,
    EvidenceCondition,
    EvidenceMethod,
    FactCondition,
    JsonListNonempty,
    JsonTextContainsAny,
    KeywordAny,
    NumericSeriesAnyGt,
)
from rcaeval.registry._defaults import JudgeDefaults, apply_defaults, judge_defaults
from rcaeval.registry._facts import DETECTOR_FACT_PREFIX, FACTS, is_known_fact
from rcaeval.registry._judge import (
    Bucket,
    Check,
    CriticalEvidenceBucket,
    Detector,
    Diagnosis,
    EvidenceCheck,
    EvidenceCollectionBucket,
    GroundTruth,
    JudgeRules,
    JudgeSpec,
    RootCause,
    check_yaml_path,
    iter_checks,
)
from rcaeval.registry._loader import (
    Registry,
    SuiteCaseEntry,
    iter_suite_cases,
    load_case,
    load_case_dir,
    load_registry,
    load_suite,
    validate_registry,
)
from rcaeval.registry._merged import CaseBundle, MergedCase, canonical_judge_json, rules_hash
from rcaeval.registry._regex import re2_problem
from rcaeval.registry._schemas import (
    SCHEMAS,
    discover_schemas,
    register_schema,
    schema_json,
    write_schemas,
)
from rcaeval.registry._suite import ExecutionPolicy, SuiteCase, SuiteSpec
from rcaeval.registry._yamlsrc import YamlDoc, parse_yaml

__all__ = [
    "BUCKETS",
    "DEFAULTABLE_BUCKETS",
    "DETECTOR_FACT_PREFIX",
    "EVIDENCE_CHANNELS",
    "EVIDENCE_METHODS",
    "FACTS",
    "ID_PATTERN",
    "JUDGE_ONLY_FIELDS",
    "SCHEMAS",
    "BaselineCase",
    "BaselineSpec",
    "BaselineSummary",
    "Bucket",
    "CaseBundle",
    "CaseExecution",
    "CaseSpec",
    "Check",
    "Condition",
    "CriticalEvidenceBucket",
    "Detector",
    "DetectorCondition",
    "Diagnosis",
    "Environment",
    "EvidenceCheck",
    "EvidenceCollectionBucket",
    "EvidenceCondition",
    "EvidenceMethod",
    "ExecutionPolicy",
    "FactCondition",
    "Followup",
    "GroundTruth",
    "JsonListNonempty",
    "JsonTextContainsAny",
    "JudgeDefaults",
    "JudgeRules",
    "JudgeSpec",
    "KeywordAny",
    "MergedCase",
    "NumericSeriesAnyGt",
    "Problem",
    "Prompt",
    "Registry",
    "RegistryError",
    "RootCause",
    "SuiteCase",
    "SuiteCaseEntry",
    "SuiteSpec",
    "TimeWindow",
    "YamlDoc",
    "apply_defaults",
    "canonical_judge_json",
    "check_yaml_path",
    "discover_schemas",
    "is_known_fact",
    "iter_checks",
    "iter_suite_cases",
    "judge_defaults",
    "load_case",
    "load_case_dir",
    "load_registry",
    "load_suite",
    "parse_yaml",
    "re2_problem",
    "register_schema",
    "rules_hash",
    "schema_json",
    "sort_problems",
    "validate_registry",
    "write_schemas",
]
