"""`release compare`: the shadow package's artifact against the active (or staging) one of
the same window: side by side, exact McNemar over the paired incidents, a decision table."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from release_kit import capture, evidence, write_jsonl

import rcaeval.release as rel
from rcaeval.cli import main
from rcaeval.errors import InputError
from rcaeval.release._compare import compare
from rcaeval.release._sample import SampleSpec, write_sample, write_shadow
from rcaeval.stats import mcnemar_exact

WIN = "2026-11-01..2026-11-14"
TOOLS = [{"tool": "prom_query", "destructive": False, "probe_template_id": "p1"}]
ACTS = [{"knowledge_id": "k1", "admissible": True, "latency_seconds": 1.0}]


def _window(prefix: str, package: str, wrong: set[int], n_known: int = 200) -> list[dict]:
    """A window that passes every gate threshold (known captures, 20 abstentions, 20 novel,
    one TypeDB outage test), with the known incidents in ``wrong`` answered wrongly."""
    rows = []
    for i in range(n_known):
        fam = "disk_full" if i in wrong else "oom_kill"
        rows.append(capture(f"{prefix}k{i}", incident=f"inc-k{i}", family=fam, confidence="high",
                            relevant=["E01", "E02"], tools=TOOLS, activations=ACTS))
    for i in range(20):
        rows.append(capture(f"{prefix}a{i}", incident=f"inc-a{i}", family=None,
                            outcome="insufficient_evidence", case_type="tool_degraded",
                            expected_outcome="abstain", tools=TOOLS, activations=ACTS))
        rows.append(capture(f"{prefix}n{i}", incident=f"inc-n{i}", family=None,
                            outcome="provisional", novel=True, case_type="novel",
                            expected_family="clock_skew", hypotheses=["clock_skew", "gc_storm"],
                            ev=[evidence("E01", "prometheus")], rc_ids=[],
                            tools=TOOLS, activations=ACTS))
    rows.append(capture(f"{prefix}t", incident="inc-t", outage_test="typedb", tools=TOOLS,
                        activations=ACTS))
    for r in rows:
        r["knowledge"] = {"package_id": package, "activation_path": "runtime_snapshot"}
    return rows


def _artifact(tmp_path: Path, name: str, rows: list, window: str = WIN) -> Path:
    src = write_jsonl(tmp_path / f"{name}.jsonl", rows)
    out = tmp_path / f"{name}.json"
    assert main(["release", "metrics", "--captures", str(src), "--window", window,
                 "--out", str(out)]) == 0
    return out


def test_significantly_worse_shadow_is_blocked_although_it_passes_the_gate(
        tmp_path: Path, capsys) -> None:
    a = _artifact(tmp_path, "A", _window("a-", "kp-1", set()))
    s = _artifact(tmp_path, "S", _window("s-", "kp-2", set(range(8))))   # 193/201 = 0.96
    assert rel.check_gate(rel.load_artifact(s)).passed          # the shadow alone passes
    res = compare(rel.load_artifact(a), rel.load_artifact(s))
    row = {r.metric: r for r in res.rows}["known_top1"]
    assert (row.pairs, row.base_only, row.other_only) == (201, 8, 0)   # + the outage test
    assert row.p_value == mcnemar_exact(8, 0) and row.p_value < 0.05
    assert row.verdict == "worse" and row.blocks and res.decision == "block"
    assert res.packages == {"base": ["kp-1"], "other": ["kp-2"]}
    assert main(["release", "compare", "--active", str(a), "--shadow", str(s),
                 "--json-out", str(tmp_path / "C.json")]) == 4
    out = capsys.readouterr().out
    assert "WORSE" in out and "decision: BLOCK (known_top1)" in out
    doc = orjson.loads((tmp_path / "C.json").read_bytes())
    assert doc["decision"] == "block" and doc["blocking"] == ["known_top1"]


def test_a_few_discordant_pairs_are_no_difference(tmp_path: Path) -> None:
    a = _artifact(tmp_path, "A", _window("a-", "kp-1", {0, 1}))
    s = _artifact(tmp_path, "S", _window("s-", "kp-2", {2, 3, 4}))
    res = compare(rel.load_artifact(a), rel.load_artifact(s), base_role="staging")
    row = {r.metric: r for r in res.rows}["known_top1"]
    assert (row.base_only, row.other_only) == (3, 2) and row.verdict == "no difference"
    assert res.decision == "promote" and res.base_role == "staging"
    assert main(["release", "compare", "--staging", str(a), "--shadow", str(s)]) == 0
    # numbers only: no McNemar, the gate still decides
    unpaired = compare(rel.load_artifact(a), rel.load_artifact(s), paired=False)
    row = {r.metric: r for r in unpaired.rows}["known_top1"]
    assert row.p_value is None and row.verdict == "passes (unpaired)"


def test_shadow_failing_a_threshold_blocks(tmp_path: Path) -> None:
    a = _artifact(tmp_path, "A", _window("a-", "kp-1", set()))
    s = _artifact(tmp_path, "S", _window("s-", "kp-2", set(range(30))))   # 171/201 < 0.95
    res = compare(rel.load_artifact(a), rel.load_artifact(s))
    row = {r.metric: r for r in res.rows}["known_top1"]
    assert row.verdict == "fails gate" and not row.other_passes and row.base_passes


def test_refusals(tmp_path: Path, capsys) -> None:
    a = _artifact(tmp_path, "A", _window("a-", "kp-1", set(), n_known=20))
    other_window = _artifact(tmp_path, "W", _window("w-", "kp-2", set(), n_known=20),
                             window="2026-11-01..2026-11-07")
    with pytest.raises(InputError, match="different windows") as exc:
        compare(rel.load_artifact(a), rel.load_artifact(other_window))
    assert exc.value.field == "provenance.window"
    assert main(["release", "compare", "--active", str(a), "--shadow",
                 str(other_window)]) == 3
    assert main(["release", "compare", "--shadow", str(a)]) == 3          # no base
    assert main(["release", "compare", "--active", str(a), "--staging", str(a),
                 "--shadow", str(a)]) == 3
    capsys.readouterr()
    s = _artifact(tmp_path, "S", _window("s-", "kp-2", set(), n_known=20))
    (tmp_path / "S.jsonl").write_bytes((tmp_path / "S.jsonl").read_bytes() + b"\n")
    with pytest.raises(InputError, match="changed since it was measured") as exc:
        compare(rel.load_artifact(a), rel.load_artifact(s))
    assert exc.value.field == "provenance.inputs.captures"
    (tmp_path / "S.jsonl").unlink()           # gone: the paired tests are skipped, said so
    res = compare(rel.load_artifact(a), rel.load_artifact(s))
    assert res.notes and "paired tests skipped" in res.notes[0]
    assert all(r.p_value is None for r in res.rows)


def test_generated_active_and_shadow_windows(tmp_path: Path) -> None:
    """The sample generator's two windows (same incidents, the shadow package fixes most
    wrong known families and the groundless cause): the comparison promotes the shadow."""
    spec = SampleSpec(n=1500, seed=5)
    info = write_sample(tmp_path, spec)
    shadow = write_shadow(tmp_path, spec)
    a, s = tmp_path / "A.json", tmp_path / "S.json"
    assert main(["release", "metrics", "--captures", info["captures"], "--reviews",
                 info["reviews"], "--window", WIN, "--out", str(a)]) == 0
    assert main(["release", "metrics", "--captures", shadow["captures"], "--window", WIN,
                 "--out", str(s)]) == 0
    res = compare(rel.load_artifact(a), rel.load_artifact(s))
    rows = {r.metric: r for r in res.rows}
    assert rows["known_top1"].other > rows["known_top1"].base
    assert rows["known_top1"].other_only > rows["known_top1"].base_only
    assert res.packages == {"base": ["kp-2026.11.1"], "other": ["kp-2026.11.2"]}


@pytest.mark.slow
def test_bundled_sample_artifacts(repo_root: Path, tmp_path: Path, capsys) -> None:
    data = repo_root / "data" / "captures"
    a, s = tmp_path / "A.json", tmp_path / "S.json"
    assert main(["release", "metrics", "--captures", str(data), "--reviews",
                 str(data / "reviews.jsonl"), "--window", WIN, "--out", str(a)]) == 0
    assert main(["release", "metrics", "--captures", str(data / "shadow"), "--window", WIN,
                 "--out", str(s)]) == 0
    assert main(["release", "gate", str(a)]) == 4       # groundless_high_confidence = 1
    assert main(["release", "gate", str(s), "--require-package", "kp-2026.11.2"]) == 0
    capsys.readouterr()
    assert main(["release", "compare", "--active", str(a), "--shadow", str(s)]) == 0
    out = capsys.readouterr().out
    assert "decision: PROMOTE" in out
    res = compare(rel.load_artifact(a), rel.load_artifact(s))
    rows = {r.metric: r for r in res.rows}
    assert rows["known_top1"].verdict == "better" and rows["known_top1"].p_value < 0.001
    assert rows["novel_mechanism_recall_at_3"].verdict == "better"
    assert rows["groundless_high_confidence"].base == 1 and rows[
        "groundless_high_confidence"].other == 0
