"""Layer (a): judge.yaml -> rule tables, JSONPath-lite compilation, negation regexes, profiles.
No database involved (except where a regex is compiled by DuckDB's RE2)."""

from __future__ import annotations

import re

import duckdb
import pytest
from judge_kit import CASE, judge_spec

from rcaeval.errors import InputError
from rcaeval.judge import BUCKETS, flatten_rules, load_profiles
from rcaeval.judge._jsonpath import compile_path
from rcaeval.judge._negation import negation_regexes
from rcaeval.judge._profiles import _validate
from rcaeval.judge._rules import RULE_TABLES, compute_rules_hash


def _rows(tables, name):
    return tables[name].to_pylist()


def test_flatten_produces_every_rule_table_keyed_by_case_and_hash():
    spec = judge_spec(lambda raw: raw.update(efficiency={"max_steps": 30}))
    tables = flatten_rules(CASE, spec, rules_hash="h1")
    assert set(tables) == set(RULE_TABLES)
    for name in RULE_TABLES:
        rows = _rows(tables, name)
        assert rows, name
        assert {r["case_id"] for r in rows} == {CASE}
        assert {r["rules_hash"] for r in rows} == {"h1"}


def test_efficiency_budgets_flatten_and_leave_rules_hash_alone_when_absent():
    from rcaeval.registry import JudgeSpec

    plain = judge_spec()
    assert "efficiency" not in plain  # a spec without budgets serialises as before
    assert flatten_rules(CASE, plain, rules_hash="h")["rule_budget"].num_rows == 0
    spec = judge_spec(lambda raw: raw.update(
        efficiency={"max_steps": 30, "max_seconds": 90.5, "enforce": True}))
    assert _rows(flatten_rules(CASE, spec, rules_hash="h"), "rule_budget") == [
        {"case_id": CASE, "rules_hash": "h", "max_steps": 30, "max_tokens": None,
         "max_seconds": 90.5, "enforce": True}]
    assert compute_rules_hash(spec) != compute_rules_hash(plain)
    with pytest.raises(ValueError, match="at least one of max_steps"):
        JudgeSpec.model_validate({**spec, "efficiency": {"enforce": True}})
    with pytest.raises(InputError, match="max_steps must be a number >= 0"):
        flatten_rules(CASE, {**spec, "efficiency": {"max_steps": -1}}, rules_hash="h")


def test_flatten_checks_follow_bucket_order_with_defaults_applied():
    tables = flatten_rules(CASE, judge_spec(), rules_hash="h")
    checks = _rows(tables, "rule_check")
    buckets = [c["bucket"] for c in checks]
    # every bucket present (defaults for the five defaultable ones), in evaluation order
    assert list(dict.fromkeys(buckets)) == list(BUCKETS)
    by_id = {(c["bucket"], c["check_id"]): c for c in checks}
    assert by_id[("contract", "time_window_match")]["required"] is True
    assert by_id[("workflow", "summary_read_completed")]["required"] is False
    # the seed's soft check is soft whatever its `required`
    soft = by_id[("evidence_collection", "attempted_events_collection_persisted")]
    assert soft["soft"] is True
    # diagnosis: hard checks default to required, supporting to optional; ord is continuous
    hard = by_id[("diagnosis", "names_storage_panic")]
    sup = by_id[("diagnosis", "explains_restarts")]
    assert (hard["kind"], hard["required"], hard["ord"]) == ("hard", True, 0)
    assert (sup["kind"], sup["required"], sup["ord"]) == ("supporting", False, 2)
    assert by_id[("critical_evidence", "restart_metric")]["weight"] == 2.0


def test_flatten_conditions_for_each_condition_kind():
    conds = _rows(flatten_rules(CASE, judge_spec(), rules_hash="h"), "rule_condition")
    by = {(c["bucket"], c["check_id"]): c for c in conds}
    fact = by[("contract", "cluster_scope_match")]
    assert (fact["ctype"], fact["name"], fact["expect"]) == ("fact", "cluster.matched", True)
    det = by[("diagnosis", "no_network_blame")]
    assert (det["ctype"], det["name"], det["expect"]) == ("detector", "blames_network", False)
    kw = by[("critical_evidence", "panic_in_logs")]
    assert (kw["method"], kw["source"], kw["keywords"]) == ("keyword_any", "logs", ["panic"])
    js = by[("critical_evidence", "termination_reason_panic")]
    assert js["path_star"] == "$.components[*].last_termination_reason"
    assert js["path_has_index"] is False
    assert js["keywords"] == ["panic"]
    num = by[("critical_evidence", "restart_metric")]
    assert num["file"] == "metrics.json"
    assert num["labels"] == [("instance", "tikv-2")]
    assert num["threshold"] == 0.0


