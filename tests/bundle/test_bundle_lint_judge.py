"""`rcaeval bundle lint` predicts what the judge will make of each broken rule: judge every
broken bundle of tests/bundle/test_bundle_lint.py with the real judge and check the
prediction - the verdict subtype for an ``-> invalid (<subtype>)`` consequence, the bucket's
status for an ``-> fail (<bucket>_<status>)`` one (a clean bundle's own verdict may take
precedence over the latter)."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest
from test_bundle_lint import BREAKS, CASE, good_bundle

from rcaeval.bundle import RULES

REGISTRY = CASE.parents[1]
PREDICTED = re.compile(r"-> (invalid|fail) \(([a-z_ /]+)\)$")


def _predictions() -> dict[str, tuple[str, str]]:
    out = {}
    for rule, (_, consequence) in RULES.items():
        m = PREDICTED.search(consequence.split(";")[0])
        if m and rule in BREAKS:
            out[rule] = (m.group(1), m.group(2))
    return out


def test_the_predictions_cover_the_verdict_changing_rules():
    assert {"milestone", "manifest_present", "cluster_id", "core_file", "no_channel_observed",
            "channel_observed", "patch_present", "final_answer"} <= set(_predictions())


@pytest.mark.slow
def test_lint_consequences_match_the_judge(tmp_path: Path):
    import rcaeval.store as st
    from rcaeval.judge import judge_audit

    audit = tmp_path / "audit"
    predictions = _predictions()
    for rule in ["good", *predictions]:
        root = good_bundle(audit / f"r-{rule}" / CASE.name)
        (root / "manifest.json").write_bytes(orjson.dumps({
            "run_id": f"r-{rule}", "case_id": CASE.name, "status": "completed"}))
        if rule != "good":
            BREAKS[rule](root)
    store = st.connect(":memory:")
    frame = judge_audit(store, audit, REGISTRY, out_dir=tmp_path / "out", workers=1)
    verdicts = {r["run_id"]: (r["verdict"], r["subtype"]) for r in frame.iter_rows(named=True)}
    df = store.sql("SELECT run_id, bucket, status FROM eval_bucket")
    buckets = {(r, b): s for r, b, s in df.iter_rows()}
    assert verdicts["r-good"][0] != "invalid", verdicts["r-good"]
    for rule, (verdict, subtype) in predictions.items():
        got = verdicts[f"r-{rule}"]
        if verdict == "invalid":
            assert got[0] == "invalid" and got[1] in subtype.split(" / "), (rule, got)
        else:
            bucket, status = subtype.rsplit("_", 1)
            assert buckets[(f"r-{rule}", bucket)] == status, (rule, got)
