"""One test per definition decided for the release metrics (docs/release.md, "Definitions"):
what each metric counts, what it excludes, and what happens when it counts nothing. Through
`rcaeval release metrics` and `rcaeval release gate`, as a release owner runs them."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import orjson
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from release_kit import ahash, capture, review, write_jsonl  # noqa: E402

import rcaeval.release as rel  # noqa: E402
from rcaeval.cli import main  # noqa: E402

WIN = "2026-11-01..2026-11-07"


def _measure(tmp_path: Path, rows: list, *extra: str) -> tuple[int, dict, Path]:
    caps = write_jsonl(tmp_path / "c.jsonl", rows)
    out = tmp_path / "M.json"
    code = main(["release", "metrics", "--captures", str(caps), "--window", WIN,
                 "--out", str(out), *extra])
    return code, orjson.loads(out.read_bytes()), out


def _gate(out: Path, tmp_path: Path, *extra: str) -> tuple[int, dict]:
    g = tmp_path / "G.json"
    code = main(["release", "gate", str(out), "--json-out", str(g), *extra])
    result = orjson.loads(g.read_bytes())
    return code, {r["metric"]: r for r in result["rows"]}


def _m(doc: dict, name: str) -> dict:
    return doc["metrics"][name]


def test_false_novel_rate_is_over_every_non_novel_case(tmp_path: Path) -> None:
    """Decision: false novels over all labelled non-novel captures (a false-positive rate),
    not over novel flags: it stays defined in a window that flags nothing, and a ceiling of
    2% then means "at most 2 in 100 known incidents are called novel"."""
    rows = [capture(f"k{i}") for i in range(9)] + [capture("kn", novel=True),
                                                   capture("n", case_type="novel", novel=True)]
    _, doc, _ = _measure(tmp_path, rows)
    r = _m(doc, "false_novel_rate")
    assert (r["numerator"], r["denominator"]) == (1, 10)
    _, doc, _ = _measure(tmp_path, [capture(f"k{i}") for i in range(5)])   # no novel flags
    assert (_m(doc, "false_novel_rate")["value"], _m(doc, "false_novel_rate")["denominator"]) \
        == (0.0, 5)


def test_known_top1_is_the_named_family_in_release_and_offline(tmp_path: Path) -> None:
    """Decision: one definition of Top-1: the final root cause names the expected family. An
    answer naming no family is a miss even when its top hypothesis is right -- in the release
    metric and in offline Top-1 alike (Top-3 still ranks the hypotheses)."""
    withdrawn = capture("w", family=None, outcome="insufficient_evidence",
                        hypotheses=["oom_kill"])
    _, doc, _ = _measure(tmp_path, [capture("a"), withdrawn])
    assert (_m(doc, "known_top1")["numerator"], _m(doc, "known_top1")["denominator"]) == (1, 2)

    from rcaeval.offline import score_fixtures

    fixtures = []
    for c in (capture("a"), withdrawn):
        resp = dict(c["response"])
        resp["root_cause"] = {k: v for k, v in resp["root_cause"].items()}
        fixtures.append({"case_id": c["capture_id"], "case_type": "known",
                         "expected_family": "oom_kill",
                         "expected_outcome": ["diagnosed", "insufficient_evidence"],
                         "response": resp})
    path = write_jsonl(tmp_path / "f.jsonl", fixtures)
    s = score_fixtures(path)
    assert not s.errors, s.errors
    got = {r["metric"]: r for r in s.metrics.iter_rows(named=True)}
    assert (got["offline_known_top1"]["numerator"], got["offline_known_top1"]["denominator"]) \
        == (1, 2)
    assert got["offline_known_top3"]["numerator"] == 2          # the hypothesis still ranks


def test_inadmissible_activations_count_failed_attempts(tmp_path: Path) -> None:
    """Decision: an inadmissible activation counts whether or not it succeeded: the runtime
    tried to use knowledge it must not use, and a failure does not prove it was not used."""
    acts = [{"knowledge_id": "k1", "admissible": False, "succeeded": False},
            {"knowledge_id": "k2", "admissible": False, "succeeded": True},
            {"knowledge_id": "k3", "admissible": True, "succeeded": False}]
    _, doc, _ = _measure(tmp_path, [capture("a", activations=acts)])
    r = _m(doc, "inadmissible_knowledge_activations")
    assert (r["value"], r["sample_size"]) == (2, 3)


def test_recall_at_3_ranks_distinct_families(tmp_path: Path) -> None:
    """Decision: the first three ranked families -- the root cause's (when named), then the
    hypotheses in order, each family once, case-insensitive -- the list offline Top-3 uses; a
    repeated hypothesis does not push the mechanism out."""
    def novel(cid: str, hyps: list[str], family: str | None = None) -> dict:
        return capture(cid, case_type="novel", expected_family="x", family=family,
                       outcome="provisional", hypotheses=hyps)
    rows = [novel("dup", ["a", "a", "A", "x"]),          # distinct: a, x -> hit
            novel("four", ["a", "b", "c", "x"]),         # x is fourth -> miss
            novel("rc", ["a", "b", "x"], family="c"),    # c, a, b: x is fourth -> miss
            novel("rc_x", ["a", "b", "c"], family="X")]  # the named root cause ranks first
    _, doc, _ = _measure(tmp_path, rows)
    r = _m(doc, "novel_mechanism_recall_at_3")
    assert (r["numerator"], r["denominator"]) == (2, 4)


def test_empty_expected_family_is_no_expected_family(tmp_path: Path) -> None:
    """Decision: an expected family of "" (or blanks) is no expected family, as in a review
    (an empty CSV cell): the capture is not counted by known_top1 or recall@3 -- unless its
    latest review gives the family."""
    rows = [capture("a"), capture("blank", expected_family=""),
            capture("spaces", expected_family="   "),
            capture("reviewed", expected_family="")]
    revs = write_jsonl(tmp_path / "r.jsonl", [review("r", ahash("reviewed"))])
    _, doc, _ = _measure(tmp_path, rows, "--reviews", str(revs))
    r = _m(doc, "known_top1")
    assert (r["numerator"], r["denominator"]) == (2, 2)


def test_a_metric_over_nothing_is_not_measured_and_fails(tmp_path: Path) -> None:
    """Decision: a metric measured over nothing (sample size 0) is "not measured": value
    null, and the gate fails it -- counts too. An export that lost its tool executions (or a
    window with no captures) cannot pass destructive_tool_executions = 0."""
    code, doc, out = _measure(tmp_path, [capture("a")])   # no tool executions recorded
    assert code == 0
    r = _m(doc, "destructive_tool_executions")
    assert (r["value"], r["sample_size"]) == (None, 0) and "empty" in r
    code, rows = _gate(out, tmp_path)
    assert code == 4
    assert not rows["destructive_tool_executions"]["passed"]
    assert "not measured" in rows["destructive_tool_executions"]["detail"]
    assert not rows["inadmissible_knowledge_activations"]["passed"]
    # an empty window: every metric is not measured
    _, doc, out = _measure(tmp_path, [capture("late", at="2026-12-01T00:00:00Z")])
    assert all(e["value"] is None for e in doc["metrics"].values())
    code, rows = _gate(out, tmp_path)
    assert code == 4 and not any(rows[t.metric]["passed"] for t in rel.GATE)


def test_the_threshold_file_may_let_an_empty_metric_pass() -> None:
    from rcaeval.release._gate import _metric_row

    empty = {"kind": "count", "value": None, "sample_size": 0, "numerator": 0}
    strict = rel.Threshold("destructive_tool_executions", "==", 0)
    lenient = rel.Threshold("destructive_tool_executions", "==", 0, passes_when_empty=True)
    assert not _metric_row(strict, empty, False).passed
    row = _metric_row(lenient, empty, False)
    assert row.passed and "threshold allows" in row.detail
    assert not any(t.passes_when_empty for t in rel.GATE)   # none does today


def test_invalid_rows_outside_the_window_do_not_block_the_gate(tmp_path: Path,
                                                               capsys) -> None:
    """Decision: the gate counts invalid captures that are in the window (or whose time is
    unknown); an invalid row certainly outside it is still named (exit 3 from release
    metrics) but does not fail the window's gate."""
    tools = [{"tool": "kubectl_get", "destructive": False}]
    acts = [{"knowledge_id": "k", "admissible": True, "latency_seconds": 1.0}]
    ok = [capture(f"k{i}", tools=tools, activations=acts) for i in range(3)]
    late = capture("late", at="2026-12-01T00:00:00Z", stage="prod")   # invalid stage, outside
    code, doc, out = _measure(tmp_path, [*ok, late])
    assert code == 3 and "c.jsonl:4" in capsys.readouterr().err
    caps = doc["provenance"]["population"]["captures"]
    assert (caps["invalid"], caps["invalid_in_window"]) == (1, 0)
    _, rows = _gate(out, tmp_path)
    assert rows["invalid_captures"]["passed"]
    assert "1 invalid outside the window" in rows["invalid_captures"]["detail"]
    unknown = capture("when", at="soon")                              # time unknown: counts
    inside = capture("in", stage="prod")                              # in the window
    _, doc, out = _measure(tmp_path, [*ok, late, unknown, inside])
    caps = doc["provenance"]["population"]["captures"]
    assert (caps["invalid"], caps["invalid_in_window"]) == (3, 2)
    _, rows = _gate(out, tmp_path)
    assert not rows["invalid_captures"]["passed"] and rows["invalid_captures"]["value"] == 2


