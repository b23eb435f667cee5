"""`rcaeval run --results-json/--junit-xml`: the documented JSON document and a JUnit file a
JUnit parser reads (one testcase per case, failing checks in the failure message); a parse
error's file, line and byte shown in the run summary, `explain`, the detail report and the
results. Real CLI, real replay agent over a recording with a corrupted file."""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET

import orjson
from runner_kit import RECORDED

from rcaeval.cli import main

CASES = ["tikv-panic-restart-001", "disk-full-tikv-001"]
BROKEN = "tikv-panic-restart-001"


def test_results_json_junit_and_parse_errors(paths, make_registry, tmp_path, capsys):
    reg = make_registry(CASES)
    rec = tmp_path / "rec-mixed"
    shutil.copytree(RECORDED / "rec-thorough" / "disk-full-tikv-001",
                    rec / "disk-full-tikv-001")
    shutil.copytree(RECORDED / "rec-wrong_scope" / BROKEN, rec / BROKEN)
    (rec / BROKEN / "evidences" / "metrics.json").write_text('{"series": [\n  {"a": 1,,}\n')
    out_json, out_xml = tmp_path / "ci" / "results.json", tmp_path / "ci" / "junit.xml"
    code = main(["run", "--suite", "mini", "--registry", str(reg), "--agent",
                 f"replay:{rec}", "--db", str(paths["db"]), "--audit-root",
                 str(paths["audits"]), "--run-id", "r1", "--no-progress",
                 "--results-json", str(out_json), "--junit-xml", str(out_xml)])
    out = capsys.readouterr().out
    assert code == 0, out
    flat = " ".join(out.split())
    assert f"file problem: {BROKEN}: evidences/metrics.json not parsed" in flat
    assert "line 2 column 11 (byte 23)" in flat, flat[flat.find("file problem"):]

    doc = orjson.loads(out_json.read_bytes())
    assert doc["schema"] == "rcaeval.results/1"
    assert doc["run"]["id"] == "r1" and doc["run"]["repeat"] == 1
    assert doc["exit"] == {"code": 0, "reasons": []}
    s = doc["summary"]
    assert s["cases"] == 2 and s["case_runs"] == 2
    assert s["outcomes"] == {"pass": 1, "fail": 0, "invalid": 1, "errored": 0, "timed_out": 0}
    assert s["pass_rate"]["value"] == 0.5 and s["pass_rate"]["n"] == 2
    assert 0 < s["pass_rate"]["ci_low"] < 0.5 < s["pass_rate"]["ci_high"] < 1
    assert s["tokens"]["input_tokens"] > 0 and s["duration_s"] >= 0
    cases = {c["case_id"]: c for c in doc["cases"]}
    bad = cases[BROKEN]["attempts"][0]
    assert bad["verdict"] == "invalid" and bad["failing_checks"]
    assert {"bucket", "check_id", "reason"} <= set(bad["failing_checks"][0])
    (perr,) = bad["parse_errors"]
    assert (perr["file"], perr["status"], perr["line"], perr["byte"]) == \
        ("evidences/metrics.json", "parse_error", 2, 23)
    good = cases["disk-full-tikv-001"]
    assert good["pass_rate"] == 1.0 and good["attempts"][0]["tokens"]["output_tokens"] > 0
    assert good["attempts"][0]["started_at"].endswith("Z")

    root = ET.parse(out_xml).getroot()
    assert root.tag == "testsuites" and root.get("tests") == "2" and root.get("failures") == "1"
    tcs = {tc.get("name"): tc for tc in root.iter("testcase")}
    assert set(tcs) == set(CASES)
    failure = tcs[BROKEN].find("failure")
    assert failure is not None and failure.get("type") == "invalid"
    first = bad["failing_checks"][0]
    assert f"{first['bucket']}/{first['check_id']}" in failure.get("message")
    assert "evidences/metrics.json" in failure.text
    assert tcs["disk-full-tikv-001"].find("failure") is None
    assert float(tcs["disk-full-tikv-001"].get("time")) >= 0

    report = (paths["audits"] / "r1" / "report_detail.txt").read_text()
    assert "files not used:" in report and "(byte 23)" in report
    assert main(["explain", "r1", BROKEN, "--db", str(paths["db"])]) == 0
    explained = " ".join(capsys.readouterr().out.split())
    assert "files not used (1)" in explained and "line 2 column 11 (byte 23)" in explained


