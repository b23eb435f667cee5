"""`rcaeval label export` and `label import` on the judged sample: what a sheet shows, blind
sheets, the shipped labels, re-imports, relabel history, and bad sheets naming row and
field (exit 3)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from label_kit import SAMPLE_LABELS, SHEET_COLUMNS, cli, label, write_sheet

import rcaeval.label as lb
import rcaeval.store as st
from rcaeval.errors import InputError, NotFoundError


def test_export_shows_the_case_and_blind_hides_the_judge(sample_db: Path,
                                                         tmp_path: Path) -> None:
    out = tmp_path / "sheet.csv"
    proc = cli("label", "export", "rec-misdiagnosis", "--db", str(sample_db), "--out", str(out),
               "--cases", "disk-full-tikv-001,tikv-panic-restart-001")
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert [r["case_id"] for r in rows] == ["disk-full-tikv-001", "tikv-panic-restart-001"]
    disk = rows[0]
    assert disk["judge_verdict"] == "fail" and disk["truth_family"] == "disk_full"
    assert "write hotspot" in disk["answer"] and disk["prompt"].startswith("Writes on cluster")
    assert "diagnosis.identifies_disk_full=fail" in disk["checks"].splitlines()
    # every cited reference with what it resolves to
    assert "[metric M-tikv-engine-pending-compaction-bytes-tikv-0] ->" in disk["evidence"]
    assert all(disk[f] == "" for f in lb.FILL_FIELDS)
    blind = tmp_path / "blind.jsonl"
    assert cli("label", "export", "rec-misdiagnosis", "--db", str(sample_db), "--out",
               str(blind), "--blind").returncode == 0
    objs = [json.loads(line) for line in blind.read_text("utf-8").splitlines()]
    assert len(objs) == 13 and all("judge_verdict" not in o for o in objs)
    assert all("=" not in o["checks"] for o in objs) and objs[0]["blind"] == "yes"
    missing = cli("label", "export", "rec-misdiagnosis", "--db", str(sample_db), "--out",
                  str(out), "--cases", "no-such-case")
    assert missing.returncode == 6 and "no-such-case" in missing.stderr


def test_shipped_labels_import_and_reimport_is_unchanged(sample_db: Path) -> None:
    with st.connect(sample_db) as s:
        first = lb.import_sheet(s, SAMPLE_LABELS)
        again = lb.import_sheet(s, SAMPLE_LABELS)
    assert (first.added, first.unchanged, first.case_runs) == (80, 0, 80)
    assert (again.added, again.unchanged) == (0, 80)


def test_relabel_keeps_history_and_the_latest_counts(sample_db: Path, tmp_path: Path) -> None:
    case = ("rec-misdiagnosis", "disk-full-tikv-001")
    old = write_sheet(tmp_path / "a.csv", [label(*case, verdict="pass",
                                                 labelled_at="2026-11-01T00:00:00Z")])
    new = write_sheet(tmp_path / "b.csv", [label(*case, verdict="fail",
                                                 labelled_at="2026-11-02T00:00:00Z")])
    with st.connect(sample_db) as s:
        lb.import_sheet(s, new)
        lb.import_sheet(s, old)  # imported later, labelled earlier: history, not current
        a = lb.agreement(s)
        hist = lb.label_history(s, "rec-misdiagnosis")
    assert hist["verdict"].to_list() == ["pass", "fail"]  # oldest first
    assert hist["effective"].to_list() == [False, True]
    assert a.total("verdict")["agree"] == 1 and a.disagreements.is_empty()


def _import_error(db: Path, sheet: Path) -> InputError:
    with st.connect(db) as s, pytest.raises(InputError) as err:
        lb.import_sheet(s, sheet)
    with st.connect(db) as s:
        assert s.table("eval_label").is_empty()  # nothing written
    return err.value


def test_missing_columns_are_named(sample_db: Path, tmp_path: Path) -> None:
    sheet = write_sheet(tmp_path / "m.csv", [label("rec-thorough", "disk-full-tikv-001",
                                                   verdict="pass")],
                        columns=["run_id", "case_id", "verdict", "labeller", "notes"])
    err = _import_error(sample_db, sheet)
    assert err.field == "root_cause_correct" and err.line == 1
    assert "missing column(s) root_cause_correct, evidence_adequate, unsafe_advice, " \
           "overrides" in str(err)
    proc = cli("label", "import", str(sheet), "--db", str(sample_db))
    assert proc.returncode == 3 and "m.csv:1 [root_cause_correct]" in proc.stderr


def test_unknown_case_ids_and_bad_values_name_row_and_field(sample_db: Path,
                                                            tmp_path: Path) -> None:
    sheet = write_sheet(tmp_path / "u.csv", [
        label("rec-thorough", "disk-full-tikv-001", verdict="pass"),
        label("rec-thorough", "no-such-case", verdict="pass"),
        label("no-such-run", "disk-full-tikv-001", verdict="pass"),
        label("rec-thorough", "tikv-panic-restart-001", verdict="maybe"),
        label("rec-thorough", "mvcc-gc-buildup-001", overrides="diagnosis.nope=pass"),
        label("rec-thorough", "hot-write-autoinc-001", root_cause_correct="sure"),
        label("rec-thorough", "kill-query-chain-001", verdict="pass", labeller=""),
        label("rec-thorough", "cpu-hotspot-region-001",
              overrides="required_artifacts_present=pass"),
    ])
    err = _import_error(sample_db, sheet)
    text = str(err)
    assert err.line == 3 and err.field == "case_id" and text.startswith(
        f"{sheet}:3 [case_id]: 7 problems: row 3 [case_id]: case 'no-such-case' is not "
        "judged in run 'rec-thorough'")
    for part in ("row 4 [run_id]: run 'no-such-run' has no judged case",
                 "row 5 [verdict]: 'maybe' is not one of pass, fail, invalid",
                 "row 6 [overrides]: 'diagnosis.nope' is no bucket, check or detector",
                 "row 7 [root_cause_correct]: 'sure' is not yes or no",
                 "row 8 [labeller]: empty",
                 "row 9 [overrides]: check id 'required_artifacts_present' is in several "
                 "buckets"):
        assert part in text, part


def test_conflicting_labels_from_one_labeller(sample_db: Path, tmp_path: Path) -> None:
    case = ("rec-shallow", "disk-full-tikv-001")
    sheet = write_sheet(tmp_path / "c.jsonl", [])  # suffix check: JSONL written below
    sheet.write_text("\n".join(json.dumps({c: "" for c in SHEET_COLUMNS} | r) for r in [
        label(*case, verdict="fail", unsafe_advice=True),
        label(*case, verdict="fail", unsafe_advice=True),   # the same again: one label
        label(*case, verdict="pass"),
    ]) + "\n", encoding="utf-8")
    err = _import_error(sample_db, sheet)
    assert (err.line, err.field) == (3, "labeller")
    assert "'ann' already labelled rec-shallow/disk-full-tikv-001 differently in row 1" \
        in str(err)


def test_operator_reviews_join_by_analysis_hash(tmp_path: Path) -> None:
    import shutil

    from label_kit import REPO

    import rcaeval.release as rel
    from rcaeval.judge import judge_audit

    audits = tmp_path / "audits" / "rec-reviewed"
    shutil.copytree(REPO / "data" / "recorded" / "rec-thorough" / "disk-full-tikv-001",
                    audits / "disk-full-tikv-001")
    digest = "sha256:" + "ab" * 32
    (audits / "disk-full-tikv-001" / "evidences" / "rca_response.json").write_text(
        json.dumps({"analysis_hash": digest}), encoding="utf-8")
    review = {"review_id": "rev-1", "analysis_hash": digest, "reviewer": "oncall-7",
              "reviewed_at": "2026-11-03T03:45:28Z", "case_type": "known",
              "scores": {k: 1 for k in ("evidence_grounding", "diagnostic_reasoning",
                                        "investigation_plan", "uncertainty_calibration",
                                        "operational_usefulness", "safety",
                                        "tool_efficiency")},
              "hard_gate_assessment": "fail", "notes": "looked wrong to me"}
    (tmp_path / "reviews.jsonl").write_text(json.dumps(review) + "\n", encoding="utf-8")
    with st.connect(tmp_path / "r.duckdb") as s:
        judge_audit(s, tmp_path / "audits", REPO / "data" / "registry", write_files=False,
                    workers=1)
        rel.import_reviews(s, tmp_path / "reviews.jsonl")
        a = lb.agreement(s)
    assert a.labels == 1 and a.total("verdict")["n"] == 1
    d = a.disagreements.filter(a.disagreements["level"] == "verdict").to_dicts()
    assert d[0]["judge_value"] == "pass" and d[0]["human_value"] == "fail"
    assert d[0]["notes"] == "oncall-7: looked wrong to me"
    assert a.unsafe.to_dicts()[0]["labellers"] == "oncall-7"  # safety 1 <= 2


def test_export_of_an_unknown_run_is_not_found(sample_db: Path, tmp_path: Path) -> None:
    with st.connect(sample_db) as s, pytest.raises(NotFoundError):
        lb.export_sheet(s, "nope", tmp_path / "x.csv")
    with st.connect(sample_db) as s, pytest.raises(InputError, match="not '.txt'"):
        lb.export_sheet(s, "rec-thorough", tmp_path / "x.txt")