def test_flatten_detectors_compile_negation_regexes():
    dets = {d["detector_id"]: d for d in
            _rows(flatten_rules(CASE, judge_spec(), rules_hash="h"), "rule_detector")}
    assert set(dets) == {"asserts_storage_panic", "blames_network", "mentions_restart"}
    d = dets["asserts_storage_panic"]
    assert d["any_regex"].startswith("(?i)")
    assert d["neg_pre_regex"] and d["neg_post_regex"]
    off = dets["mentions_restart"]
    assert off["negation"] is False and off["neg_pre_regex"] is None
    con = duckdb.connect()
    for det in dets.values():
        for pattern in filter(None, [det["any_regex"], det["neg_pre_regex"],
                                     det["neg_post_regex"]]):
            con.execute("SELECT regexp_matches('x', $p)", {"p": pattern}).fetchall()


def test_bucket_params_and_profile():
    def mutate(raw):
        raw["scoring_profile"] = "seed000"
        raw["judge"]["evidence_collection"] = {"preferred_channels": ["logs", "ticket_context"],
                                               "min_preferred_channels": 2}
        raw["judge"]["diagnosis"]["mode"] = "blended"

    (param,) = _rows(flatten_rules(CASE, judge_spec(mutate), rules_hash="h"),
                     "rule_bucket_param")
    assert param["preferred_channels"] == ["logs", "ticket_context"]
    assert param["min_preferred_channels"] == 2
    assert param["diagnosis_mode"] == "blended"
    assert param["scoring_profile"] == "seed000"


def test_rules_hash_is_stable_and_sensitive():
    a = compute_rules_hash(judge_spec())
    assert a == compute_rules_hash(judge_spec())
    assert len(a) == 64

    def mutate(raw):
        raw["judge"]["critical_evidence"]["checks"][0]["weight"] = 3

    assert compute_rules_hash(judge_spec(mutate)) != a
    tables = flatten_rules(CASE, judge_spec())
    assert tables["rule_check"].column("rules_hash")[0].as_py() == a


def test_flatten_accepts_the_bare_judge_block_and_drops_none_keys():
    spec = judge_spec()
    bare = dict(spec["judge"])
    bare["detectors"] = spec["detectors"]
    tables = flatten_rules(CASE, bare, rules_hash="h")
    assert tables["rule_check"].num_rows == flatten_rules(CASE, spec, rules_hash="h")[
        "rule_check"].num_rows


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda j: j["judge"]["diagnosis"]["hard_checks"].append(
            {"id": "names_storage_panic", "all_of": [{"fact": "cluster.matched"}]}),
         "appears twice"),
        (lambda j: j["judge"]["diagnosis"]["hard_checks"].append(
            {"id": "x", "all_of": [{"detector": "undeclared"}]}), "not declared"),
        (lambda j: j["judge"]["workflow"].update(checks=[
            {"id": "x", "all_of": [{"method": "keyword_any", "source": "logs",
                                    "keywords": ["a"]}]}]), "only in critical_evidence"),
        (lambda j: j["judge"]["critical_evidence"]["checks"].append(
            {"id": "y", "all_of": [{"method": "json_list_nonempty", "file": "a.json",
                                    "path": "components[*]"}]}), "JSONPath"),
        (lambda j: j["judge"]["contract"].update(checks=[{"id": "z", "all_of": []}]),
         "non-empty"),
    ],
)
def test_flatten_rejects_specs_the_judge_cannot_run(mutate, message):
    spec = judge_spec()
    mutate(spec)
    with pytest.raises(InputError, match=message):
        flatten_rules(CASE, spec, rules_hash="h")


@pytest.mark.parametrize(
    ("path", "star", "has_index", "matches", "non_matches"),
    [
        ("$.components[*].last_termination_reason", "$.components[*].last_termination_reason",
         False, ["$.components[3].last_termination_reason"],
         ["$.components[3].name", "$.components.last_termination_reason"]),
        ("$.series[0].points", "$.series[*].points", True, ["$.series[0].points"],
         ["$.series[1].points"]),
        ("$", "$", False, ["$"], []),
        ('$["odd key"].a', '$["odd key"].a', False, ['$["odd key"].a'], ['$["odd"].a']),
        ("$.1abc", '$["1abc"]', False, ['$["1abc"]'], ["$.1abc"]),
    ],
)
def test_compile_path(path, star, has_index, matches, non_matches):
    cp = compile_path(path)
    assert cp.star == star
    assert cp.has_index is has_index
    for m in matches:
        assert re.search(cp.regex, m), m
    for m in non_matches:
        assert not re.search(cp.regex, m), m
    # the prefix regex also accepts values under the path, but not siblings sharing a prefix
    if path == "$.series[0].points":
        assert re.search(cp.prefix_regex, "$.series[0].points[2][1]")
        assert not re.search(cp.prefix_regex, "$.series[0].pointsx")