def test_an_errored_case_keeps_its_case_type(paths, make_registry, tmp_path, capsys):
    """An agent that cannot start errors every case before judging; case.yaml loaded, so
    the JUnit classname is <suite>.<case_type> and results JSON carries the case type."""
    reg = make_registry(CASES, jobs=1)
    out_json, out_xml = tmp_path / "ci" / "results.json", tmp_path / "ci" / "junit.xml"
    code = main(["run", "--suite", "mini", "--registry", str(reg), "--agent",
                 f"command:{tmp_path / 'no-such-agent'}", "--retries", "0",
                 "--db", str(paths["db"]), "--audit-root", str(paths["audits"]),
                 "--run-id", "e1", "--no-progress",
                 "--results-json", str(out_json), "--junit-xml", str(out_xml)])
    out = capsys.readouterr().out
    assert code == 7, out
    doc = orjson.loads(out_json.read_bytes())
    assert doc["summary"]["outcomes"]["errored"] == 2
    assert {c["case_id"]: c["case_type"] for c in doc["cases"]} == \
        {"tikv-panic-restart-001": "known", "disk-full-tikv-001": "known"}
    root = ET.parse(out_xml).getroot()
    assert sorted((tc.get("classname"), tc.get("name")) for tc in root.iter("testcase")) == \
        [("mini.known", "disk-full-tikv-001"), ("mini.known", "tikv-panic-restart-001")]
    assert all(tc.find("error") is not None for tc in root.iter("testcase"))
    report = (paths["audits"] / "e1" / "report.txt").read_text("utf-8")
    assert "tikv-panic-restart-001  known" in report


def test_lab_mitigation_beside_the_verdict(paths, make_registry, tmp_path):
    """A lab case run's mitigation row (eval_lab_mitigation, as `run --suite lab` records it)
    is the attempt's `lab` entry in the results document and `lab.*` properties of its JUnit
    testcase; the verdict is unchanged and a case without a row has `lab: null`."""
    from rcaeval._paths import read_query
    from rcaeval.report import junit_xml, run_results, write_results_json
    from rcaeval.runner import run_suite
    from rcaeval.store import connect

    reg = make_registry(CASES)
    store = connect(paths["db"])
    try:
        summary = run_suite(store, "mini", f"replay:{RECORDED / 'rec-thorough'}",
                            registry_root=reg, audit_root=paths["audits"], run_id="r1")
        store.con.execute(read_query("lab_mitigation/upsert.sql"), {
            "run_id": "r1", "case_id": "disk-full-tikv-001", "scenario_id": "lab-disk-full",
            "alert": "PostgresDiskFull", "alert_after_s": 12.5, "mitigation": "resolved",
            "time_to_diagnosis_s": 3.0, "time_to_mitigation_s": 20.5,
            "recovery_after_s": 8.0, "actions_applied": 1, "unsafe_attempts": 0,
            "actions": "[]", "error": None})
        doc = run_results(store, [summary])
    finally:
        store.close()
    out = orjson.loads(write_results_json(doc, tmp_path / "results.json").read_bytes())
    cases = {c["case_id"]: c["attempts"][0] for c in out["cases"]}
    lab = cases["disk-full-tikv-001"]["lab"]
    assert lab == {"alert": "PostgresDiskFull", "alert_after_s": 12.5,
                   "mitigation": "resolved", "time_to_diagnosis_s": 3.0,
                   "time_to_mitigation_s": 20.5, "actions_applied": 1, "unsafe_attempts": 0,
                   "error": None}
    assert cases["disk-full-tikv-001"]["verdict"] == "pass"
    assert cases[BROKEN]["lab"] is None
    tcs = {tc.get("name"): tc for tc in junit_xml(out).getroot().iter("testcase")}
    props = {p.get("name"): p.get("value")
             for p in tcs["disk-full-tikv-001"].iter("property")}
    assert props["lab.mitigation"] == "resolved" and props["lab.time_to_mitigation_s"] == "20.5"
    assert "lab.error" not in props and tcs[BROKEN].find("properties") is None
