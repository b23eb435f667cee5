"""Knowledge candidates from passing reviews: the trace-ledger path with its two-source-group
and linked-probe gates, the auditable harness_claim fallback and each of its conditions."""

from __future__ import annotations

import sys
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).parent))
from release_kit import ahash, capture, evidence, review, write_jsonl  # noqa: E402

from rcaeval.cli import main  # noqa: E402
from rcaeval.release._candidates import knowledge_candidates  # noqa: E402

PROBE = [{"tool": "kubectl_describe", "destructive": False, "probe_template_id": "probe-oom",
          "ok": True}]
ONE_GROUP = [evidence("E01", "prometheus", supports=["oom_kill"]),
             evidence("E02", "prometheus", supports=["oom_kill"])]
CLAIM = [{"text": "restarts follow OOMKilled", "material": True, "evidence_ids": ["E01"]}]
HISTORICAL = evidence("E09", "typedb", origin="historical")
SEEN_BEFORE = [{"text": "seen before", "material": True, "evidence_ids": ["E09"]}]


def incomplete(**kw) -> dict:
    """A capture whose trace ledger is incomplete (a material claim cites historical
    knowledge), so the harness_claim path is the one that can apply."""
    ev = kw.pop("ev", None) or [evidence("E01", "prometheus", supports=["oom_kill"]),
                                evidence("E02", "prometheus", supports=["oom_kill"])]
    rc_ids = kw.pop("rc_ids", None)
    return capture(kw.pop("cid", "a"), ev=[*ev, HISTORICAL],
                   rc_ids=rc_ids if rc_ids is not None else [e["id"] for e in ev],
                   claims=SEEN_BEFORE, **kw)


def _run(tmp_path: Path, caps: list, reviews: list):
    c = write_jsonl(tmp_path / "c.jsonl", caps)
    r = write_jsonl(tmp_path / "r.jsonl", reviews)
    return knowledge_candidates(r, c)


def test_complete_ledger_is_the_preferred_path(tmp_path: Path) -> None:
    res = _run(tmp_path, [capture("a", tools=PROBE, claims=CLAIM)], [review("r", ahash("a"))])
    (cand,) = res.candidates
    assert cand["evidence_source"] == "trace_ledger"
    assert cand["provenance"]["promotion_path"] == "trace_ledger"
    assert cand["probe_template_ids"] == ["probe-oom"]
    assert cand["source_groups"] == ["k8s_events", "prometheus"]
    assert cand["verified_actions"] == ["raise the memory limit"]


def test_incomplete_ledger_falls_back_to_harness_claim(tmp_path: Path) -> None:
    # an incomplete ledger (a material claim cites historical knowledge): the harness_claim
    # path applies, whatever the ledger's gates would say
    res = _run(tmp_path, [incomplete()], [review("r", ahash("a"))])
    (cand,) = res.candidates
    assert cand["evidence_source"] == "harness_claim"
    assert cand["provenance"]["promotion_path"] == "harness_claim"
    assert cand["probe_template_ids"] == []          # never invented
    assert cand["evidence_ids"] == ["E01", "E02"]
    assert cand["provenance"]["ledger_gaps"] == [
        "claims[0] cites E09, which is not live current-run evidence"]
    assert [g.split(":")[0] for g in cand["provenance"]["ledger_gate_failures"]] == [
        "two-source-group gate", "linked-probe gate"]


def test_a_complete_ledger_failing_its_gates_is_rejected(tmp_path: Path) -> None:
    """Defect: a complete ledger that fails its own gates took the harness_claim fallback, so
    a single-source or never-probed diagnosis became knowledge. It is rejected, naming the
    gate (not "trace ledger incomplete")."""
    caps = [capture("one_group", ev=ONE_GROUP, tools=PROBE),      # single source group
            capture("no_probe"),                                   # two groups, never probed
            capture("failed_probe", tools=[{**PROBE[0], "ok": False}])]
    c = write_jsonl(tmp_path / "c.jsonl", caps)
    r = write_jsonl(tmp_path / "r.jsonl", [review(f"r{i}", ahash(x["capture_id"]))
                                           for i, x in enumerate(caps)])
    out, rej = tmp_path / "k.jsonl", tmp_path / "rej.jsonl"
    assert main(["release", "candidates", "--reviews", str(r), "--captures", str(c),
                 "--out", str(out), "--rejected-out", str(rej)]) == 0
    assert out.read_bytes() == b""
    why = {x["review_id"]: x["reasons"] for x in map(orjson.loads, rej.read_bytes().splitlines())}
    assert why["r0"][0].startswith("trace ledger complete but two-source-group gate:")
    assert "spans 1 source group" in why["r0"][0]
    assert why["r1"][0].startswith("trace ledger complete but linked-probe gate:")
    assert why["r2"][0].startswith("trace ledger complete but linked-probe gate:")
    for reasons in why.values():
        assert not any("incomplete:" in w for w in reasons)
        assert reasons[-1] == ("harness_claim path: not applicable (only for an incomplete "
                               "trace ledger)")


