"""The registry: pydantic models for suite/case/judge/baseline YAML, loaders that keep YAML
line numbers, the fact catalog, bucket defaults, lints and JSON Schema export.

Formats: docs/registry.md. Typical use::

    from rcaeval.registry import load_case, validate_registry
    merged = load_case("data/registry", "tikv-panic-restart-001")
    merged.judge.judge.workflow.checks     # defaults applied, ``required`` resolved
    merged.rules_hash

This facade exports what a user calls: loading and validating a registry, the top-level
models of each YAML file kind, the fact catalog, bucket defaults and schema publishing,
plus the pieces other packages build on (``RootCause``, ``ToolsMode`` and
``DEFAULT_TOOLS_MODE``, ``load_case_dir``, ``schema_json``). The
nested models (buckets, checks, conditions) live in the private modules (``_judge``,
``_conditions``, ``_case``, ...), which the package's own code imports directly.
"""

from __future__ import annotations

from rcaeval.registry._baseline import BaselineSpec
from rcaeval.registry._case import CaseSpec, TimeWindow
from rcaeval.registry._common import ID_PATTERN, Problem, RegistryError, sort_problems
from rcaeval.registry._conditions import (
    DetectorCondition,
    FactCondition,
    JsonListNonempty,
    JsonTextContainsAny,
    KeywordAny,
    NumericSeriesAnyGt,
    SpanErrorAny,
)
from rcaeval.registry._defaults import apply_defaults
from rcaeval.registry._drafts import draft_warnings
from rcaeval.registry._facts import FACT_INPUTS, FACTS, is_known_fact
from rcaeval.registry._judge import JudgeSpec, RootCause, check_yaml_path, iter_checks
from rcaeval.registry._loader import (
    Registry,
    iter_suite_cases,
    load_case,
    load_case_dir,
    load_registry,
    load_suite,
    resolve_registry_dir,
    validate_registry,
)
from rcaeval.registry._merged import MergedCase, rules_hash
from rcaeval.registry._regex import re2_problem
from rcaeval.registry._schemas import register_schema, schema_json, write_schemas
from rcaeval.registry._suite import DEFAULT_TOOLS_MODE, SuiteSpec, ToolsMode
from rcaeval.registry._yamlsrc import dotted, parse_yaml

__all__ = ["DEFAULT_TOOLS_MODE", "RootCause", "ToolsMode", "load_case_dir", "schema_json",
    "FACTS",
    "FACT_INPUTS",
    "ID_PATTERN",
    "DetectorCondition",
    "FactCondition",
    "JsonListNonempty",
    "JsonTextContainsAny",
    "KeywordAny",
    "NumericSeriesAnyGt",
    "SpanErrorAny",
    "TimeWindow",
    "check_yaml_path",
    "dotted",
    "draft_warnings",
    "iter_checks",
    "parse_yaml",
    "re2_problem",
    "resolve_registry_dir",
    "sort_problems",
    "BaselineSpec",
    "CaseSpec",
    "JudgeSpec",
    "MergedCase",
    "Problem",
    "Registry",
    "RegistryError",
    "SuiteSpec",
    "apply_defaults",
    "is_known_fact",
    "iter_suite_cases",
    "load_case",
    "load_registry",
    "load_suite",
    "register_schema",
    "rules_hash",
    "validate_registry",
    "write_schemas",
]
