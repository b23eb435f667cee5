"""Layer (c): judging the recorded sample runs (data/recorded) against the sample registry
(data/registry) gives exactly the verdicts and subtypes of data/recorded/EXPECTED.csv, and
re-judging is byte-identical."""

from __future__ import annotations

import csv
import difflib
import re
from pathlib import Path

import pytest

from rcaeval._paths import data_dir
from rcaeval.judge import JUDGE_VERSION

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
    runs = con.execute("SELECT DISTINCT source, status, started_at IS NULL, suite_id, "
                       "agent_spec, judge_version FROM eval_runs").fetchall()
    assert runs == [("judge", "completed", True, None, None, JUDGE_VERSION)]
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


# --- golden judgment packets --------------------------------------------------------------
# tests/golden/judgments/<run_id>/<case_id>.json holds every judgment.json of the sample, as
# the judge writes it, with the fields that change without the judgment changing replaced by a
# placeholder. A change to a verdict, reason, evidence excerpt, fact or score shows as a diff
# of these files; regenerate them with `pytest tests/judge/test_e2e_sample.py --update-golden`
# (tests/golden/README.md) and review the diff before committing it.

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "judgments"

# The packet's volatile fields: the package version and the digest of the judge's SQL text
# (a refactor of the SQL that judges the same changes the digest, not the judgment).
_VOLATILE = ("judge_version", "judge_sql_digest")
_NAMES = "|".join(_VOLATILE)
_VOLATILE_RE = re.compile(rf'^(  "({_NAMES})": )"[^"\n]*"(,?)$', re.MULTILINE)


def normalise_packet(text: str) -> str:
    """The packet text with each volatile top-level field's value replaced by ``<name>``;
    every other byte is kept, so equal normalised text means a byte-identical judgment."""
    out, n = _VOLATILE_RE.subn(lambda m: f'{m.group(1)}"<{m.group(2)}>"{m.group(3)}', text)
    if n != len(_VOLATILE):
        raise AssertionError(f"packet has {n} of the volatile fields {_VOLATILE}: the packet "
                             "layout changed; update _VOLATILE in this test")
    return out


def test_normalise_packet_keeps_everything_but_the_volatile_fields():
    text = ('{\n  "judgment_version": 1,\n  "judge_version": "9.9.9",\n'
            '  "judge_sql_digest": "abc",\n  "reason": "judge_version \\"x\\""\n}\n')
    assert normalise_packet(text) == (
        '{\n  "judgment_version": 1,\n  "judge_version": "<judge_version>",\n'
        '  "judge_sql_digest": "<judge_sql_digest>",\n  "reason": "judge_version \\"x\\""\n}\n')
    with pytest.raises(AssertionError, match="volatile"):
        normalise_packet('{\n  "judge_version": "1"\n}\n')


def test_golden_judgment_packets(judged, update_golden):
    _, frame, out = judged
    got = {}
    for row in frame.iter_rows(named=True):
        rel = f"{row['run_id']}/{row['case_id']}"
        got[f"{rel}.json"] = normalise_packet(
            (out / rel / "judgment.json").read_text(encoding="utf-8"))
    have = {p.relative_to(GOLDEN).as_posix(): p for p in sorted(GOLDEN.glob("*/*.json"))}
    if update_golden:
        for rel in set(have) - set(got):
            have[rel].unlink()
        for rel, text in got.items():
            path = GOLDEN / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")
        return
    assert set(got) == set(have), (
        f"judged but no golden file: {sorted(set(got) - set(have))}; golden file but not "
        f"judged: {sorted(set(have) - set(got))} (regenerate: --update-golden)")
    changed = [rel for rel in sorted(got) if got[rel] != have[rel].read_text(encoding="utf-8")]
    if changed:
        first = changed[0]
        diff = "".join(difflib.unified_diff(
            have[first].read_text(encoding="utf-8").splitlines(keepends=True),
            got[first].splitlines(keepends=True),
            f"golden/judgments/{first}", f"judged/{first}", n=2))
        pytest.fail(f"{len(changed)} judgment packet(s) differ from tests/golden/judgments "
                    f"(if intended, regenerate with --update-golden and review the diff): "
                    f"{changed}\n{diff[:6000]}")
