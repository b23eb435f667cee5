"""The capture/2 screen of queries/release/validate_trace.sql (`ok`: one from_json per text,
rows that pass skip the rules) never hides a problem: one bad shape per rule of the file,
each of a JSON type a typed parse would coerce or drop where there is one, must be named by
its rule; shapes the screen cannot pass but the rules accept are measured with no problem."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson
import polars as pl
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

