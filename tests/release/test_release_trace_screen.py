"""The capture/2 screen of queries/release/validate_trace.sql (`ok`: one from_json per text,
rows that pass skip the rules) never hides a problem: one bad shape per rule of the file,
each of a JSON type a typed parse would coerce or drop where there is one, must be named by
its rule; shapes the screen cannot pass but the rules accept are measured with no problem."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

import orjson
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from release_kit import capture, with_probability, with_trace, write_jsonl
from release_kit import obs as o

import rcaeval.release as rel
from rcaeval._paths import read_query

WIN = "2026-11-01..2026-11-14"
NESTED = ("response", "harness", "labels", "tool_executions", "knowledge_activations",
          "review_ids", "knowledge", "trace")
"""The JSON text columns of a Parquet export."""


class Raw(str):
    """A column text that is not JSON: only a Parquet export (JSON text columns) carries it."""


def _base(cid: str) -> dict[str, Any]:
    c = with_probability(capture(cid), 0.6)
    c["knowledge"] = {"package_id": "kp-1", "activation_path": "runtime_snapshot"}
    return with_trace(c, [o(1, template="p", plan_step=1), o(2, "loki", "logs")])


def _k(key: str, value: Any) -> Any:
    return lambda c: c["knowledge"].__setitem__(key, value)


def _t(key: str, value: Any) -> Any:
    return lambda c: c["trace"].__setitem__(key, value)


def _o(key: str, value: Any) -> Any:
    return lambda c: c["trace"]["observations"][0].__setitem__(key, value)


def _d(key: str, value: Any) -> Any:
    return lambda c: c["response"]["confidence_diagnostics"].__setitem__(key, value)


def _set(col: str, value: Any) -> Any:
    return lambda c: c.__setitem__(col, value)


def _cd(value: Any) -> Any:
    return lambda c: c["response"].__setitem__("confidence_diagnostics", value)


OBS = "trace.observations[0]."
CD = "response.confidence_diagnostics"
CASES: list[tuple[Any, str | None]] = [
    (_set("knowledge", Raw('{"package_id": ')), "knowledge"),
    (_set("knowledge", "kp-1"), "knowledge"),
    (_k("package_id", " "), "knowledge.package_id"),
    (_k("package_id", 5), "knowledge.package_id"),
    (_k("activation_path", ["typedb"]), "knowledge.activation_path"),
    (lambda c: c["knowledge"].pop("activation_path"), "knowledge.activation_path"),
    (_set("trace", Raw("trace/3")), "trace"),
    (_set("trace", [{"format": "trace/3"}]), "trace"),
    (_t("format", "trace/2"), "trace.format"),
    (_t("format", 3), "trace.format"),
    (_t("status", "live"), "trace.status"),
    (_t("status", True), "trace.status"),
    (_t("observations", {"order": 1}), "trace.observations"),
    (_t("observations", [o(1), o(1)]), "trace.observations"),
    (_o("order", 0), OBS + "order"),
    (_o("order", "1"), OBS + "order"),
    (_o("order", 1.0), OBS + "order"),
    (_o("collector", None), OBS + "collector"),
    (_o("collector", 5), OBS + "collector"),
    (_o("plane", True), OBS + "plane"),
    (_o("incident_time_relation", "later"), OBS + "incident_time_relation"),
    (_o("incident_time_relation", ["during"]), OBS + "incident_time_relation"),
    (_o("probe_template_id", 5), OBS + "probe_template_id"),
    (_o("hypothesis", ["oom_kill"]), OBS + "hypothesis"),
    (_o("evidence_id", {"id": "E01"}), OBS + "evidence_id"),
    (_o("supporting_source_groups", "prometheus"), OBS + "supporting_source_groups"),
    (_o("supporting_source_groups", ["prometheus", 1]), OBS + "supporting_source_groups"),
    (_o("contradicting_source_groups", [None]), OBS + "contradicting_source_groups"),
    (_o("plan_step", 0), OBS + "plan_step"),
    (_o("plan_step", "1"), OBS + "plan_step"),
    (_o("plan_step", 1.5), OBS + "plan_step"),
    (_cd("high"), CD),
    (_cd([0.6]), CD),
    (_d("probability", 1.5), CD + ".probability"),
    (_d("probability", "0.5"), CD + ".probability"),
    (_d("probability", True), CD + ".probability"),
    (_d("independent_source_groups", "prometheus"), CD + ".independent_source_groups"),
    (_d("adjustments", {"name": "x", "delta": 0.1}), CD + ".adjustments"),
    (_d("gates", "two_source_groups"), CD + ".gates"),
    (_d("adjustments", [{"name": 5, "delta": 0.1}]), CD + ".adjustments[0].name"),
    (_d("adjustments", [{"name": "x", "delta": "0.1"}]), CD + ".adjustments[0].delta"),
    (_d("adjustments", [{"name": "x", "delta": True}]), CD + ".adjustments[0].delta"),
    (_d("gates", [{"gate": None, "passed": True}]), CD + ".gates[0].gate"),
    (_d("gates", [{"gate": "g", "passed": "true"}]), CD + ".gates[0].passed"),
    (_d("gates", [{"gate": "g", "passed": 1}]), CD + ".gates[0].passed"),
    # shapes the screen cannot pass but the rules accept: measured, no problem
    (_set("knowledge", None), None),
    (_set("trace", None), None),
    (_cd(None), None),
    (lambda c: c["trace"].pop("observations"), None),
    (_o("plan_step", None), None),
    (lambda c: c["trace"]["observations"][0].pop("supporting_source_groups"), None),
    (_d("probability", None), None),
    (_d("probability", 0), None),
    (_d("independent_source_groups", None), None),
    (lambda c: c["response"]["confidence_diagnostics"].pop("adjustments"), None),
    (_d("adjustments", [{"name": "penalty", "delta": -0.25}]), None),
    (_d("gates", None), None),
]


MODEL_CASES: list[tuple[Any, str | None]] = [
    (lambda c: c["trace"]["observations"][0].pop("order"), OBS + "order"),
    (_o("order", None), OBS + "order"),
    (_o("order", 2**63), OBS + "order"),
    (_o("plan_step", 2**63), OBS + "plan_step"),
    (_o("collector", ""), OBS + "collector"),
    (_o("collector", "\u3000"), OBS + "collector"),
    (_o("plane", " \t\n"), OBS + "plane"),
    (_k("package_id", "\t"), "knowledge.package_id"),
    (_d("independent_source_groups", [1]), CD + ".independent_source_groups"),
    (_d("independent_source_groups", ["prometheus", None]), CD + ".independent_source_groups"),
    # accepted
    (lambda c: c["response"]["confidence_diagnostics"].pop("probability"), None),
    (_o("order", 2**63 - 1), None),
    (_o("plan_step", 2**63 - 1), None),
    (_o("collector", " prometheus "), None),
    (_o("plane", "\u200b"), None),                # not White_Space: the models keep it
    (_k("package_id", "\u00e9"), None),
    (_d("independent_source_groups", []), None),
    (_d("independent_source_groups", ["prometheus", ""]), None),
]
"""Shapes where the rules once disagreed with the models, which are the contract: a missing,
null or out-of-range order, a blank collector, plane or package id (blank as the models strip
it: Unicode White_Space), a list of non-strings as independent_source_groups, a diagnostics
object without a probability."""
CASES += MODEL_CASES


def _rows(parquet: bool) -> tuple[list[dict[str, Any]], set[tuple[int, str]]]:
    rows, want = [], set()
    for i, (edit, field) in enumerate(CASES):
        row = _base(f"c{i}")
        edit(row)
        if not parquet and any(isinstance(row.get(k), Raw) for k in ("knowledge", "trace")):
            continue                                   # JSON lines carry no such text
        rows.append(row)
        if field is not None:
            want.add((len(rows), field))
    return rows, want


def _rule_messages() -> set[tuple[str, str]]:
    """(field with list index 0, message's literal start) of every rule of the file."""
    sql = read_query("release/validate_trace.sql")
    found = re.findall(r"'field': '([^']*)'(?: \|\| \(i - 1\) \|\| '([^']*)')?,\s*"
                       r"'message': '([^']*)'", sql)
    return {(a + ("0" + b if b else ""), m) for a, b, m in found}


def test_every_rule_has_a_bad_shape() -> None:
    rules = _rule_messages()
    assert len(rules) == 29, sorted(rules)               # a new rule needs its shape here
    fields = {f for _, f in CASES if f is not None}
    assert {f for f, _ in rules} <= fields, {f for f, _ in rules} - fields


def test_capture2_screen_never_hides_a_problem(tmp_path: Path) -> None:
    rules = _rule_messages()
    seen: set[tuple[str, str]] = set()
    for parquet in (False, True):
        rows, want = _rows(parquet)
        if parquet:
            path = tmp_path / "c.parquet"
            pl.DataFrame([{k: (orjson.dumps(v).decode() if k in NESTED and v is not None
                               and not isinstance(v, Raw) else v)
                           for k, v in r.items()} for r in rows]).write_parquet(path)
        else:
            path = write_jsonl(tmp_path / "c.jsonl", rows)
        m = rel.measure(path, WIN)
        got = {(p["line"], p["field"]) for p in m.problems}
        assert got == want, (path.suffix, sorted(want - got), sorted(got - want))
        assert m.population["captures"]["in_window"] == len(rows) - len(want)
        for p in m.problems:
            seen |= {r for r in rules if r[0] == re.sub(r"\[\d+\]", "[0]", p["field"])
                     and p["message"].startswith(r[1])}
    assert seen == rules, sorted(rules - seen)           # every rule fired on its shape



def _model_accepts(row: dict[str, Any]) -> bool:
    """The capture model's verdict (rcaeval.release.Capture: the format's definition)."""
    try:
        rel.Capture.model_validate_json(orjson.dumps(row))
    except ValidationError:
        return False
    return True


def test_the_rules_agree_with_the_models_where_they_once_differed(tmp_path: Path) -> None:
    rows, verdicts = [], []
    for i, (edit, field) in enumerate(MODEL_CASES):
        row = _base(f"m{i}")
        edit(row)
        rows.append(row)
        verdicts.append(_model_accepts(row))
        assert verdicts[-1] == (field is None), (i, field)   # the case says what the model says
    m = rel.measure(write_jsonl(tmp_path / "m.jsonl", rows), WIN)
    refused = {p["line"] for p in m.problems}
    assert [i + 1 not in refused for i in range(len(rows))] == verdicts, m.problems


_TEXT = st.text(alphabet=st.sampled_from(["a", "P", " ", "\t", "\u3000", "\u200b", '"', "\\"]),
                max_size=3)
_LEAF = (st.none() | st.booleans() | st.integers(min_value=-2**63, max_value=2**64 - 1)
         | st.floats(allow_nan=False, allow_infinity=False) | _TEXT
         | st.sampled_from(["trace/3", "approved", "during", "prometheus"]))
_ANY = st.recursive(_LEAF, lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(_TEXT, inner, max_size=2), max_leaves=6)


def _obj(keys: tuple[str, ...], values: Any) -> Any:
    """An object of some of these keys (each value drawn from `values`), or any JSON value."""
    return st.dictionaries(st.sampled_from(keys), values, max_size=len(keys)) | _ANY


_OBS_KEYS = ("order", "collector", "plane", "probe_template_id", "hypothesis", "evidence_id",
             "incident_time_relation", "supporting_source_groups",
             "contradicting_source_groups", "plan_step")
_KNOWLEDGE = _obj(("package_id", "activation_path"), _ANY)
_TRACE = _obj(("format", "status", "observations"),
              st.lists(_obj(_OBS_KEYS, _ANY), max_size=3) | _ANY)
_DIAGNOSTICS = _obj(("probability", "independent_source_groups", "adjustments", "gates"),
                    st.lists(_obj(("name", "delta", "gate", "passed"), _ANY), max_size=2) | _ANY)


@settings(max_examples=8, deadline=None, database=None)
@given(st.lists(st.tuples(_KNOWLEDGE, _TRACE, _DIAGNOSTICS), min_size=1, max_size=25))
def test_a_refused_capture2_value_always_has_a_message(values: list[Any]) -> None:
    """Whatever shapes the three capture/2 values take, every problem names a field and says
    what is wrong (a NULL message once came out of a rule reading a missing key)."""
    rows = []
    for i, (k, t, d) in enumerate(values):
        row = _base(f"h{i}")
        row["knowledge"], row["trace"] = k, t
        row["response"]["confidence_diagnostics"] = d
        rows.append(row)
    with tempfile.TemporaryDirectory() as tmp:
        m = rel.measure(write_jsonl(Path(tmp) / "h.jsonl", rows), WIN)
    assert all(p["field"] and p["message"] for p in m.problems), m.problems
    assert m.population["captures"]["in_window"] + len({p["line"] for p in m.problems}) \
        == len(rows)
