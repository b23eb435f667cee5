"""Novelty mutations: each one on fixtures (what changes, the implied outcome, the relabelled
case) and on recorded bundles (files rewritten, mutation.json, the judge's reading of the
mutated bundle), plus the CLI."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from offline_kit import ev, fx, resp, write

from rcaeval.cli import main
from rcaeval.errors import InputError
from rcaeval.offline import (
    MUTATION_FILE,
    MUTATIONS,
    mutate_bundle,
    mutate_fixtures,
    parse_fixture,
    read_fixtures,
    score_fixtures,
)


def _known(**kw) -> dict:
    evidence = [ev("E01", "k8s_events", group="events", supports=["oom_kill"],
                   dispositive="OOMKilled (exit 137)"),
                ev("E02", "prometheus", group="metrics", supports=["oom_kill"]),
                ev("E03", "kb", origin="historical", supports=["oom_kill"])]
    r = resp("oom_kill", confidence="high", evidence=evidence, rc_ids=["E01", "E02"],
             claims=[{"text": "OOMKilled", "material": True, "family": "oom_kill",
                      "evidence_ids": ["E01"]},
                     {"text": "memory at limit", "material": True, "family": "oom_kill",
                      "evidence_ids": ["E02"]}], **kw)
    return fx("k1", response=r, relevant=["E01", "E02"])


def _mutate(tmp_path: Path, m: str, row: dict | None = None):
    out, skipped = mutate_fixtures(write(tmp_path / "f.jsonl", [row or _known()]), [m])
    assert not skipped, skipped
    (f,) = out
    return f


def _ev(f) -> dict:
    return {e.id: e for e in f.response.evidence}


def test_remove_signature(tmp_path: Path) -> None:
    f = _mutate(tmp_path, "remove_signature")
    assert f.case_id == "k1~remove_signature" and f.case_type == "novel"
    assert f.expected_family is None and "oom_kill" in f.familiar_families
    assert not any(e.dispositive_signature for e in f.response.evidence)
    # two independent live groups remain (events, metrics): diagnosed stays acceptable
    assert f.expected_outcome == ["diagnosed", "provisional", "insufficient_evidence"]
    assert f.harness is not None and f.relevant_evidence_ids == ["E01", "E02"]


def test_omit_symptom_drops_a_non_dispositive_supporting_artifact(tmp_path: Path) -> None:
    f = _mutate(tmp_path, "omit_symptom")
    sources = [e.source for e in f.response.evidence]
    assert sources == ["k8s_events", "kb"]
    assert f.expected_outcome == ["provisional", "insufficient_evidence"]
    assert f.relevant_evidence_ids == ["E01"]
    assert all(i in _ev(f) for c in f.response.claims for i in c.evidence_ids)


def test_add_contradictory(tmp_path: Path) -> None:
    f = _mutate(tmp_path, "add_contradictory")
    last = f.response.evidence[-1]
    assert last.origin == "current_run" and last.supports == ["healthy_baseline"]
    assert "no sign of oom_kill" in last.summary
    assert f.expected_outcome == ["provisional", "insufficient_evidence"]


def test_remove_source(tmp_path: Path) -> None:
    f = _mutate(tmp_path, "remove_source")
    down = [e for e in f.response.evidence if not e.usable]
    assert [e.source for e in down] == ["k8s_events"]
    assert f.missing_sources == ["k8s_events"]
    assert [t.tool for t in f.response.tool_errors] == ["k8s_events"]
    assert f.expected_outcome == ["provisional", "insufficient_evidence"]
    # the removed artifact is not relevant any more; the metrics one is, renumbered
    assert [_ev(f)[i].source for i in f.relevant_evidence_ids] == ["prometheus"]
    assert f.response.root_cause.confidence != "high"


def test_shift_window(tmp_path: Path) -> None:
    f = _mutate(tmp_path, "shift_window")
    assert {e.origin for e in f.response.evidence} == {"historical"}
    assert f.relevant_evidence_ids == []
    assert f.expected_outcome == ["provisional", "insufficient_evidence"]
    # the stale confident answer no longer passes the harness's evidence gates
    assert f.harness is not None and f.harness.status == "insufficient_evidence"


def test_mutated_fixtures_score_a_forced_family_as_a_failure(tmp_path: Path) -> None:
    out, _ = mutate_fixtures(write(tmp_path / "f.jsonl", [_known()]), ["add_contradictory"])
    p = tmp_path / "m.jsonl"
    p.write_bytes(b"".join(orjson.dumps(f.model_dump(mode="json", exclude_none=True)) + b"\n"
                           for f in out))
    s = score_fixtures(p)
    row = s.cases.row(0, named=True)
    if row["outcome"] == "diagnosed":  # the stale answer still asserts the familiar family
        assert row["forced_familiar"] and not row["calibrated"]
    m = {r["metric"]: r for r in s.metrics.iter_rows(named=True)}
    assert m["offline_novel_no_forced_family"]["denominator"] == 1


def test_not_applicable_is_reported_not_fatal(tmp_path: Path) -> None:
    plain = fx("k2", response=resp("oom_kill", evidence=[ev("E01", supports=["oom_kill"])]))
    out, skipped = mutate_fixtures(write(tmp_path / "f.jsonl", [_known(), plain]),
                                   ["remove_signature"])
    assert [f.case_id for f in out] == ["k1~remove_signature"]
    assert len(skipped) == 1 and ":2 [response.evidence]" in skipped[0]
    with pytest.raises(InputError, match="unknown mutation"):
        mutate_fixtures(write(tmp_path / "g.jsonl", [_known()]), ["nope"])


def test_every_mutation_round_trips_through_the_fixture_model(tmp_path: Path) -> None:
    out, skipped = mutate_fixtures(write(tmp_path / "f.jsonl", [_known()]))
    assert not skipped and sorted(f.case_id.split("~")[1] for f in out) == sorted(MUTATIONS)
    for f in out:
        assert parse_fixture(f.model_dump(mode="json")).case_id == f.case_id


# --- recorded bundles ------------------------------------------------------------------

CASE = "tikv-panic-restart-001"


@pytest.fixture()
def recorded(repo_root: Path) -> Path:
    return repo_root / "data" / "recorded" / "rec-thorough" / CASE


def _json(p: Path) -> dict:
    return orjson.loads(p.read_bytes())


def test_bundle_remove_signature(tmp_path: Path, recorded: Path, repo_root: Path) -> None:
    dst = mutate_bundle(recorded, "remove_signature", tmp_path,
                        registry=repo_root / "data" / "registry")
    logs = _json(dst / "evidences" / "logs.json")["entries"]
    assert logs and not any("tikv panic" in e["message"].lower() for e in logs)
    assert "corrupted raft log entry" not in (dst / "logs" / "tikv-2.log").read_text().lower()
    meta = _json(dst / MUTATION_FILE)
    assert meta["familiar_family"] == "storage_node_panic"
    assert meta["expected_outcome"] == ["provisional", "insufficient_evidence"]
    man = _json(dst / "manifest.json")
    import hashlib
    entry = next(f for f in man["files"] if f["path"] == "evidences/logs.json")
    assert entry["sha256"] == hashlib.sha256((dst / "evidences/logs.json").read_bytes()).hexdigest()
    # the source is untouched
    assert "TiKV panic" in (recorded / "logs" / "tikv-2.log").read_text()


def test_bundle_other_mutations(tmp_path: Path, recorded: Path, repo_root: Path) -> None:
    reg = repo_root / "data" / "registry"
    d = mutate_bundle(recorded, "omit_symptom", tmp_path / "a", registry=reg)
    assert not any(s["name"] == "tikv_restart_total" and s["labels"].get("instance") == "tikv-2"
                   for s in _json(d / "evidences" / "metrics.json")["series"])
    d = mutate_bundle(recorded, "add_contradictory", tmp_path / "b", registry=reg)
    assert _json(d / "evidences" / "events.json")["events"][-1]["reason"] == "Healthy"
    d = mutate_bundle(recorded, "remove_source", tmp_path / "c", registry=reg,
                      channel="events")
    assert not (d / "evidences" / "events.json").exists()
    rep = _json(d / "evidences" / "workspace_evidence_report.json")
    assert rep["channels"]["events"] == {"attempted": True, "status": "error", "count": 0}
    assert _json(d / "evidences" / "collection_errors.json")["errors"][-1]["channel"] == "events"
    assert _json(d / MUTATION_FILE)["missing_sources"] == ["events"]
    d = mutate_bundle(recorded, "shift_window", tmp_path / "d", registry=reg)
    before = _json(recorded / "evidences" / "events.json")["events"][0]["ts"]
    after = _json(d / "evidences" / "events.json")["events"][0]["ts"]
    assert before.startswith("2026-10-03T14:") and after.startswith("2026-10-03T13:")
    with pytest.raises(InputError, match="no evidences/nope.json"):
        mutate_bundle(recorded, "remove_source", tmp_path / "e", registry=reg, channel="nope")


def test_mutate_cli(tmp_path: Path, repo_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fixtures = repo_root / "data" / "offline" / "fixtures.jsonl"
    out = tmp_path / "m.jsonl"
    assert main(["offline", "mutate", "--fixtures", str(fixtures), "--out", str(out),
                 "-m", "shift_window", "--case", "known-001", "--case", "novel-001"]) == 0
    assert [f.case_id for f in read_fixtures(out).fixtures] == [
        "known-001~shift_window", "novel-001~shift_window"]
    run = repo_root / "data" / "recorded" / "rec-thorough"
    assert main(["offline", "mutate", "--bundles", str(run), "--out", str(tmp_path / "b"),
                 "-m", "add_contradictory", "--case", CASE,
                 "--registry", str(repo_root / "data" / "registry")]) == 0
    mutated = tmp_path / "b" / "rec-thorough~add_contradictory" / CASE
    assert _json(mutated / MUTATION_FILE)["run_id"] == "rec-thorough~add_contradictory"
    assert _json(mutated / "manifest.json")["run_id"] == "rec-thorough~add_contradictory"
    assert _json(run / CASE / "manifest.json")["run_id"] == "rec-thorough"   # untouched
    assert main(["offline", "mutate", "--out", str(out)]) == 3
    assert main(["offline", "mutate", "--fixtures", str(fixtures), "--out", str(out),
                 "--case", "nope"]) == 3


@pytest.mark.slow
def test_judging_mutated_bundles_keeps_the_source_run(tmp_path: Path, recorded: Path,
                                                      repo_root: Path) -> None:
    """The mutated copy is a run of its own (`<run>~<mutation>`), so the source run and every
    mutated run are judged side by side in one store; the judge reads the registry's rules,
    so a removed signature shows as missing critical evidence (docs/offline.md)."""
    import shutil

    import rcaeval.store as st
    from rcaeval.judge import judge_audit

    reg = repo_root / "data" / "registry"
    audits = tmp_path / "audits"
    shutil.copytree(recorded, audits / "rec-thorough" / CASE)
    assert main(["offline", "mutate", "--bundles", str(audits / "rec-thorough"),
                 "--out", str(audits), "-m", "remove_signature", "-m", "shift_window",
                 "--registry", str(reg)]) == 0
    for m in ("remove_signature", "shift_window"):
        d = audits / f"rec-thorough~{m}" / CASE
        assert _json(d / "manifest.json")["run_id"] == f"rec-thorough~{m}"
        assert _json(d / MUTATION_FILE)["run_id"] == f"rec-thorough~{m}"
    with st.connect(tmp_path / "s.duckdb") as store:
        judge_audit(store, audits, reg, write_files=False, workers=1)
        rows = dict(store.con.execute(
            "SELECT run_id, verdict || '/' || subtype FROM eval_judgment "
            "WHERE case_id = ? ORDER BY run_id", [CASE]).fetchall())
    assert rows == {"rec-thorough": "pass/diagnosis_pass",
                    "rec-thorough~remove_signature": "fail/critical_evidence_partial",
                    # a shifted window moves the evidence off the incident data: the sealed-
                    # evidence cross-check calls it forged (docs/judge.md "Sealed evidence")
                    "rec-thorough~shift_window": "fail/critical_evidence_fail"}
