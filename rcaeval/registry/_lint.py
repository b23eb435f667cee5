"""Cross-field lints that a single pydantic model cannot express: ids, the fact catalog,
detector references, the information boundary, suite membership, baseline consistency, and
case ids that name their own answer (a warning)."""

from __future__ import annotations

import copy
import re
from collections import Counter
from typing import Any

from rcaeval._vocab import BUCKETS
from rcaeval.registry._baseline import BaselineSpec
from rcaeval.registry._case import JUDGE_ONLY_FIELDS
from rcaeval.registry._common import Problem
from rcaeval.registry._facts import DETECTOR_FACT_PREFIX, FACTS
from rcaeval.registry._merged import MergedCase
from rcaeval.registry._suite import SuiteSpec
from rcaeval.registry._yamlsrc import YamlDoc, YamlPath, dotted


def strip_judge_only(doc: YamlDoc) -> tuple[YamlDoc, list[Problem]]:
    """Report every judge-only key in a case.yaml (at any depth) as ONE information-boundary
    problem each, and return a copy of the document without them so the rest still validates."""
    problems: list[Problem] = []
    data = copy.deepcopy(doc.data)

    def scrub(node: Any, path: YamlPath) -> None:
        if isinstance(node, dict):
            for key in list(node):
                child = (*path, key)
                if key in JUDGE_ONLY_FIELDS:
                    problems.append(
                        Problem(
                            doc.file, doc.line_of(child), dotted(child), "information_boundary",
                            f"judge-only field {key!r} in run-visible case.yaml: the agent would "
                            "see it; move it to judge.yaml",
                        )
                    )
                    del node[key]
                else:
                    scrub(node[key], child)
        elif isinstance(node, list):
            for i, item in enumerate(node):
                scrub(item, (*path, i))

    scrub(data, ())
    return YamlDoc(doc.file, data, doc.lines), problems


def id_mismatch(doc: YamlDoc, field: str, given: str, expected: str, what: str) -> list[Problem]:
    if given == expected:
        return []
    return [
        Problem(doc.file, doc.line_of((field,)), field, "id_mismatch",
                f"{field} {given!r} does not match the {what} {expected!r}")
    ]


def _check_lists(judge: dict[str, Any]) -> list[tuple[str, list[tuple[YamlPath, Any]]]]:
    """Per bucket, the raw check mappings with their YAML paths (diagnosis: hard + supporting)."""
    out: list[tuple[str, list[tuple[YamlPath, Any]]]] = []
    for bucket in BUCKETS:
        spec = judge.get(bucket)
        if not isinstance(spec, dict):
            continue
        keys = ("hard_checks", "supporting_checks") if bucket == "diagnosis" else ("checks",)
        items: list[tuple[YamlPath, Any]] = []
        for key in keys:
            checks = spec.get(key)
            if isinstance(checks, list):
                items += [(("judge", bucket, key, i), c) for i, c in enumerate(checks)]
        out.append((bucket, items))
    return out


def lint_judge(doc: YamlDoc) -> list[Problem]:
    """Duplicate check ids per bucket, facts outside the catalog, undefined detectors.

    Works on the raw document, so these are reported even when the schema also failed."""
    data = doc.data if isinstance(doc.data, dict) else {}
    detectors = set(data["detectors"]) if isinstance(data.get("detectors"), dict) else set()
    judge = data.get("judge")
    if not isinstance(judge, dict):
        return []
    problems: list[Problem] = []
    for bucket, checks in _check_lists(judge):
        ids: set[str] = set()
        for base, check in checks:
            if not isinstance(check, dict):
                continue
            cid = check.get("id")
            if isinstance(cid, str):
                if cid in ids:
                    path = (*base, "id")
                    problems.append(
                        Problem(doc.file, doc.line_of(path), dotted(path), "duplicate_id",
                                f"check id {cid!r} appears twice in bucket {bucket}")
                    )
                ids.add(cid)
            for comb in ("all_of", "any_of"):
                conds = check.get(comb)
                if not isinstance(conds, list):
                    continue
                for j, cond in enumerate(conds):
                    if isinstance(cond, dict):
                        problems += _lint_condition(doc, (*base, comb, j), cond, detectors)
    return problems


def _lint_condition(
    doc: YamlDoc, cpath: YamlPath, cond: dict[str, Any], detectors: set[str]
) -> list[Problem]:
    fact, det = cond.get("fact"), cond.get("detector")
    if isinstance(fact, str):
        fpath = (*cpath, "fact")
        if fact.startswith(DETECTOR_FACT_PREFIX):
            name = fact[len(DETECTOR_FACT_PREFIX):]
            if name not in detectors:
                return [_undefined_detector(doc, fpath, name)]
        elif fact not in FACTS:
            return [Problem(doc.file, doc.line_of(fpath), dotted(fpath), "unknown_fact",
                            f"fact {fact!r} is not in the fact catalog (docs/registry.md)")]
    elif isinstance(det, str) and det not in detectors:
        return [_undefined_detector(doc, (*cpath, "detector"), det)]
    return []


