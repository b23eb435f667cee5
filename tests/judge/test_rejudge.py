"""Re-judge from the store (``rejudge_store``, ``rcaeval judge --from-store``): the SQL stages
run again over the raw rows already stored, against the registry's current rules, without
reading a single audit file (the audits are deleted before re-judging)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rcaeval._paths import data_dir

RECORDED = data_dir() / "recorded"
REGISTRY = data_dir() / "registry"
RUN = "rec-shallow"
CASE = "disk-full-tikv-001"

pytestmark = pytest.mark.skipif(
    not (RECORDED / RUN).is_dir() or not (REGISTRY / "cases").is_dir(),
    reason="sample data not generated yet (data/recorded, data/registry)",
)


def _files(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("judgment.json"))}


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    """One run judged from its audits into a file store; then the audits are removed."""
    import rcaeval.store as st
    from rcaeval.judge import judge_audit

    tmp = tmp_path_factory.mktemp("rejudge")
    audits = tmp / "audits" / RUN
    shutil.copytree(RECORDED / RUN, audits)
    db = tmp / "s.duckdb"
    store = st.connect(db)
    try:
        frame = judge_audit(store, audits, REGISTRY, out_dir=tmp / "first", workers=1,
                            chunk_size=5)
    finally:
        store.close()
    shutil.rmtree(tmp / "audits")
    return tmp, db, frame


@pytest.mark.slow
def test_rejudge_same_rules_gives_the_same_bytes(judged):
    import rcaeval.store as st
    from rcaeval.judge import rejudge_store

    tmp, db, frame = judged
    store = st.connect(db)
    try:
        before = store.con.execute(
            "SELECT * EXCLUDE (judged_at) FROM eval_judgment ORDER BY ALL").fetchall()
        again = rejudge_store(store, REGISTRY, out_dir=tmp / "again", chunk_size=4)
        after = store.con.execute(
            "SELECT * EXCLUDE (judged_at) FROM eval_judgment ORDER BY ALL").fetchall()
    finally:
        store.close()
    assert again.select(frame.columns).equals(frame)
    assert after == before
    first = _files(tmp / "first")
    assert len(first) == frame.height == 13
    assert _files(tmp / "again") == first


@pytest.mark.slow
def test_rejudge_applies_changed_rules(judged, tmp_path):
    import orjson

    import rcaeval.store as st
    from rcaeval.judge import rejudge_store

    tmp, db, _ = judged
    registry = tmp_path / "registry"
    shutil.copytree(REGISTRY, registry)
    spec = registry / "cases" / CASE / "judge.yaml"
    text = spec.read_text(encoding="utf-8")
    assert "      weight: 3\n" in text
    spec.write_text(text.replace("      weight: 3\n", "      weight: 7\n", 1), encoding="utf-8")
    store = st.connect(db)
    try:
        rejudge_store(store, registry, run_id=RUN, out_dir=tmp_path / "out")
        hashes = dict(store.con.execute(
            "SELECT case_id, rules_hash FROM case_meta WHERE run_id = $r", {"r": RUN}
        ).fetchall())
    finally:
        store.close()
    old = orjson.loads((tmp / "first" / RUN / CASE / "judgment.json").read_bytes())
    new = orjson.loads((tmp_path / "out" / RUN / CASE / "judgment.json").read_bytes())
    assert new["rules_hash"] == hashes[CASE] != old["rules_hash"]
    weights = {c["check_id"]: c["weight"] for b in new["buckets"] for c in b["checks"]}
    assert 7 in weights.values()
    other = "cpu-hotspot-region-001"
    assert (tmp_path / "out" / RUN / other / "judgment.json").read_bytes() == (
        tmp / "first" / RUN / other / "judgment.json").read_bytes()


@pytest.mark.slow
def test_cli_from_store(judged, tmp_path, capsys):
    from rcaeval.cli import main

    tmp, db, _ = judged
    code = main(["judge", "--from-store", "--registry", str(REGISTRY), "--db", str(db),
                 "--out", str(tmp_path / "out"), "--run-id", RUN])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "13 case run(s)" in out
    # known Top-1 beside the verdicts: the shallow answers name no family
    assert (f"{RUN}: known Top-1 0/4 = 0.000 [95% CI 0.000, 0.490] (answer names the "
            "ground-truth family)") in out
    assert _files(tmp_path / "out") == _files(tmp / "first")


def test_cli_from_store_usage_and_empty_store(tmp_path, capsys):
    from rcaeval.cli import main
    from rcaeval.errors import ExitCode

    assert main(["judge", "--db", str(tmp_path / "a.duckdb")]) == 2
    assert main(["judge", str(tmp_path), "--from-store",
                 "--db", str(tmp_path / "a.duckdb")]) == 2
    code = main(["judge", "--from-store", "--registry", str(REGISTRY),
                 "--db", str(tmp_path / "empty.duckdb")])
    assert code == ExitCode.NOT_FOUND
    assert "no extracted case runs in the store" in capsys.readouterr().err
