"""The shipped sample: determinism, structure, and that data/ never drifts from the generator."""

from __future__ import annotations

import csv
import hashlib
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path

import orjson
import pytest
import yaml

from rcaeval.synth import (
    BEHAVIOURS,
    EXPECTED,
    LANGUAGE_BEHAVIOURS,
    SAMPLE_SEED,
    generate_sample,
    load_scenarios,
)

MILESTONES = ("architecture_context.loaded", "guardrails.loaded", "diagnosis_run.initialized",
              "evidence_collection.completed", "summary.read", "final_answer.emitted")


def tree(root: Path, *subs: str) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for sub in subs:
        base = root / sub
        paths = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file())
        for p in paths:
            out[p.relative_to(root).as_posix()] = p.read_bytes()
    return out


SAMPLE_PARTS = ("registry/cases", "registry/suites/smoke.yaml", "recorded/EXPECTED.csv",
                *(f"recorded/rec-{b}" for b in (*BEHAVIOURS, *LANGUAGE_BEHAVIOURS)))


def cases(root: Path) -> list[Path]:
    return sorted(p for p in (root / "registry" / "cases").iterdir() if p.is_dir())


def test_same_seed_is_byte_identical(sample_root: Path, tmp_path: Path) -> None:
    generate_sample(tmp_path, seed=SAMPLE_SEED)
    a, b = tree(sample_root, "registry", "recorded"), tree(tmp_path, "registry", "recorded")
    assert sorted(a) == sorted(b)
    assert [k for k in a if a[k] != b[k]] == []


def test_other_seed_differs_and_regeneration_replaces_it(sample_root: Path, tmp_path: Path) -> None:
    generate_sample(tmp_path, seed=SAMPLE_SEED + 1)
    other = tree(tmp_path, "registry", "recorded")
    ref = tree(sample_root, "registry", "recorded")
    assert other != ref
    assert sum(other.get(k) != v for k, v in ref.items()) > 50
    (tmp_path / "recorded" / "rec-thorough" / "stale-case").mkdir()
    generate_sample(tmp_path, seed=SAMPLE_SEED)
    assert tree(tmp_path, "registry", "recorded") == ref


def test_shipped_data_matches_a_fresh_generation(sample_root: Path, repo_root: Path) -> None:
    shipped = repo_root / "data"
    if not (shipped / "registry" / "cases").is_dir():
        pytest.fail("data/registry is missing: run `rcaeval synth sample`")
    a, b = tree(sample_root, *SAMPLE_PARTS), tree(shipped, *SAMPLE_PARTS)
    drift = sorted(set(a) ^ set(b)) + sorted(k for k in a if k in b and a[k] != b[k])
    assert drift == [], f"data/ drifted (regenerate: `rcaeval synth sample`): {drift[:5]}"


def test_case_types_and_files(sample_root: Path) -> None:
    dirs = cases(sample_root)
    assert len(dirs) >= 12
    types = Counter(yaml.safe_load((d / "case.yaml").read_text())["case_type"] for d in dirs)
    assert set(types) == {"known", "compositional", "novel", "tool_degraded"}
    assert min(types.values()) >= 2
    for d in dirs:
        case = yaml.safe_load((d / "case.yaml").read_text())
        assert case["case_id"] == d.name
        for key in ("ground_truth", "judge", "root_cause", "expected", "detectors"):
            assert key not in case
        for f in ("judge.yaml", "expected.md", "incident/topology.json", "incident/ticket.json",
                  "incident/component_health.json"):
            assert (d / f).is_file(), f"{d.name}: {f}"
        assert list((d / "incident" / "logs").glob("*.log"))
        down = []
        if case["case_type"] == "tool_degraded":
            down = orjson.loads((d / "incident" / "tool_status.json").read_bytes())["unavailable"]
            assert down
        for ch, f in (("metrics", "metrics.json"), ("queries", "slow_queries.json"),
                      ("events", "events.json")):
            assert (d / "incident" / f).is_file() == (ch not in down), f"{d.name}: {f}"
        first = (d / "incident" / "logs").glob("*.log").__next__().read_text().splitlines()[0]
        ts, level, comp = first.split(" ", 3)[:3]
        datetime.fromisoformat(ts)
        assert level in {"INFO", "WARN", "ERROR", "FATAL", "DEBUG"} and comp.startswith("[")
    suite = yaml.safe_load((sample_root / "registry/suites/smoke.yaml").read_text())
    assert [c["id"] for c in suite["cases"]] == [d.name for d in dirs]