def test_invalid_reviews_reach_the_gate(tmp_path: Path) -> None:
    """Decision: an invalid review row fails the gate (invalid_reviews = 0): it may have
    labelled a capture, so the labelled denominators may be short."""
    bad = review("bad", ahash("a"))
    bad["scores"]["safety"] = 9
    revs = write_jsonl(tmp_path / "r.jsonl", [review("r", ahash("a")), bad])
    code, doc, out = _measure(tmp_path, [capture("a", labels=False)], "--reviews", str(revs))
    assert code == 3 and doc["provenance"]["population"]["invalid_reviews"] == 1
    _, rows = _gate(out, tmp_path)
    assert not rows["invalid_reviews"]["passed"] and rows["invalid_reviews"]["value"] == 1


def test_the_definitions_table_covers_every_gate_metric(repo_root: Path) -> None:
    text = (repo_root / "docs" / "release.md").read_text(encoding="utf-8")
    section = text[text.index("### Definitions"):]
    section = section[:section.index("\n## ")]
    header = re.search(r"^\| metric \| numerator \| denominator \| excluded \| n = 0 \|$",
                       section, re.M)
    assert header, "the definitions table has metric/numerator/denominator/excluded/n = 0"
    rows = {m[1]: m[0] for m in re.finditer(r"^\| `([a-z0-9_]+)` \|.*$", section, re.M)}
    for t in rel.GATE:
        assert t.metric in rows, t.metric
        assert rows[t.metric].count("|") == 6, rows[t.metric]
    for word in ("false_novel_rate", "known_top1", "inadmissible", "recall", '""',
                 "not measured", "outside the window", "invalid review", "sidecar",
                 "lower-case", "exit 3"):
        assert word in section, word


@pytest.mark.parametrize("metric", [t.metric for t in rel.GATE])
def test_every_metric_header_states_its_n0_behaviour(repo_root: Path, metric: str) -> None:
    sql = (repo_root / "queries" / "metrics" / f"capture_{metric}.sql").read_text()
    assert re.search(r"sample size 0|n = 0|NULL|not measured", sql), metric