def _undefined_detector(doc: YamlDoc, path: YamlPath, det: str) -> Problem:
    return Problem(doc.file, doc.line_of(path), dotted(path), "undefined_detector",
                   f"detector {det!r} is not declared under detectors: in this judge.yaml")


def lint_suite(doc: YamlDoc, spec: SuiteSpec, stem: str, case_ids: set[str]) -> list[Problem]:
    """File name = suite_id, no case listed twice, every case exists."""
    problems = id_mismatch(doc, "suite_id", spec.suite_id, stem, "file name")
    seen: set[str] = set()
    for i, entry in enumerate(spec.cases):
        path = ("cases", i, "id")
        if entry.id in seen:
            problems.append(Problem(doc.file, doc.line_of(path), dotted(path), "duplicate_id",
                                    f"case {entry.id!r} is listed twice in suite"))
        seen.add(entry.id)
        if entry.id not in case_ids:
            problems.append(Problem(doc.file, doc.line_of(path), dotted(path), "missing_case",
                                    f"case {entry.id!r} has no cases/{entry.id}/case.yaml"))
    return problems


def lint_baseline(
    doc: YamlDoc, spec: BaselineSpec, stem: str, suites: dict[str, SuiteSpec],
    case_ids: set[str],
) -> list[Problem]:
    """File name = suite_id, known suite, known cases, summary consistent with the rows."""
    problems = id_mismatch(doc, "suite_id", spec.suite_id, stem, "file name")
    suite = suites.get(spec.suite_id)
    if suite is None:
        problems.append(Problem(doc.file, doc.line_of(("suite_id",)), "suite_id",
                                "unknown_suite", f"suite {spec.suite_id!r} does not exist"))
    members = set(suite.case_ids) if suite is not None else case_ids
    seen: set[str] = set()
    for i, row in enumerate(spec.cases):
        path = ("cases", i, "case_id")
        if row.case_id in seen:
            problems.append(Problem(doc.file, doc.line_of(path), dotted(path), "duplicate_id",
                                    f"case {row.case_id!r} appears twice in the baseline"))
        seen.add(row.case_id)
        if row.case_id not in members:
            where = f"suite {spec.suite_id!r}" if suite is not None else "the registry"
            problems.append(Problem(doc.file, doc.line_of(path), dotted(path), "unknown_case",
                                    f"case {row.case_id!r} is not in {where}"))
    counts = Counter(row.verdict for row in spec.cases)
    s = spec.summary
    expected = {"cases": len(spec.cases), "pass": counts["pass"], "fail": counts["fail"],
                "invalid": counts["invalid"]}
    actual = {"cases": s.cases, "pass": s.pass_, "fail": s.fail, "invalid": s.invalid}
    for key, want in expected.items():
        if actual[key] != want:
            path = ("summary", key)
            problems.append(Problem(doc.file, doc.line_of(path), dotted(path),
                                    "inconsistent_summary",
                                    f"summary.{key} is {actual[key]}; the case rows give {want}"))
    return problems


_WORD_SPLIT = re.compile(r"[^a-z0-9]+")
LEAK_MIN_WORD = 4
"""Ground-truth words shorter than this (``pd``, ``oom``, ``gc``) are not checked."""


def _words(text: str | None) -> list[str]:
    return [w for w in _WORD_SPLIT.split((text or "").lower()) if len(w) >= LEAK_MIN_WORD]


def lint_case_id_leak(case: MergedCase, rel_case: str, line: int | None) -> list[Problem]:
    """WARN when ``case_id`` contains a word (>= 4 chars) of the case's ground-truth root
    cause ``family`` or ``component``: the id would hint at the answer.

    Agents see an opaque case reference by default, so this is harmless until a run uses
    ``--expose-case-ids`` (or a human reads a per-case report blind). Words the agent is shown
    anyway (in the prompt, follow-ups or ``environment``) are not reported: the id adds
    nothing there."""
    spec = case.case
    root_cause = case.judge.ground_truth.root_cause
    visible = " ".join([spec.prompt.text, *(f.text for f in spec.followup),
                        spec.environment.cluster_id, spec.environment.product or "",
                        spec.environment.region or ""]).lower()
    case_id = spec.case_id.lower()
    hits: list[str] = []
    for value in (root_cause.family, root_cause.component):
        for word in _words(value):
            if word in case_id and word not in visible and word not in hits:
                hits.append(word)
    if not hits:
        return []
    sources = ", ".join(
        f"{what} {value!r}" for what, value in (("family", root_cause.family),
                                                ("component", root_cause.component))
        if value and any(w in _words(value) for w in hits))
    return [Problem(
        rel_case, line, "case_id", "case_id_leaks_ground_truth",
        f"case_id {spec.case_id!r} contains {', '.join(repr(w) for w in hits)} of the ground "
        f"truth ({sources}): agents see an opaque case reference by default, but a run with "
        "--expose-case-ids would hand them this hint; prefer a neutral id",
        severity="warning")]
