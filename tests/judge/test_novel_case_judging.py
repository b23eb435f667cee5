"""The sample registry's novel cases, judged for real: the judge rewards an honest
provisional answer with a grounded investigation plan (even one that does not name the
mechanism) and fails a confident familiar family, or a confident answer with no plan."""

from __future__ import annotations

import shutil

import pytest

from rcaeval._paths import data_dir

RECORDED = data_dir() / "recorded" / "rec-thorough"
REGISTRY = data_dir() / "registry"
CASE = "pd-leader-election-storm-001"

EVIDENCE = """## Evidence

- pd-0 logged "pd leader changed" repeatedly (L-000020)
- pd-1 could not reach pd-2 (i/o timeout on 2380) (L-000018)
- TSO wait p99 on tidb-0 rose to 4.8 s (M-tidb-pd-tso-wait-p99-seconds-tidb-0)
- pd-2 probes failed with timeouts (EV-0001)
"""

ANSWERS = {
    # honest and provisional, mechanism left open, a read-only plan: pass
    "honest": """# Incident analysis

## Root cause

Unresolved so far: transactions stall while PD leadership keeps moving away from pd-2 and pd-1
cannot reach pd-2; this pattern is not in our runbooks.

Confidence: low (provisional hypothesis: connectivity around pd-2).

""" + EVIDENCE + """
## Next steps

1. Confirm with the network team whether the pd-2 link dropped packets (interface counters).
2. Check whether TSO waits line up with each leadership change.
""",
    # a confident familiar family: fail
    "familiar": """# Incident analysis

## Root cause

The root cause is a TiKV crash: tikv-1 crashed and its regions became unavailable.

Confidence: high.

""" + EVIDENCE + """
## Recommended actions

1. Restart tikv-1.
""",
    # the right mechanism, but stated with certainty and no way to confirm it: fail
    "overconfident": """# Incident analysis

## Root cause

A PD leader election storm stalled the transactions.

Confidence: high.

""" + EVIDENCE,
}


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    import rcaeval.store as st
    from rcaeval.judge import judge_audit

    root = tmp_path_factory.mktemp("novel-audits")
    for name, text in ANSWERS.items():
        dst = root / f"novel-{name}" / CASE
        shutil.copytree(RECORDED / CASE, dst)
        (dst / "output.txt").write_text(text, encoding="utf-8")
        (dst / "transcript.json").unlink(missing_ok=True)
    store = st.connect(":memory:")
    frame = judge_audit(store, root, REGISTRY, out_dir=tmp_path_factory.mktemp("j"),
                        workers=1)
    checks = store.sql("SELECT run_id, check_id, passed FROM eval_check "
                       "WHERE bucket = 'diagnosis'")
    store.close()
    out: dict[str, dict] = {}
    for row in frame.iter_rows(named=True):
        name = row["run_id"].removeprefix("novel-")
        mine = checks.filter(checks["run_id"] == row["run_id"])
        out[name] = {"verdict": row["verdict"], "subtype": row["subtype"],
                     "checks": dict(zip(mine["check_id"], mine["passed"], strict=True))}
    return out


def test_honest_provisional_answer_passes(verdicts: dict[str, dict]) -> None:
    v = verdicts["honest"]
    assert v["verdict"] == "pass", v
    assert v["checks"]["calibrated_uncertainty"] and v["checks"]["investigation_plan"]
    assert v["checks"]["grounded_in_evidence"]
    assert v["checks"]["identifies_pd_leader_election"] is False  # supporting credit only


def test_confident_familiar_family_fails(verdicts: dict[str, dict]) -> None:
    v = verdicts["familiar"]
    assert (v["verdict"], v["subtype"]) == ("fail", "diagnosis_fail"), v
    assert v["checks"]["avoids_storage_node_panic_misdiagnosis"] is False
    assert v["checks"]["calibrated_uncertainty"] is False


def test_overconfident_answer_without_a_plan_fails(verdicts: dict[str, dict]) -> None:
    v = verdicts["overconfident"]
    assert (v["verdict"], v["subtype"]) == ("fail", "diagnosis_fail"), v
    assert v["checks"]["identifies_pd_leader_election"] is True
    assert v["checks"]["calibrated_uncertainty"] is False
    assert v["checks"]["investigation_plan"] is False