def test_compile_path_rejects_non_jsonpath():
    with pytest.raises(ValueError):
        compile_path("components[*]")
    with pytest.raises(ValueError):
        compile_path("$.a[")


@pytest.mark.parametrize(
    ("sentence", "negated"),
    [
        ("The TiKV panic was ruled out.", True),
        ("We ruled out a tikv panic early on.", True),
        ("The latency was not caused by a TiKV panic.", True),
        ("A TiKV panic is not the root cause.", True),
        ("A TiKV panic can be excluded.", True),
        ("There was no TiKV panic in the logs.", True),
        ("TiKV panic 不是根因。", True),
        ("The root cause is a TiKV panic on store 5.", False),
        ("Not the network: the TiKV panic caused it.", False),
        ("It was not the network but a TiKV panic.", False),
        ("We ruled out network partition and identified a TiKV panic as the cause.", False),
        ("The TiKV panic caused the outage and the network partition was ruled out.", False),
    ],
)
def test_negation_regexes_with_python_re(sentence, negated):
    """The compiled negation regexes (RE2 syntax, also valid Python re here) blank out
    exactly the negated occurrences."""
    from rcaeval.judge._negation import CLAUSE_BREAK

    pattern = r"tikv\S*\s+(?:node\s+|store\s+)?(?:panic|crash)"
    pre, post = negation_regexes([pattern])
    text = re.sub(CLAUSE_BREAK.replace("(?i)", ""), ";", sentence, flags=re.I)
    left = re.sub(post.replace("(?i)", ""), " ",
                  re.sub(pre.replace("(?i)", ""), " ", text, flags=re.I), flags=re.I)
    assert bool(re.search(pattern, left, re.I)) is (not negated)


def test_packaged_profiles():
    profiles = load_profiles()
    assert set(profiles) >= {"default", "seed000"}
    d = profiles["default"]["maxima"]
    assert sum(d.values()) == 100
    assert d["diagnosis_hard"] + d["diagnosis_supporting"] == 50
    assert profiles["seed000"]["maxima"]["evidence_routing"] == 10
    assert profiles["default"]["band"] == {"gate_floor": 70.0, "no_gate_ceiling": 69.0}


def test_profile_validation():
    with pytest.raises(InputError, match="maxima"):
        _validate({"p": {"maxima": {"workflow": 1}}}, "x.yaml")
    with pytest.raises(InputError):
        _validate({"p": {"maxima": {c: -1 for c in (
            "workflow", "evidence_collection", "critical_evidence", "evidence_routing",
            "diagnosis_hard", "diagnosis_supporting")}}}, "x.yaml")


def test_load_rules_names_a_pattern_re2_rejects():
    from judge_kit import make_db

    from rcaeval.judge._load import load_rules

    spec = judge_spec()
    spec["detectors"]["lookahead"] = {"description": "d", "any": ["panic(?=!)"],
                                      "all": [], "scope": "anywhere", "negation": True}
    tables = flatten_rules(CASE, spec, rules_hash="h")
    con = make_db()
    with pytest.raises(InputError, match="lookahead"):
        load_rules(con, tables)
    assert con.execute("SELECT count(*) FROM rule_check").fetchall()[0][0] == 0
    load_rules(con, flatten_rules(CASE, judge_spec(), rules_hash="h"))
    load_rules(con, flatten_rules(CASE, judge_spec(), rules_hash="h"))  # replaces, no dupes
    n = con.execute("SELECT count(*) FROM rule_check").fetchall()[0][0]
    assert n == flatten_rules(CASE, judge_spec(), rules_hash="h")["rule_check"].num_rows


def test_judging_a_connection_without_the_store_schema_says_how_to_open_it():
    from rcaeval.judge._audit import register_cases

    con = duckdb.connect()
    con.execute("CREATE TABLE case_meta (x INTEGER)")
    with pytest.raises(InputError, match=re.escape(
            "the store lacks tables ['eval_fact', 'eval_judgment', 'raw_bundle', 'rule_check']: "
            "open it with rcaeval.store.connect()")):
        register_cases(con, [], {})


def test_out_of_memory_while_judging_names_the_memory_limit():
    from rcaeval.judge._session import oom_guard as _oom_guard

    con = duckdb.connect()
    con.execute("SET memory_limit = '123MB'")
    limit = con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]

    def judge() -> None:
        raise duckdb.OutOfMemoryException("out of memory here")

    with pytest.raises(InputError, match=re.escape(
            f"judging 7 case runs in one pass (memory_limit {limit}): raise it")) as err:
        _oom_guard(con, 7, judge)
    assert err.value.field == "memory_limit" and "out of memory here" in str(err.value)
    assert _oom_guard(con, 7, lambda: 42) == 42
