"""judge.yaml as tables: flatten one case's judge spec into ``rule_*`` rows.

Input is the judge spec as a plain dict in the documented judge.yaml shape, defaults applied
(what ``rcaeval.registry.JudgeSpec.model_dump(mode="json")`` of a merged case gives):
``{case_id, scoring_profile, detectors: {id: {...}}, judge: {bucket: {...}}}``. Keys with
``None`` values (pydantic's unset optionals) are ignored. The output is one pyarrow table per
rule table of migration 0002, keyed by ``(case_id, rules_hash)``.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from typing import Any

import orjson
import pyarrow as pa

from rcaeval._vocab import (
    BUCKETS,
    BUNDLE_CHANNELS,
    EVIDENCE_METHODS,
    REQUIRED_BY_DEFAULT,
    SCORELESS_BUCKETS,
    SOFT_BY_DEFAULT,
)
from rcaeval.errors import InputError
from rcaeval.grammar import REGEX_KEYS, any_regex, detector_regexes, each_regex
from rcaeval.judge._jsonpath import compile_path

RULE_TABLES: tuple[str, ...] = (
    "rule_check", "rule_condition", "rule_detector", "rule_bucket_param", "rule_truth",
    "rule_budget",
)

METHODS = frozenset(EVIDENCE_METHODS)

_S = pa.string()
_LIST = pa.list_(pa.string())
SCHEMAS: dict[str, pa.Schema] = {
    "rule_check": pa.schema([
        ("case_id", _S), ("rules_hash", _S), ("bucket", _S), ("check_id", _S), ("kind", _S),
        ("required", pa.bool_()), ("soft", pa.bool_()), ("weight", pa.float64()),
        ("combinator", _S), ("ord", pa.int32()), ("description", _S),
    ]),
    "rule_condition": pa.schema([
        ("case_id", _S), ("rules_hash", _S), ("bucket", _S), ("check_id", _S),
        ("cond_idx", pa.int32()), ("ctype", _S), ("name", _S), ("expect", pa.bool_()),
        ("method", _S), ("source", _S), ("file", _S), ("path", _S), ("path_star", _S),
        ("path_has_index", pa.bool_()), ("path_regex", _S), ("path_prefix_regex", _S),
        ("keywords", _LIST), ("series", _S), ("labels", pa.map_(_S, _S)),
        ("threshold", pa.float64()),
    ]),
    "rule_detector": pa.schema([
        ("case_id", _S), ("rules_hash", _S), ("detector_id", _S), ("description", _S),
        ("scope", _S), ("negation", pa.bool_()), ("any_patterns", _LIST),
        ("all_patterns", _LIST), ("any_regex", _S), ("all_regexes", _LIST),
        ("neg_pre_regex", _S), ("neg_post_regex", _S), ("pattern_key", _S),
        ("grammar_regexes", pa.map_(_S, _S)),
    ]),
    "rule_bucket_param": pa.schema([
        ("case_id", _S), ("rules_hash", _S), ("preferred_channels", _LIST),
        ("min_preferred_channels", pa.int32()), ("diagnosis_mode", _S),
        ("scoring_profile", _S),
    ]),
    "rule_truth": pa.schema([
        ("case_id", _S), ("rules_hash", _S), ("family", _S), ("component", _S),
        ("family_synonyms", _LIST), ("component_synonyms", _LIST),
    ]),
    "rule_budget": pa.schema([
        ("case_id", _S), ("rules_hash", _S), ("max_steps", pa.int32()),
        ("max_tokens", pa.int64()), ("max_seconds", pa.float64()), ("enforce", pa.bool_()),
    ]),
}


def _clean(obj: Any) -> Any:
    if isinstance(obj, Mapping):
        return {str(k): _clean(v) for k, v in obj.items() if v is not None}
    if isinstance(obj, list | tuple):
        return [_clean(v) for v in obj]
    return obj


def compute_rules_hash(judge_doc: Mapping[str, Any]) -> str:
    """sha256 of the canonical JSON (sorted keys, ``None`` dropped) of a judge spec. Used when
    the caller has no registry-computed ``rules_hash``."""
    canon = orjson.dumps(_clean(judge_doc), option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(canon).hexdigest()


def _err(case_id: str, where: str, message: str) -> InputError:
    return InputError(message, file=f"cases/{case_id}/judge.yaml", field=where)


def _rules_section(doc: Mapping[str, Any]) -> Mapping[str, Any]:
    judge = doc.get("judge")
    if isinstance(judge, Mapping):
        return judge
    if any(b in doc for b in BUCKETS):  # given the `judge:` block itself
        return doc
    raise InputError("judge spec has no `judge:` block", field="judge")


def _iter_checks(rules: Mapping[str, Any]):
    for bucket in BUCKETS:
        spec = rules.get(bucket) or {}
        if bucket == "diagnosis":
            seq = [("hard", c) for c in spec.get("hard_checks") or []]
            seq += [("supporting", c) for c in spec.get("supporting_checks") or []]
        else:
            seq = [("check", c) for c in spec.get("checks") or []]
        for ord_, (kind, chk) in enumerate(seq):
            yield bucket, kind, ord_, chk


def _condition_row(case_id: str, where: str, cond: Mapping[str, Any]) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(SCHEMAS["rule_condition"].names)
    row["expect"] = bool(cond.get("expect", True))
    if cond.get("method") is not None:
        method = cond["method"]
        if method not in METHODS:
            raise _err(case_id, where, f"unknown evidence method {method!r}")
        row.update(ctype="method", name=method, method=method, expect=True)
        if method == "keyword_any":
            row["source"] = cond.get("source") or "logs"
            row["keywords"] = list(cond.get("keywords") or [])
            if not row["keywords"]:
                raise _err(case_id, where, "keyword_any needs a non-empty `keywords` list")
        else:
            default_file = {"numeric_series_any_gt": "metrics.json",
                            "span_error_any": "traces.json"}.get(method)
            row["file"] = cond.get("file") or default_file
            if not row["file"]:
                raise _err(case_id, where, f"{method} needs `file`")
        if method in ("json_list_nonempty", "json_text_contains_any"):
            path = cond.get("path")
            if path is None and method == "json_list_nonempty":
                raise _err(case_id, where, "json_list_nonempty needs `path`")
            if path is not None:
                try:
                    cp = compile_path(path)
                except ValueError as exc:
                    raise _err(case_id, where, str(exc)) from exc
                row.update(
                    path=cp.path, path_star=cp.star, path_has_index=cp.has_index,
                    path_regex=cp.regex, path_prefix_regex=cp.prefix_regex,
                )
        if method == "json_text_contains_any":
            row["keywords"] = list(cond.get("needles") or [])
            if not row["keywords"]:
                raise _err(case_id, where, "json_text_contains_any needs `needles`")
        if method == "span_error_any":
            row["keywords"] = list(cond.get("keywords") or [])
            row["labels"] = [("service", str(cond["service"]))] if cond.get("service") else []
        if method == "numeric_series_any_gt":
            if not cond.get("series") or cond.get("threshold") is None:
                raise _err(case_id, where, "numeric_series_any_gt needs `series` and `threshold`")
            row["series"] = cond["series"]
            row["threshold"] = float(cond["threshold"])
            labels = cond.get("labels") or {}
            row["labels"] = sorted((str(k), str(v)) for k, v in labels.items())
    elif cond.get("fact") is not None:
        row.update(ctype="fact", name=cond["fact"])
    elif cond.get("detector") is not None:
        row.update(ctype="detector", name=cond["detector"])
    else:
        raise _err(case_id, where, f"a condition needs fact, detector or method: {dict(cond)}")
    return row


def _budget_row(case_id: str, budget: Mapping[str, Any]) -> dict[str, Any]:
    """``efficiency:`` as a rule_budget row (the model validated it; a raw dict is checked)."""
    row: dict[str, Any] = {"enforce": bool(budget.get("enforce", False))}
    for key, cast in (("max_steps", int), ("max_tokens", int), ("max_seconds", float)):
        value = budget.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)
                                  or not math.isfinite(value) or value < 0):
            raise _err(case_id, f"efficiency.{key}", f"{key} must be a number >= 0, got "
                       f"{value!r}")
        row[key] = None if value is None else cast(value)
    return row


def flatten_rules(
    case_id: str, judge_doc: Mapping[str, Any], *, rules_hash: str | None = None
) -> dict[str, pa.Table]:
    """The ``rule_*`` rows of one case's judge spec (see module doc), one table per name in
    :data:`RULE_TABLES`. Raises :class:`InputError` for a spec the judge cannot run."""
    rh = rules_hash or compute_rules_hash(judge_doc)
    rules = _rules_section(judge_doc)
    rows: dict[str, list[dict[str, Any]]] = {t: [] for t in RULE_TABLES}
    detectors = judge_doc.get("detectors") or {}
    seen: set[tuple[str, str]] = set()
    for bucket, kind, ord_, chk in _iter_checks(rules):
        check_id = chk.get("id")
        where = f"judge.{bucket}.{check_id or ord_}"
        if not check_id:
            raise _err(case_id, where, "a check needs an `id`")
        if (bucket, check_id) in seen:
            raise _err(case_id, where, f"check id {check_id!r} appears twice in {bucket}")
        seen.add((bucket, check_id))
        if chk.get("all_of") is not None and chk.get("any_of") is not None:
            raise _err(case_id, where, "a check takes exactly one of all_of / any_of")
        combinator = "all" if chk.get("all_of") is not None else "any"
        conds = chk.get("all_of") if combinator == "all" else chk.get("any_of")
        if not conds:
            raise _err(case_id, where, "a check needs a non-empty all_of or any_of")
        key = f"{bucket}.{kind}" if bucket == "diagnosis" else bucket
        required = chk.get("required")
        if required is None:
            required = key in REQUIRED_BY_DEFAULT
        soft = chk.get("soft")
        if soft is None:
            soft = check_id in SOFT_BY_DEFAULT
        if soft and bucket in SCORELESS_BUCKETS:
            raise _err(case_id, where, "soft: true has no effect in a gate bucket, which "
                       "carries no score")
        weight = float(chk.get("weight", 1.0) if chk.get("weight") is not None else 1.0)
        if weight < 0:
            raise _err(case_id, where, "weight must be >= 0")
        rows["rule_check"].append({
            "case_id": case_id, "rules_hash": rh, "bucket": bucket, "check_id": check_id,
            "kind": kind, "required": bool(required),
            "soft": bool(soft),
            "weight": weight, "combinator": combinator, "ord": ord_,
            "description": chk.get("description"),
        })
        for idx, cond in enumerate(conds):
            crow = _condition_row(case_id, f"{where}.{combinator}_of[{idx}]", cond)
            if crow["ctype"] == "method" and bucket != "critical_evidence":
                raise _err(case_id, where, "evidence methods are allowed only in critical_evidence")
            if crow["ctype"] == "detector" and crow["name"] not in detectors:
                raise _err(case_id, where, f"detector {crow['name']!r} is not declared")
            crow.update(case_id=case_id, rules_hash=rh, bucket=bucket, check_id=check_id,
                        cond_idx=idx)
            rows["rule_condition"].append(crow)
    for det_id in sorted(detectors):
        det = detectors[det_id]
        any_p = list(det.get("any") or [])
        all_p = list(det.get("all") or [])
        if not any_p:
            raise _err(case_id, f"detectors.{det_id}", "a detector needs a non-empty `any`")
        scope = det.get("scope") or "root_cause"
        if scope not in ("root_cause", "anywhere", "alternatives"):
            raise _err(case_id, f"detectors.{det_id}", f"unknown scope {scope!r}")
        negation = bool(det.get("negation", True))
        try:
            regexes = detector_regexes(any_p, scope=scope, negation=negation,
                                       extension=det.get("grammar"),
                                       fuzzy=bool(det.get("fuzzy")))
        except ValueError as exc:
            raise _err(case_id, f"detectors.{det_id}.grammar", str(exc)) from exc
        pre, post = (regexes["neg_pre"], regexes["neg_post"]) if negation else (None, None)
        grammar = [(k, regexes[k]) for k in REGEX_KEYS]
        compiled = [scope, any_regex(any_p), each_regex(all_p), pre, post, grammar]
        pattern_key = hashlib.sha256(orjson.dumps(compiled)).hexdigest()[:32]
        rows["rule_detector"].append({
            "case_id": case_id, "rules_hash": rh, "detector_id": det_id,
            "description": det.get("description"), "scope": scope, "negation": negation,
            "any_patterns": any_p, "all_patterns": all_p, "any_regex": any_regex(any_p),
            "all_regexes": each_regex(all_p), "neg_pre_regex": pre, "neg_post_regex": post,
            "pattern_key": pattern_key, "grammar_regexes": grammar,
        })
    ec = rules.get("evidence_collection") or {}
    channels = ec.get("preferred_channels")
    rows["rule_bucket_param"].append({
        "case_id": case_id, "rules_hash": rh,
        "preferred_channels": list(channels) if channels is not None else list(BUNDLE_CHANNELS),
        "min_preferred_channels": int(ec.get("min_preferred_channels", 1)
                                      if ec.get("min_preferred_channels") is not None else 1),
        "diagnosis_mode": (rules.get("diagnosis") or {}).get("mode") or "deterministic_only",
        "scoring_profile": judge_doc.get("scoring_profile") or "default",
    })
    truth = (judge_doc.get("ground_truth") or {}).get("root_cause") or {}
    if isinstance(truth, Mapping) and truth.get("family"):
        rows["rule_truth"].append({"case_id": case_id, "rules_hash": rh,
                                   "family": str(truth["family"]),
                                   "component": truth.get("component"),
                                   "family_synonyms": [str(x) for x in
                                                       truth.get("synonyms") or []],
                                   "component_synonyms": [str(x) for x in
                                                          truth.get("component_synonyms")
                                                          or []]})
    budget = judge_doc.get("efficiency")
    if isinstance(budget, Mapping):
        rows["rule_budget"].append({"case_id": case_id, "rules_hash": rh,
                                    **_budget_row(case_id, budget)})
    return {
        t: pa.Table.from_pylist(rows[t], schema=SCHEMAS[t]) for t in RULE_TABLES
    }
