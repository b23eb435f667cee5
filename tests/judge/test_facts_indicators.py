"""The infra/hotspot indicator facts (queries/facts/indicators.sql: gate_checks.json and the
log statistics) and the report's analysis-block facts (queries/facts/analysis.sql), over raw
rows inserted directly, and a case check that names them."""

from __future__ import annotations

from judge_kit import CASE, RUN, check, fact, healthy_rows, judge_rows, judge_spec, verdict

REPORT = "evidences/workspace_evidence_report.json"
GATES = "evidences/gate_checks.json"


def _js(file, path, type_, text=None, num=None, length=None, run_id=RUN):
    return {"run_id": run_id, "case_id": CASE, "file": file, "path": path, "type": type_,
            "value_text": text, "value_num": num, "length": length}


def _gates(*checks, run_id=RUN):
    rows = [_js(GATES, "$.checks", "array", length=len(checks), run_id=run_id)]
    for i, (name, status, detail) in enumerate(checks):
        rows += [_js(GATES, f"$.checks[{i}].id", "string", f"G-{i}", run_id=run_id),
                 _js(GATES, f"$.checks[{i}].name", "string", name, run_id=run_id),
                 _js(GATES, f"$.checks[{i}].status", "string", status, run_id=run_id),
                 _js(GATES, f"$.checks[{i}].detail", "string", detail, run_id=run_id)]
    return rows


def _two_runs(rows_run1_extra, rows_run2_extra):
    rows = healthy_rows()
    for table, items in healthy_rows("run-2").items():
        rows[table] = rows[table] + items
    rows["raw_json"] += rows_run1_extra + rows_run2_extra
    return rows


def test_infra_and_hotspot_gates_fail_or_warn(db):
    rows = _two_runs(
        _gates(("infra_healthy", "warn", "tidb-1 restarted once (OOMKilled)"),
               ("hotspot", "FAIL", "hot read region 40512 on store 2")),
        _gates(("infra_healthy", "pass", "all pods running"),
               ("hotspot", "pass", "no hot region"), ("scrape_health", "pass", "ok"),
               run_id="run-2"))
    frames = judge_rows(db, rows)
    f = fact(frames, "signal.infra_unhealthy")
    assert f["value"] is True and f["evidence_file"] == GATES
    assert f["evidence_path"] == "$.checks[0]"
    assert f["detail"] == ("infrastructure gate infra_healthy is warn: "
                           "tidb-1 restarted once (OOMKilled)")
    f = fact(frames, "signal.hotspot_present")
    assert (f["value"], f["evidence_path"], f["evidence_excerpt"]) == (
        True, "$.checks[1]", "hot read region 40512 on store 2")
    # status is read case-insensitively; a warn is not a fired alert
    f = fact(frames, "signal.alert_firing")
    assert f["value"] is True and f["evidence_path"] == "$.checks[1]"
    for name in ("signal.infra_unhealthy", "signal.hotspot_present", "signal.alert_firing"):
        f = fact(frames, name, "run-2")
        assert f["value"] is False and f["detail"].startswith("not observed: ")


def test_a_failing_infra_gate_outranks_a_warning_and_other_names_are_alerts_only(db):
    rows = _two_runs(
        _gates(("infra_healthy", "warn", "packet drops on pd-2"),
               ("infra_disk", "fail", "tikv-0 data volume 99.9% used")),
        _gates(("scrape_health", "fail", "prometheus-k8s-1 missed 6 consecutive scrapes"),
               run_id="run-2"))
    frames = judge_rows(db, rows)
    f = fact(frames, "signal.infra_unhealthy")
    assert f["evidence_path"] == "$.checks[1]" and "is fail" in f["detail"]
    assert fact(frames, "signal.infra_unhealthy", "run-2")["value"] is False
    assert fact(frames, "signal.hotspot_present", "run-2")["value"] is False
    f = fact(frames, "signal.alert_firing", "run-2")
    assert f["value"] is True and f["detail"].startswith("gate scrape_health is fail")


def test_error_logs_from_log_stats_or_from_a_log_line(db):
    rows = healthy_rows()
    for table, items in healthy_rows("run-2").items():
        rows[table] = rows[table] + items
    for table, items in healthy_rows("run-3").items():
        rows[table] = rows[table] + items
    # healthy_rows' FATAL line would decide every run: keep it in run-3 only
    rows["raw_log_line"] = [r for r in rows["raw_log_line"]
                            if r["level"] != "FATAL" or r["run_id"] == "run-3"]
    rows["raw_json"] += [
        _js("evidences/logs.json", "$.stats.by_level.INFO", "number", "120", 120.0),
        _js("evidences/logs.json", "$.stats.by_level.ERROR", "number", "12", 12.0),
        # a by_level outside stats (logs.json) or a zero count says nothing
        _js("evidences/logs.json", "$.by_level.ERROR", "number", "5", 5.0, run_id="run-2"),
        _js("evidences/log_stats.json", "$.by_level.FATAL", "number", "0", 0.0, run_id="run-2"),
        _js("evidences/log_stats.json", "$.by_level.WARN", "number", "3", 3.0, run_id="run-2"),
    ]
    frames = judge_rows(db, rows)
    f = fact(frames, "signal.error_logs_present")
    assert f["value"] is True and f["evidence_path"] == "$.stats.by_level.ERROR"
    assert f["detail"] == "log statistics count 12 ERROR line(s) (evidences/logs.json)"
    assert fact(frames, "signal.error_logs_present", "run-2")["value"] is False
    f = fact(frames, "signal.error_logs_present", "run-3")
    assert f["value"] is True and f["evidence_line"] == 1 and f["detail"].startswith("FATAL")