def test_every_critical_evidence_file_is_written_by_a_tool(sample_root: Path) -> None:
    """What a case's critical evidence reads is reachable through the incident tools
    (rcaeval.tools.TOOL_OUTPUTS), and the incident data holds what those tools serve: the
    gate checks an alert check reads are in incident/alerts.json."""
    from rcaeval.tools import tools_of_channel, tools_writing

    for d in cases(sample_root):
        judge = yaml.safe_load((d / "judge.yaml").read_text())
        for chk in judge["judge"]["critical_evidence"]["checks"]:
            for cond in chk.get("any_of", []) + chk.get("all_of", []):
                src = cond.get("file") or (cond["source"] if cond.get("source") not in (
                    None, "logs") else None) or ("metrics.json" if "series" in cond else None)
                tools = tools_writing(src) if src else tools_of_channel("logs")
                assert tools, f"{d.name}: {chk['id']} reads {src}, which no tool writes"
                if src != "collection_errors.json":  # else written when a channel is down
                    assert any(any((d / "incident").glob(f)) for row in tools
                               for f in row.incident), (d.name, chk["id"])
                if src == "gate_checks.json":
                    served = orjson.loads((d / "incident/alerts.json").read_bytes())["checks"]
                    text = " ".join(c["detail"] for c in served).lower()
                    assert any(n.lower() in text for n in cond["needles"]), (d.name, chk["id"])


def test_registry_validates(sample_root: Path) -> None:
    registry = pytest.importorskip("rcaeval.registry")
    problems = registry.validate_registry(sample_root / "registry")
    assert [p.render() for p in problems] == []


def test_all_four_evidence_methods_and_expect_false_are_used(sample_root: Path) -> None:
    methods: Counter[str] = Counter()
    with_path = 0
    for d in cases(sample_root):
        judge = yaml.safe_load((d / "judge.yaml").read_text())
        for chk in judge["judge"]["critical_evidence"]["checks"]:
            for cond in chk.get("any_of", []) + chk.get("all_of", []):
                methods[cond["method"]] += 1
                with_path += cond["method"] == "json_text_contains_any" and "path" in cond
        hard = judge["judge"]["diagnosis"]["hard_checks"]
        assert any(c.get("expect") is False for h in hard for c in h["all_of"])
        assert any(c.get("expect", True) for h in hard for c in h["all_of"])
    assert set(methods) == {"keyword_any", "json_list_nonempty", "json_text_contains_any",
                            "numeric_series_any_gt"}
    assert with_path == methods["json_text_contains_any"]


def _collected_ids(bundle: Path) -> dict[str, set[str]]:
    ev = bundle / "evidences"

    def load(name: str, key: str) -> list[dict]:
        p = ev / name
        return orjson.loads(p.read_bytes()).get(key, []) if p.is_file() else []

    return {"metric": {s["id"] for s in load("metrics.json", "series")},
            "query": {q["id"] for q in load("queries.json", "queries")},
            "log": {e["id"] for e in load("logs.json", "entries")},
            "event": {e["id"] for e in load("events.json", "events")}}


def _refs(bundle: Path) -> list[tuple[str, str]]:
    patch = orjson.loads((bundle / "analysis_patch.json").read_bytes())
    return [(r["type"], r["id"]) for it in patch["items"] for r in it["refs"]]


def test_recorded_runs_follow_the_bundle_contract(sample_root: Path) -> None:
    ids = [d.name for d in cases(sample_root)]
    zh = [sc.case_id for sc in load_scenarios() if sc.answer_zh is not None]
    assert zh, "the sample records at least one Chinese answer"
    for behaviour in (*BEHAVIOURS, *LANGUAGE_BEHAVIOURS):
        for case_id in ids if behaviour in BEHAVIOURS else zh:
            b = sample_root / "recorded" / f"rec-{behaviour}" / case_id
            man = orjson.loads((b / "manifest.json").read_bytes())
            assert man["run_id"] == f"rec-{behaviour}" and man["case_id"] == case_id
            assert man["agent"]["behaviour"] == behaviour
            if behaviour == "crashed":
                assert man["status"] == "crashed"
                assert [p.name for p in b.rglob("*") if p.is_file()] == ["manifest.json"]
                continue
            assert man["status"] == "completed"
            for f in man["files"]:
                data = (b / f["path"]).read_bytes()
                assert hashlib.sha256(data).hexdigest() == f["sha256"] and len(data) == f["size"]
            listed = {f["path"] for f in man["files"]} | {"manifest.json"}
            assert listed == {p.relative_to(b).as_posix() for p in b.rglob("*") if p.is_file()}
            for f in ("output.txt", "analysis_patch.json", ".opencode/telemetry.log",
                      "evidences/workspace_evidence_report.json", "evidences/metrics.json",
                      "evidences/queries.json", "evidences/logs.json",
                      "evidences/collection_errors.json", "evidences/gate_checks.json",
                      "evidences/evidence_summary_for_agent.txt",
                      "evidences/evidence_summary_for_agent.json"):
                assert (b / f).is_file(), f"{behaviour}/{case_id}: {f}"
            events = [orjson.loads(x)["event"] for x in
                      (b / ".opencode/telemetry.log").read_bytes().splitlines()]
            assert set(MILESTONES) <= set(events), f"{behaviour}/{case_id}"


