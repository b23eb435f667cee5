"""Layer (c): judging the recorded sample runs (data/recorded) against the sample registry
(data/registry) gives exactly the verdicts and subtypes of data/recorded/EXPECTED.csv, and
re-judging is byte-identical."""

from __future__ import annotations

import csv

import pytest

from rcaeval._paths import data_dir

RECORDED = data_dir() / "recorded"
REGISTRY = data_dir() / "registry"

pytestmark = pytest.mark.skipif(
    not (RECORDED / "EXPECTED.csv").is_file() or not (REGISTRY / "cases").is_dir(),
    reason="sample data not generated yet (data/recorded/EXPECTED.csv, data/registry)",
)


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    import rcaeval.store as st
    from rcaeval.judge import judge_audit

    out = tmp_path_factory.mktemp("judgments")
    store = st.connect(":memory:")
    frame = judge_audit(store, RECORDED, REGISTRY, out_dir=out, workers=1)
    yield store, frame, out
    store.close()


def _expected():
    with (RECORDED / "EXPECTED.csv").open(encoding="utf-8") as fh:
        return {(r["run_id"], r["case_id"]): r for r in csv.DictReader(fh)}


def test_verdicts_match_expected(judged):
    _, frame, _ = judged
    expected = _expected()
    got = {(r["run_id"], r["case_id"]): r for r in frame.iter_rows(named=True)}
    assert set(got) == set(expected)
    wrong = [
        (key, got[key]["verdict"], got[key]["subtype"], exp["expected_verdict"],
         exp.get("expected_subtype_hint"), got[key]["reason"])
        for key, exp in expected.items()
        if got[key]["verdict"] != exp["expected_verdict"]
        or (exp.get("expected_subtype_hint") and
            got[key]["subtype"] != exp["expected_subtype_hint"])
    ]
    assert not wrong, wrong


def test_store_rows_and_packets(judged):
    store, frame, out = judged
    con = store.con
    n = con.execute("SELECT count(*) FROM eval_judgment").fetchall()[0][0]
    assert n == frame.height
    assert con.execute("SELECT count(*) FROM eval_bucket").fetchall()[0][0] == 7 * n
    assert con.execute("SELECT count(*) FROM eval_runs WHERE source = 'judge'").fetchall()[0][0]
    row = frame.row(0, named=True)
    packet = (out / row["run_id"] / row["case_id"] / "judgment.json").read_bytes()
    stored = con.execute("SELECT judgment_json FROM eval_judgment WHERE run_id = $r AND "
                         "case_id = $c", {"r": row["run_id"], "c": row["case_id"]}).fetchall()
    assert stored[0][0].encode() == packet


@pytest.mark.slow
def test_rejudge_is_byte_identical(judged, tmp_path):
    import rcaeval.store as st
    from rcaeval.judge import judge_audit

    _, frame, out = judged
    store = st.connect(tmp_path / "again.duckdb")
    try:
        judge_audit(store, RECORDED, REGISTRY, out_dir=tmp_path / "again", workers=1)
    finally:
        store.close()
    for row in frame.iter_rows(named=True):
        rel = f"{row['run_id']}/{row['case_id']}/judgment.json"
        assert (tmp_path / "again" / rel).read_bytes() == (out / rel).read_bytes(), rel


def test_known_top1_beside_verdicts(judged):
    """suite_known_top1: the registry's ground-truth family against the family the answer
    names (its asserts_<family> detectors), per recorded behaviour."""
    from rcaeval.metrics import compute_metrics

    store, _, _ = judged
    got = {}
    for run in ("rec-thorough", "rec-misdiagnosis", "rec-shallow", "rec-crashed"):
        m = compute_metrics(store.con, ["suite_known_top1"], {"run_id": run}).row(0, named=True)
        got[run] = (int(m["numerator"]), m["denominator"])
    assert got == {"rec-thorough": (4, 4), "rec-misdiagnosis": (0, 4), "rec-shallow": (0, 4),
                   "rec-crashed": (0, 4)}