def test_a_separate_log_stats_file_counts(db):
    rows = healthy_rows()
    rows["raw_log_line"] = [r for r in rows["raw_log_line"] if r["level"] != "FATAL"]
    rows["raw_json"].append(_js("evidences/log_stats.json", "$.by_level.critical", "number",
                                "2", 2.0))
    f = fact(judge_rows(db, rows), "signal.error_logs_present")
    assert f["value"] is True and f["evidence_file"] == "evidences/log_stats.json"
    assert "2 CRITICAL" in f["detail"]


def _report_analysis(root_cause, findings, run_id=RUN):
    rows = [_js(REPORT, "$.analysis", "object", length=2, run_id=run_id)]
    if root_cause is not None:
        rows.append(_js(REPORT, "$.analysis.root_cause", "string", root_cause, run_id=run_id))
    rows.append(_js(REPORT, "$.analysis.key_findings", "array", length=len(findings),
                    run_id=run_id))
    rows += [_js(REPORT, f"$.analysis.key_findings[{i}]", "string", t, run_id=run_id)
             for i, t in enumerate(findings)]
    return rows


def test_report_findings_are_grounded_when_patch_items_claim_and_cite_them(db):
    rows = healthy_rows()
    for run in ("run-2", "run-3"):
        for table, items in healthy_rows(run).items():
            rows[table] = rows[table] + items
    # healthy_rows' patch item A1 claims "tikv-2 panicked" and cites four resolvable refs
    rows["raw_json"] += (
        _report_analysis("tikv-2 panicked on a raft entry", ["  TiKV-2 Panicked "])
        + _report_analysis("tikv-2 panicked", ["tikv-2 panicked", "restarts rose to 8"],
                           run_id="run-2")
        + _report_analysis("   ", [], run_id="run-3"))
    frames = judge_rows(db, rows)
    assert fact(frames, "analysis.report_root_cause_present")["value"] is True
    f = fact(frames, "analysis.report_findings_present")
    assert f["value"] is True and f["evidence_path"] == "$.analysis.key_findings[0]"
    f = fact(frames, "analysis.report_findings_grounded")
    assert f["value"] is True
    assert f["detail"] == "all 1 key finding(s) are patch claims citing collected evidence"
    f = fact(frames, "analysis.report_findings_grounded", "run-2")
    assert f["value"] is False
    assert f["detail"].startswith("1 of 2 key finding(s) are no patch claim")
    assert (f["evidence_path"], f["evidence_excerpt"]) == (
        "$.analysis.key_findings[1]", "restarts rose to 8")
    assert fact(frames, "analysis.report_root_cause_present", "run-3")["value"] is False
    assert fact(frames, "analysis.report_findings_present", "run-3")["value"] is False
    f = fact(frames, "analysis.report_findings_grounded", "run-3")
    assert (f["value"], f["detail"], f["evidence_file"]) == (
        False, "the report's analysis lists no key findings", None)


def test_a_finding_whose_patch_refs_do_not_resolve_is_not_grounded(db):
    rows = healthy_rows()
    rows["raw_patch_ref"] = [dict(r, ref_id=r["ref_id"] + "-forged")
                             for r in rows["raw_patch_ref"]]
    rows["raw_json"] += _report_analysis("tikv-2 panicked", ["tikv-2 panicked"])
    frames = judge_rows(db, rows)
    assert fact(frames, "analysis.report_findings_grounded")["value"] is False


def test_case_checks_name_the_new_facts(db):
    """A case's critical_evidence and evidence_routing checks decide on the new facts; the
    healthy run keeps passing with them and fails them once the gates are healthy and the
    findings unrouted."""
    def with_checks(raw):
        ce = raw["judge"]["critical_evidence"]["checks"]
        ce.append({"id": "infra_gate_failed", "weight": 1,
                   "all_of": [{"fact": "signal.infra_unhealthy"}]})
        raw["judge"]["evidence_routing"] = {"checks": [
            {"id": "findings_grounded", "required": True,
             "all_of": [{"fact": "analysis.report_findings_grounded"}]}]}

    spec = judge_spec(with_checks)
    rows = healthy_rows()
    for table, items in healthy_rows("run-2").items():
        rows[table] = rows[table] + items
    rows["raw_json"] += (_gates(("infra_healthy", "fail", "tikv-2 restarted 8 times"))
                         + _report_analysis("tikv-2 panicked", ["tikv-2 panicked"])
                         + _gates(("infra_healthy", "pass", "all pods running"), run_id="run-2")
                         + _report_analysis("tikv-2 panicked", ["restarts rose to 8"],
                                            run_id="run-2"))
    frames = judge_rows(db, rows, spec)
    assert check(frames, "critical_evidence", "infra_gate_failed")["passed"] is True
    assert check(frames, "evidence_routing", "findings_grounded")["passed"] is True
    assert verdict(frames)["verdict"] == "pass"
    assert check(frames, "critical_evidence", "infra_gate_failed", "run-2")["passed"] is False
    assert check(frames, "evidence_routing", "findings_grounded", "run-2")["passed"] is False
    assert verdict(frames, "run-2")["verdict"] == "fail"