def _rejected(tmp_path: Path, cap: dict, rev: dict | None = None) -> list[str]:
    res = _run(tmp_path, [cap], [rev or review("r", ahash(cap["capture_id"]))])
    assert res.candidates == []
    (rej,) = res.rejected
    return rej["reasons"]


def test_harness_claim_conditions(tmp_path: Path) -> None:
    why = _rejected(tmp_path, incomplete(status="degraded"))
    assert any("not supported" in w for w in why)
    assert any(w.startswith("trace ledger incomplete: claims[0]") for w in why)
    failed_gate = incomplete(cid="b")
    failed_gate["harness"]["gates"] = {"gate1": True, "gate2": False}
    assert any("gate failed" in w for w in _rejected(tmp_path, failed_gate))
    contradicting = [evidence("E01", "prometheus", supports=["oom_kill"]),
                     evidence("E02", "prometheus", supports=["disk_full"])]
    assert any("contradicts" in w
               for w in _rejected(tmp_path, incomplete(cid="c", ev=contradicting)))
    odd_ids = [evidence("ev-1", "prometheus", supports=["oom_kill"])]
    assert any("not canonical" in w
               for w in _rejected(tmp_path, incomplete(cid="d", ev=odd_ids)))
    assert any("no supporting evidence id" in w
               for w in _rejected(tmp_path, incomplete(cid="e", rc_ids=[])))


def test_review_and_snapshot_conditions(tmp_path: Path) -> None:
    assert any("does not match the snapshot family" in w for w in _rejected(
        tmp_path, capture("a", tools=PROBE), review("r", ahash("a"), family="disk_full")))
    assert any("does not pass" in w for w in _rejected(
        tmp_path, capture("b", tools=PROBE), review("r", ahash("b"), gate="fail")))
    assert any("does not pass" in w for w in _rejected(
        tmp_path, capture("c", tools=PROBE), review("r", ahash("c"), score=2)))
    assert any("no expected family" in w for w in _rejected(
        tmp_path, capture("d", tools=PROBE), review("r", ahash("d"), family=None)))
    assert any("no capture" in w for w in _rejected(
        tmp_path, capture("e", tools=PROBE), review("r", ahash("zzz"))))


def test_unverified_action_is_not_attached_and_cli(tmp_path: Path) -> None:
    c = write_jsonl(tmp_path / "c.jsonl", [capture("a", tools=PROBE, claims=CLAIM),
                                           capture("b", family="disk_full")])
    r = write_jsonl(tmp_path / "r.jsonl", [review("r1", ahash("a"), outcome="unresolved"),
                                           review("r2", ahash("b"))])
    out, rej = tmp_path / "k.jsonl", tmp_path / "rej.jsonl"
    assert main(["release", "candidates", "--reviews", str(r), "--captures", str(c),
                 "--out", str(out), "--rejected-out", str(rej)]) == 0
    (cand,) = [orjson.loads(x) for x in out.read_bytes().splitlines()]
    assert cand["verified_actions"] == []
    assert orjson.loads(rej.read_bytes())["review_id"] == "r2"


def test_linked_probe_gate_alone_decides(tmp_path: Path) -> None:
    # two source groups (the default capture) but no executed probe: the complete ledger
    # fails its linked-probe gate, and the review is rejected (no fallback)
    why = _rejected(tmp_path, capture("a", claims=CLAIM))
    assert why[0].startswith("trace ledger complete but linked-probe gate")
    # a probe that was recorded but failed is not a linked probe
    why = _rejected(tmp_path, capture("b", tools=[{**PROBE[0], "ok": False}], claims=CLAIM))
    assert why[0].startswith("trace ledger complete but linked-probe gate")
    # the same capture with the probe executed takes the ledger path
    (cand,) = _run(tmp_path, [capture("c", tools=PROBE, claims=CLAIM)],
                   [review("r", ahash("c"))]).candidates
    assert cand["evidence_source"] == "trace_ledger"


def test_ledger_incomplete_despite_two_groups_and_a_probe(tmp_path: Path) -> None:
    # a material claim citing historical knowledge leaves the ledger incomplete; the
    # harness_claim path still applies (its supporting evidence is the root cause's)
    ev = [evidence("E01", "k8s_events", supports=["oom_kill"]),
          evidence("E02", "prometheus", supports=["oom_kill"]),
          evidence("E03", "typedb", origin="historical")]
    claims = [{"text": "seen before", "material": True, "evidence_ids": ["E03"]}]
    (cand,) = _run(tmp_path, [capture("a", ev=ev, rc_ids=["E01", "E02"], tools=PROBE,
                                      claims=claims)], [review("r", ahash("a"))]).candidates
    assert cand["evidence_source"] == "harness_claim"
    assert cand["provenance"]["promotion_path"] == "harness_claim"
    assert cand["probe_template_ids"] == ["probe-oom"]   # recorded executions are kept
    assert cand["provenance"]["ledger_gaps"] == [
        "claims[0] cites E03, which is not live current-run evidence"]
    assert cand["provenance"]["ledger_gate_failures"] == []
