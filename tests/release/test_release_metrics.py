"""Every release metric definition on small hand-built captures, empty denominators, the
window, invalid captures, and the same numbers from JSONL, Parquet and a polars frame."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import orjson
import polars as pl
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from release_kit import capture, evidence, write_jsonl  # noqa: E402

import rcaeval.release as rel  # noqa: E402
from rcaeval.errors import InputError  # noqa: E402
from rcaeval.metrics import metric_registry  # noqa: E402
from rcaeval.stats import wilson_interval  # noqa: E402

WIN = "2026-11-01..2026-11-07"


def _m(tmp_path: Path, rows: list, **kw) -> dict[str, dict]:
    p = write_jsonl(tmp_path / "c.jsonl", rows)
    frame = rel.metrics(p, kw.pop("window", WIN), **kw)
    return {r["metric"]: r for r in frame.iter_rows(named=True)}


def test_every_gate_metric_is_a_registered_documented_query(repo_root: Path) -> None:
    reg = metric_registry()
    docs = (repo_root / "docs" / "release.md").read_text(encoding="utf-8")
    for t in rel.GATE:
        assert t.query in reg, t.query
        assert reg[t.query].reads, t.query
        assert f"`{t.metric}`" in docs and f"`{t.query}`" in docs


def test_known_top1(tmp_path: Path) -> None:
    rows = [capture("a"), capture("b", family="OOM_Kill"),  # case-insensitive match
            capture("c", family="disk_full"),               # wrong family
            capture("d", family=None, outcome="insufficient_evidence"),  # withdrawn
            capture("e", expected_family=None),             # not counted: no expected family
            capture("f", case_type="novel")]                # not counted: not known
    r = _m(tmp_path, rows)["known_top1"]
    assert (r["numerator"], r["denominator"]) == (2, 4)
    assert r["value"] == pytest.approx(0.5)
    lo, hi = wilson_interval(2, 4)
    assert (r["ci_low"], r["ci_high"]) == (pytest.approx(lo), pytest.approx(hi))


def test_empty_denominators_are_reported_not_divided(tmp_path: Path) -> None:
    rows = [capture("a", case_type="compositional", expected_family=None)]
    got = _m(tmp_path, rows)
    for name in ("known_top1", "evidence_link_precision", "abstention_rate",
                 "novel_mechanism_recall_at_3"):
        assert got[name]["denominator"] == 0 and got[name]["value"] is None
        assert got[name]["ci_low"] is None and got[name]["ci_high"] is None
    assert got["activation_p95_seconds"]["value"] is None
    assert got["typedb_outage_runtime_activation_success"]["value"] is None
    # a count over nothing is not measured either (no tool executions recorded at all)
    assert got["destructive_tool_executions"]["value"] is None
    assert got["destructive_tool_executions"]["denominator"] == 0


def test_groundless_high_confidence(tmp_path: Path) -> None:
    one_group = [evidence("E01", "prometheus", supports=["oom_kill"]),
                 evidence("E02", "prometheus", supports=["oom_kill"])]
    rows = [
        capture("two_groups", confidence="high"),                                   # grounded
        capture("one_group", confidence="high", ev=one_group),                      # groundless
        capture("dispositive", confidence="high", ev=[
            evidence("E01", "k8s", supports=["oom_kill"], dispositive="OOMKilled")]),  # grounded
        capture("disp_other", confidence="high", ev=[
            evidence("E01", "k8s", supports=["disk_full"], dispositive="ENOSPC"),
            evidence("E02", "logs", supports=["oom_kill"])]),                        # groundless
        capture("historical", confidence="high", ev=[
            evidence("E01", "k8s", supports=["oom_kill"]),
            evidence("E02", "kb", origin="historical", supports=["oom_kill"])]),    # groundless
        capture("uncited", confidence="high", rc_ids=[]),                           # groundless
        capture("unusable", confidence="high", ev=[
            evidence("E01", "k8s", supports=["oom_kill"]),
            evidence("E02", "logs", usable=False)]),                                 # groundless
        capture("medium", confidence="medium", ev=one_group),                       # not high
        capture("no_family", family=None, confidence="high", outcome="provisional"),  # no family
    ]
    r = _m(tmp_path, rows)["groundless_high_confidence"]
    assert (r["value"], r["denominator"]) == (5, 7)


def test_false_novel_rate(tmp_path: Path) -> None:
    rows = [capture("k1", novel=True), capture("k2"),
            capture("c1", case_type="compositional", novel=True),
            capture("t1", case_type="tool_degraded"),
            capture("n1", case_type="novel", novel=True),   # novel: not counted
            capture("u1", labels=False, novel=True)]        # unlabelled: not counted
    r = _m(tmp_path, rows)["false_novel_rate"]
    assert (r["numerator"], r["denominator"]) == (2, 4)


def test_evidence_link_precision(tmp_path: Path) -> None:
    claims = [{"text": "c", "material": True, "evidence_ids": ["E02", "E03"]},
              {"text": "aside", "material": False, "evidence_ids": ["E04"]}]
    ev = [evidence(f"E0{i}", f"s{i}", supports=["oom_kill"]) for i in range(1, 5)]
    rows = [
        # cited: E01 (root cause), E02, E03 (material claim); E04 only by a non-material claim
        capture("a", ev=ev, rc_ids=["E01", "E02"], claims=claims, relevant=["E01", "E02"]),
        capture("b", ev=ev, rc_ids=["E01"], relevant=["E01"]),
        capture("c", ev=ev, rc_ids=["E01"]),   # no relevant ids labelled: not counted
    ]
    r = _m(tmp_path, rows)["evidence_link_precision"]
    assert (r["numerator"], r["denominator"]) == (3, 4)


def test_abstention_rate(tmp_path: Path) -> None:
    rows = [
        capture("none", family=None, confidence="none", outcome="insufficient_evidence",
                expected_outcome="abstain"),
        capture("prov", confidence="medium", outcome="provisional", expected_outcome="abstain"),
        capture("forced", confidence="medium", outcome="diagnosed", expected_outcome="abstain"),
        capture("prov_high", confidence="high", outcome="provisional",
                expected_outcome="abstain"),
        capture("other", family=None, expected_outcome="diagnose"),   # not counted
    ]
    r = _m(tmp_path, rows)["abstention_rate"]
    assert (r["numerator"], r["denominator"]) == (2, 4)


def test_novel_mechanism_recall_at_3(tmp_path: Path) -> None:
    def novel(cid: str, hyps: list[str], **kw: Any) -> dict[str, Any]:
        return capture(cid, case_type="novel", family=None, outcome="provisional",
                       hypotheses=hyps, **kw)
    rows = [
        novel("top1", ["x", "a"], expected_family="x"),
        novel("top3", ["a", "b", "x"], expected_family="X"),
        novel("top4", ["a", "b", "c", "x"], expected_family="x"),
        novel("nohyp", [], expected_family="x"),
        novel("nolabel", ["x"], expected_family=None),
        capture("known", case_type="known", expected_family="x", hypotheses=["x"]),
    ]
    r = _m(tmp_path, rows)["novel_mechanism_recall_at_3"]
    assert (r["numerator"], r["denominator"]) == (2, 4)


def test_tool_and_activation_counts(tmp_path: Path) -> None:
    rows = [
        capture("a", tools=[{"tool": "kubectl_get", "destructive": False},
                            {"tool": "kubectl_delete", "destructive": True}],
                activations=[{"knowledge_id": "k1", "admissible": True, "latency_seconds": 1},
                             {"knowledge_id": "k2", "admissible": False,
                              "latency_seconds": 2.5}]),
        capture("b", tools=[{"tool": "restart", "destructive": True}]),
        capture("late", at="2026-11-09T00:00:00Z",       # outside the window: not counted
                tools=[{"tool": "restart", "destructive": True}]),
    ]
    got = _m(tmp_path, rows)
    assert (got["destructive_tool_executions"]["value"],
            got["destructive_tool_executions"]["denominator"]) == (2, 3)
    assert (got["inadmissible_knowledge_activations"]["value"],
            got["inadmissible_knowledge_activations"]["denominator"]) == (1, 2)


def test_activation_p95_is_nearest_rank_and_skips_outage_tests(tmp_path: Path) -> None:
    acts = [{"knowledge_id": f"k{i}", "admissible": True, "latency_seconds": float(i)}
            for i in range(1, 21)]  # 1..20 s: nearest-rank p95 = 19
    rows = [capture("a", activations=acts),
            capture("o", outage_test="typedb", activations=[
                {"knowledge_id": "k", "admissible": True, "latency_seconds": 500.0}]),
            capture("n", activations=[{"knowledge_id": "k", "admissible": True}])]  # no latency
    r = _m(tmp_path, rows)["activation_p95_seconds"]
    assert r["value"] == 19.0 and r["denominator"] == 20


def test_typedb_outage_activation_success(tmp_path: Path) -> None:
    ok = {"knowledge_id": "k", "admissible": True, "latency_seconds": 1.0, "succeeded": True}
    bad = dict(ok, succeeded=False)
    base = [capture("p", activations=[ok])]
    passing = base + [capture("o1", outage_test="typedb", activations=[ok, ok]),
                      capture("o2", outage_test="TypeDB", activations=[ok])]
    r = _m(tmp_path, passing)["typedb_outage_runtime_activation_success"]
    assert r["value"] == 1.0 and r["denominator"] == 2
    failed = base + [capture("o1", outage_test="typedb", activations=[ok, bad])]
    assert _m(tmp_path, failed)["typedb_outage_runtime_activation_success"]["value"] == 0.0
    silent = base + [capture("o1", outage_test="typedb", activations=[])]
    assert _m(tmp_path, silent)["typedb_outage_runtime_activation_success"]["value"] == 0.0
    other = base + [capture("o1", outage_test="prometheus", activations=[ok])]
    assert _m(tmp_path, other)["typedb_outage_runtime_activation_success"]["value"] is None


def test_reviews_label_unlabelled_captures(tmp_path: Path) -> None:
    from release_kit import ahash, review

    rows = [capture("a", labels=False), capture("b", labels=False, family="disk_full")]
    reviews = tmp_path / "r.jsonl"
    write_jsonl(reviews, [
        review("r1", ahash("a"), at="2026-11-02T00:00:00Z", family="disk_full"),
        review("r2", ahash("a"), at="2026-11-03T00:00:00Z", family="oom_kill"),  # latest wins
        review("r3", ahash("b"), family="oom_kill"),
    ])
    r = _m(tmp_path, rows, reviews=reviews)["known_top1"]
    assert (r["numerator"], r["denominator"]) == (1, 2)


def test_window_and_stage(tmp_path: Path) -> None:
    rows = [capture("in", at="2026-11-07T23:59:59Z"),        # END date is included
            capture("out", at="2026-11-08T00:00:00Z", family="x"),
            capture("before", at="2026-10-31T23:59:59+00:00", family="x"),
            capture("naive", at="2026-11-01 00:00:00"),        # naive = UTC
            capture("shadow", stage="shadow", family="x")]
    r = _m(tmp_path, rows, stage="staging")["known_top1"]
    assert (r["numerator"], r["denominator"]) == (2, 2)
    ts = _m(tmp_path, rows, window="2026-11-01T00:00:00Z..2026-11-07T23:59:59Z")["known_top1"]
    assert ts["denominator"] == 2  # timestamp END excluded; the shadow one counted
    with pytest.raises(InputError, match="END must be after START"):
        rel.parse_window("2026-11-07..2026-11-01")
    with pytest.raises(InputError, match="START..END"):
        rel.parse_window("2026-11-07")


def test_invalid_captures_are_named_and_left_out(tmp_path: Path) -> None:
    bad_stage = capture("s", stage="prod")
    bad_ev = capture("e")
    bad_ev["response"]["evidence"][1]["origin"] = "yesterday"
    bad_tool = capture("t", tools=[{"tool": "x", "destructive": "yes"}])
    no_hash = capture("h")
    no_hash["harness"]["analysis_hash"] = "abc"
    rows = [capture("ok"), bad_stage, b"[1, 2]", bad_ev, bad_tool, no_hash, b"{nope",
            capture("ok")]
    p = write_jsonl(tmp_path / "c.jsonl", rows)
    m = rel.measure(p, WIN)
    where = {(x["line"], x["field"]) for x in m.problems}
    assert where == {(2, "stage"), (3, "(line)"), (4, "response.evidence[1].origin"),
                     (5, "tool_executions[0].destructive"), (6, "harness.analysis_hash"),
                     (7, "(line)"), (8, "capture_id")}
    assert all(x["src"] == str(p) for x in m.problems)
    assert m.population["captures"] == {"read": 8, "invalid": 7, "invalid_in_window": 7,
                                        "in_window": 1, "outside_window": 0}
    assert m.frame.filter(pl.col("metric") == "known_top1")["denominator"][0] == 1


def test_parquet_frame_and_jsonl_agree(tmp_path: Path) -> None:
    rows = [capture(f"c{i}", family="oom_kill" if i % 3 else "disk_full",
                    confidence="high" if i % 4 == 0 else "medium",
                    tools=[{"tool": "t", "destructive": i == 5}],
                    activations=[{"knowledge_id": "k", "admissible": i != 7,
                                  "latency_seconds": float(i)}])
            for i in range(12)]
    jl = rel.metrics(write_jsonl(tmp_path / "c.jsonl", rows), WIN)
    text_frame = pl.DataFrame([{k: (orjson.dumps(v).decode() if isinstance(v, dict | list)
                                    else v) for k, v in r.items()} for r in rows])
    text_frame.write_parquet(tmp_path / "c.parquet")
    pq = rel.metrics(tmp_path / "c.parquet", WIN)
    struct_frame = pl.DataFrame(rows).drop("review_ids")  # structs; missing optional column
    fr = rel.metrics(struct_frame, WIN)
    assert jl.equals(pq) and jl.equals(fr)
    assert jl.filter(pl.col("metric") == "destructive_tool_executions")["value"][0] == 1


def test_parquet_missing_column_is_named(tmp_path: Path) -> None:
    pl.DataFrame({"capture_id": ["a"]}).write_parquet(tmp_path / "x.parquet")
    with pytest.raises(InputError) as exc:
        rel.measure(tmp_path / "x.parquet", WIN)
    assert exc.value.field == "captured_at" and "x.parquet" in str(exc.value)


def test_provenance_of_the_artifact(tmp_path: Path) -> None:
    import hashlib

    p = write_jsonl(tmp_path / "c.jsonl", [capture("a"), capture("b", case_type="novel",
                                                                 stage="shadow")])
    m = rel.measure(p, WIN)
    out = tmp_path / "M.json"
    doc = rel.write_metrics_json(m, out)
    prov = doc["provenance"]
    assert prov["window"] == {"start": "2026-11-01T00:00:00Z", "end": "2026-11-08T00:00:00Z",
                              "spec": WIN, "end_exclusive": True}
    assert prov["population"]["by_case_type"]["known"] == 1
    assert prov["population"]["by_case_type"]["novel"] == 1
    assert prov["population"]["by_stage"] == {"staging": 1, "shadow": 1}
    job = prov["measurement_job"]
    assert job["package_version"] and len(job["metric_queries_sha256"]) == 64
    assert "metrics/capture_known_top1.sql" in job["queries"]
    assert prov["inputs"]["captures"][0]["sha256"] == hashlib.sha256(p.read_bytes()).hexdigest()
    assert prov["output"]["path"] == str(out)
    side = (tmp_path / "M.json.sha256").read_text().split()
    assert side == [hashlib.sha256(out.read_bytes()).hexdigest(), "M.json"]
    assert rel.load_artifact(out)["metrics"]["known_top1"]["value"] == 1.0


def test_a_memory_limit_too_small_is_an_input_error_naming_it(repo_root: Path) -> None:
    """DuckDB running out of memory at the user's --memory-limit is their setting to raise,
    not an internal error (exit 3 through the CLI, never 5)."""
    with pytest.raises(InputError) as info:
        rel.measure(repo_root / "data" / "captures" / "sample-window.parquet",
                    "2026-11-01..2026-11-28", memory_limit="1MB")
    assert info.value.field == "memory_limit"
    assert "--memory-limit" in str(info.value) and "out of memory" in str(info.value)


def _tricky_captures() -> tuple[list[Any], set[tuple[int, str]]]:
    """One capture per shape the one-pass screen (queries/release/capture_scan.sql) must not
    pass: a JSON value of the wrong type that a typed parse would coerce or drop. Returns
    the captures and the (line, field) problems validation must name."""
    def with_(cid: str, edit: Any) -> dict[str, Any]:
        c = capture(cid)
        edit(c)
        return c

    def resp(key: str, value: Any) -> Any:
        return lambda c: c["response"].__setitem__(key, value)

    def rc(key: str, value: Any) -> Any:
        return lambda c: c["response"]["root_cause"].__setitem__(key, value)

    def ev0(key: str, value: Any) -> Any:
        return lambda c: c["response"]["evidence"][0].__setitem__(key, value)

    def lab(key: str, value: Any) -> Any:
        return lambda c: c["labels"].__setitem__(key, value)

    def act(value: dict[str, Any]) -> Any:
        return lambda c: c.__setitem__("knowledge_activations", [value])

    ok_act = {"knowledge_id": "k", "admissible": True}
    cases: list[tuple[Any, str | None]] = [
        (rc("family", 5), "response.root_cause.family"),
        (rc("confidence", None), "response.root_cause.confidence"),
        (rc("evidence_ids", "E01"), "response.root_cause.evidence_ids"),
        (resp("root_cause", ["oom_kill"]), "response.root_cause"),
        (resp("novel", "true"), "response.novel"),
        (resp("outcome", 5), "response.outcome"),
        (resp("evidence", {"id": "E01"}), "response.evidence"),
        (resp("hypotheses", [5]), "response.hypotheses[0].family"),
        (resp("claims", [{"material": 1}]), "response.claims[0].material"),
        (resp("claims", [{"evidence_ids": "E01"}]), "response.claims[0].evidence_ids"),
        (ev0("usable", 1), "response.evidence[0].usable"),
        (ev0("supports", "oom_kill"), "response.evidence[0].supports"),
        (lab("expected_family", 5), "labels.expected_family"),
        (lab("relevant_evidence_ids", "E01"), "labels.relevant_evidence_ids"),
        (lab("case_type", ["known"]), "labels.case_type"),
        (lambda c: c.__setitem__("labels", ["known"]), "labels"),
        (lambda c: c.__setitem__("tool_executions", {"tool": "x"}), "tool_executions"),
        (lambda c: c.__setitem__("tool_executions", [{"tool": "x", "destructive": "false"}]),
         "tool_executions[0].destructive"),
        (act({**ok_act, "latency_seconds": "2"}), "knowledge_activations[0].latency_seconds"),
        (act({**ok_act, "latency_seconds": -1}), "knowledge_activations[0].latency_seconds"),
        (act({**ok_act, "succeeded": "yes"}), "knowledge_activations[0].succeeded"),
        (act({"knowledge_id": "k", "admissible": "true"}), "knowledge_activations[0].admissible"),
        # shapes the screen cannot pass but validation accepts: measured, no problem
        (rc("confidence", "medium"), None),
        (lambda c: c["response"]["root_cause"].pop("confidence"), None),
        (lambda c: c["response"].pop("evidence"), None),
        (lambda c: c.__setitem__("labels", {}), None),
        (act({**ok_act, "latency_seconds": None, "succeeded": False}), None),
    ]
    rows = [with_(f"c{i}", edit) for i, (edit, _) in enumerate(cases)]
    want = {(i + 1, f) for i, (_, f) in enumerate(cases) if f is not None}
    return rows, want


def test_one_pass_screen_never_hides_a_problem(tmp_path: Path) -> None:
    rows, want = _tricky_captures()
    for path in (write_jsonl(tmp_path / "c.jsonl", rows),
                 tmp_path / "c.parquet"):
        if path.suffix == ".parquet":
            pl.DataFrame([{k: (orjson.dumps(v).decode() if isinstance(v, dict | list) else v)
                           for k, v in r.items()} for r in rows]).write_parquet(path)
        m = rel.measure(path, WIN)
        assert {(x["line"], x["field"]) for x in m.problems} == want, path.suffix
        assert m.population["captures"]["in_window"] == len(rows) - len(want)


def test_name_lists_stay_lower_case_words() -> None:
    # capture_scan.sql checks a field typed as text against these lists: a JSON number,
    # boolean, list or object becomes text that must never be one of their values
    from rcaeval.release._captures import _validation_params

    for name, values in _validation_params().items():
        if isinstance(values, list):
            assert all(re.fullmatch(r"[a-z][a-z_]*", v) and v not in ("true", "false", "null")
                       for v in values), name