def test_thorough_refs_resolve_and_fabricated_do_not(sample_root: Path) -> None:
    for d in cases(sample_root):
        good = sample_root / "recorded" / "rec-thorough" / d.name
        ids = _collected_ids(good)
        refs = _refs(good)
        assert refs and all(rid in ids[t] for t, rid in refs), d.name
        output = (good / "output.txt").read_text()
        assert all(rid in output for _, rid in refs)
        for section in ("## Root cause", "## Evidence", "## Ruled out", "## Recommended actions"):
            assert section in output
        bad = sample_root / "recorded" / "rec-fabricated_refs" / d.name
        bad_ids = _collected_ids(bad)
        bad_refs = _refs(bad)
        assert ("log", "../../etc/passwd") in bad_refs
        assert any(t == "metric" and r not in bad_ids["metric"] for t, r in bad_refs)
        assert any(t == "query" and r not in bad_ids["query"] for t, r in bad_refs)
        mis = sample_root / "recorded" / "rec-misdiagnosis" / d.name
        assert all(rid in _collected_ids(mis)[t] for t, rid in _refs(mis))


def test_shallow_collects_one_channel(sample_root: Path) -> None:
    for d in cases(sample_root):
        b = sample_root / "recorded" / "rec-shallow" / d.name
        report = orjson.loads((b / "evidences/workspace_evidence_report.json").read_bytes())
        attempted = [c for c, v in report["channels"].items() if v["attempted"]]
        assert len(attempted) == 1
        assert not (b / "evidences/events.json").exists()
        assert not (b / "evidences/component_health.json").exists()


def test_wrong_scope_alternates_cluster_and_window(sample_root: Path) -> None:
    kinds = Counter()
    for d in cases(sample_root):
        case = yaml.safe_load((d / "case.yaml").read_text())
        b = sample_root / "recorded" / "rec-wrong_scope" / d.name
        meta = orjson.loads((b / "evidences/workspace_evidence_report.json").read_bytes())
        meta = meta["metadata"]
        if meta["cluster_id"] != case["environment"]["cluster_id"]:
            kinds["cluster"] += 1
            continue
        start = datetime.fromisoformat(meta["time_window"]["start"])
        case_start = datetime.fromisoformat(case["time_window"]["start"])
        assert start - case_start > timedelta(seconds=case["time_window"]["tolerance_s"])
        kinds["window"] += 1
    assert kinds["cluster"] >= 2 and kinds["window"] >= 2


def test_thorough_scope_matches_case(sample_root: Path) -> None:
    for d in cases(sample_root):
        case = yaml.safe_load((d / "case.yaml").read_text())
        b = sample_root / "recorded" / "rec-thorough" / d.name
        meta = orjson.loads((b / "evidences/workspace_evidence_report.json").read_bytes())
        assert meta["metadata"]["cluster_id"] == case["environment"]["cluster_id"]
        assert meta["metadata"]["time_window"]["start"] == case["time_window"]["start"]


def test_tool_degraded_thorough_reports_the_outage(sample_root: Path) -> None:
    for sc in load_scenarios():
        if sc.case_type != "tool_degraded":
            continue
        b = sample_root / "recorded" / "rec-thorough" / sc.case_id
        errors = orjson.loads((b / "evidences/collection_errors.json").read_bytes())["errors"]
        assert sorted(e["channel"] for e in errors) == sorted(sc.unavailable)
        report = orjson.loads((b / "evidences/workspace_evidence_report.json").read_bytes())
        for ch in sc.unavailable:
            assert report["channels"][ch] == {"attempted": True, "status": "error", "count": 0}
        if "events" in sc.unavailable:
            assert orjson.loads((b / "evidences/events.json").read_bytes()) == {"events": []}
        assert "## Missing data" in (b / "output.txt").read_text()


def test_expected_csv(sample_root: Path) -> None:
    with (sample_root / "recorded" / "EXPECTED.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    zh = [sc.case_id for sc in load_scenarios() if sc.answer_zh is not None]
    assert len(rows) == len(cases(sample_root)) * len(BEHAVIOURS) + len(zh)
    assert {r["case_id"] for r in rows if r["behaviour"] == "thorough_zh"} == set(zh)
    for row in rows:
        assert row["run_id"] == f"rec-{row['behaviour']}"
        assert (row["expected_verdict"], row["expected_subtype_hint"]) == EXPECTED[row["behaviour"]]
        assert (sample_root / "recorded" / row["run_id"] / row["case_id"]).is_dir()
