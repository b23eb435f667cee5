"""Layer (b): fact views and critical-evidence methods over raw rows inserted directly."""

from __future__ import annotations

from judge_kit import (
    CASE,
    RUN,
    check,
    fact,
    healthy_rows,
    judge_rows,
    judge_spec,
    verdict,
)

REPORT = "evidences/workspace_evidence_report.json"


def _js(file, path, type_, text=None, num=None, length=None, run_id=RUN):
    return {"run_id": run_id, "case_id": CASE, "file": file, "path": path, "type": type_,
            "value_text": text, "value_num": num, "length": length}


def _file(name, status="ok", run_id=RUN):
    return {"run_id": run_id, "case_id": CASE, "file": name, "kind": None, "size": 1,
            "sha256": None, "status": status, "detail": None}


def test_healthy_run_has_every_catalog_fact_and_passes(db):
    from rcaeval.registry import FACTS

    frames = judge_rows(db, healthy_rows())
    names = set(frames.facts["fact"])
    assert set(FACTS) <= names
    assert names - set(FACTS) == {"detector.asserts_storage_panic", "detector.blames_network",
                                  "detector.mentions_restart"}
    # the SQL catalog is the registry's catalog
    sql_catalog = {r[0] for r in db.execute("SELECT fact FROM fact_catalog").fetchall()}
    assert sql_catalog == set(FACTS)
    v = verdict(frames)
    assert (v["verdict"], v["subtype"], v["score"], v["raw_score"]) == (
        "pass", "diagnosis_pass", 100.0, 100.0)


def test_every_fact_row_carries_its_evidence(db):
    frames = judge_rows(db, healthy_rows())
    f = fact(frames, "workflow.diagnosis_run_initialized")
    assert (f["evidence_file"], f["evidence_line"]) == (".opencode/telemetry.log", 3)
    f = fact(frames, "window.present")
    assert f["evidence_file"] == REPORT and f["evidence_path"] == "$.metadata.time_window"
    f = fact(frames, "signal.panic_present")
    assert f["value"] and f["evidence_file"] == "evidences/logs.json" and f["evidence_line"] == 1


def test_window_and_cluster_fall_back_to_the_manifest(db):
    rows = healthy_rows()
    rows["raw_json"] = [r for r in rows["raw_json"]
                        if not r["path"].startswith("$.metadata")]
    frames = judge_rows(db, rows)
    assert fact(frames, "window.present")["evidence_file"] == "manifest.json"
    assert fact(frames, "window.matched_allowed_window")["value"] is True
    assert fact(frames, "cluster.matched")["evidence_file"] == "manifest.json"


def test_window_outside_tolerance_makes_the_run_invalid(db):
    rows = healthy_rows()
    for r in rows["raw_json"]:
        if r["path"] == "$.metadata.time_window.end":
            r["value_text"] = "2026-10-03T15:10:01Z"  # 601 s past the end, tolerance 600
    frames = judge_rows(db, rows)
    f = fact(frames, "window.matched_allowed_window")
    assert f["value"] is False and "outside" in f["detail"]
    assert check(frames, "contract", "time_window_match")["passed"] is False
    v = verdict(frames)
    assert (v["verdict"], v["subtype"], v["score"]) == ("invalid", "contract_fail", 0.0)


def test_window_at_the_tolerance_edge_matches(db):
    rows = healthy_rows()
    for r in rows["raw_json"]:
        if r["path"] == "$.metadata.time_window.end":
            r["value_text"] = "2026-10-03T15:10:00Z"
    assert fact(judge_rows(db, rows), "window.matched_allowed_window")["value"] is True


def test_cluster_mismatch(db):
    rows = healthy_rows()
    for r in rows["raw_json"]:
        if r["path"] == "$.metadata.cluster_id":
            r["value_text"] = "prod-tidb-999"
    frames = judge_rows(db, rows)
    f = fact(frames, "cluster.matched")
    assert f["value"] is False and "prod-tidb-999" in f["detail"]
    assert verdict(frames)["subtype"] == "contract_fail"


def test_telemetry_milestone_with_error_status_does_not_count(db):
    rows = healthy_rows()
    for r in rows["raw_telemetry"]:
        if r["event"] == "guardrails.loaded":
            r["status"] = "error"
    assert fact(judge_rows(db, rows), "workflow.misdiagnosis_guardrails_loaded")["value"] is False


def test_evidence_collection_completed_needs_the_report(db):
    rows = healthy_rows()
    rows["raw_file"] = [r for r in rows["raw_file"] if r["file"] != REPORT]
    frames = judge_rows(db, rows)
    assert fact(frames, "workflow.evidence_collection_completed")["value"] is False
    assert fact(frames, "artifacts.report_present")["value"] is False


def test_ticket_context_is_observed_from_file_or_telemetry(db):
    # absent: false (the seed hard-coded this to False)
    assert fact(judge_rows(db, healthy_rows()), "channel.ticket_context_observed")[
        "value"] is False


def test_ticket_context_from_ticket_id(db):
    rows = healthy_rows()
    rows["raw_file"].append(_file("evidences/ticket_context.json"))
    rows["raw_json"] += [_js("evidences/ticket_context.json", "$.ticket_id", "string",
                             "INC-1234")]
    f = fact(judge_rows(db, rows), "channel.ticket_context_observed")
    assert f["value"] is True and f["evidence_path"] == "$.ticket_id"
    assert "INC-1234" in f["detail"]


def test_ticket_context_empty_file_is_not_observed_but_alerts_are(db):
    rows = healthy_rows()
    rows["raw_json"] += [
        _js("evidences/ticket_context.json", "$.ticket_id", "string", "  "),
        _js("evidences/ticket_context.json", "$.alerts", "array", length=0),
        _js("evidences/ticket_context.json", "$.alerts", "array", length=2, run_id="run-2"),
    ]
    rows2 = healthy_rows("run-2")
    for table, items in rows2.items():
        rows[table] = rows[table] + items
    frames = judge_rows(db, rows)
    assert fact(frames, "channel.ticket_context_observed")["value"] is False
    assert fact(frames, "channel.ticket_context_observed", "run-2")["value"] is True


def test_ticket_context_from_telemetry(db):
    rows = healthy_rows()
    rows["raw_telemetry"].append({"run_id": RUN, "case_id": CASE, "line_no": 99,
                                  "event": "ticket_context.loaded", "status": "ok"})
    f = fact(judge_rows(db, rows), "channel.ticket_context_observed")
    assert f["value"] is True and f["evidence_line"] == 99


def test_alerts_are_observed_when_gate_checks_lists_a_check(db):
    rows = healthy_rows()
    rows["raw_json"] += [
        _js("evidences/gate_checks.json", "$.checks", "array", length=0),
        _js("evidences/gate_checks.json", "$.checks", "array", length=2, run_id="run-2"),
    ]
    for table, items in healthy_rows("run-2").items():
        rows[table] = rows[table] + items

    def prefer_alerts(raw):
        raw["judge"]["evidence_collection"] = {"preferred_channels": ["logs", "alerts"],
                                               "min_preferred_channels": 1}

    frames = judge_rows(db, rows, judge_spec(prefer_alerts))
    assert fact(frames, "channel.alerts_observed")["value"] is False
    f = fact(frames, "channel.alerts_observed", "run-2")
    assert f["value"] is True and f["evidence_path"] == "$.checks" and "2 check" in f["detail"]
    assert fact(frames, "contract.preferred_channels_all_observed")["detail"] == (
        "not observed: alerts")
    assert fact(frames, "contract.preferred_channels_all_observed", "run-2")["value"] is True


def test_traces_are_observed_when_traces_json_lists_a_span(db):
    rows = healthy_rows()
    rows["raw_json"] += [
        _js("evidences/traces.json", "$.spans", "array", length=0),
        _js("evidences/traces.json", "$.spans", "array", length=3, run_id="run-2"),
    ]
    for table, items in healthy_rows("run-2").items():
        rows[table] = rows[table] + items

    def prefer_traces(raw):
        raw["judge"]["evidence_collection"] = {"preferred_channels": ["logs", "traces"],
                                               "min_preferred_channels": 1}

    frames = judge_rows(db, rows, judge_spec(prefer_traces))
    assert fact(frames, "channel.traces_observed")["value"] is False
    f = fact(frames, "channel.traces_observed", "run-2")
    assert f["value"] is True and f["evidence_path"] == "$.spans" and "3 span" in f["detail"]
    assert fact(frames, "contract.preferred_channels_all_observed")["detail"] == (
        "not observed: traces")
    assert fact(frames, "contract.preferred_channels_all_observed", "run-2")["value"] is True


def test_json_text_contains_any_is_path_scoped(db):
    """The needle sits in a sibling field: the seed's whole-document search would pass this
    check; the path-scoped method does not, while a rule without `path` still does."""
    rows = healthy_rows()
    for r in rows["raw_json"]:
        if r["path"] == "$.components[0].last_termination_reason":
            r["value_text"] = "OOMKilled"
    rows["raw_json"].append(_js("evidences/component_health.json", "$.components[0].note",
                                "string", "operator asked: was it a panic?"))

    def whole_doc(raw):
        raw["judge"]["critical_evidence"]["checks"].append(
            {"id": "whole_doc", "all_of": [{"method": "json_text_contains_any",
                                           "file": "component_health.json",
                                           "needles": ["PANIC"]}]})

    frames = judge_rows(db, rows, judge_spec(whole_doc))
    scoped = check(frames, "critical_evidence", "termination_reason_panic")
    assert scoped["passed"] is False
    assert "at/under $.components[*].last_termination_reason" in scoped["reason"]
    anywhere = check(frames, "critical_evidence", "whole_doc")
    assert anywhere["passed"] is True
    assert anywhere["evidence_path"] == "$.components[0].note"


def test_json_text_contains_any_matches_values_under_the_path(db):
    rows = healthy_rows()
    rows["raw_json"].append(_js("evidences/gate_checks.json", "$.checks[1].detail", "string",
                                "hotspot on region 42"))

    def mutate(raw):
        raw["judge"]["critical_evidence"]["checks"] = [
            {"id": "under", "all_of": [{"method": "json_text_contains_any",
                                        "file": "gate_checks.json", "path": "$.checks",
                                        "needles": ["hotspot"]}]},
            {"id": "indexed_miss", "all_of": [{"method": "json_text_contains_any",
                                               "file": "gate_checks.json",
                                               "path": "$.checks[0]", "needles": ["hotspot"]}]},
            {"id": "indexed_hit", "all_of": [{"method": "json_text_contains_any",
                                              "file": "gate_checks.json",
                                              "path": "$.checks[1].detail",
                                              "needles": ["HOTSPOT"]}]},
        ]

    frames = judge_rows(db, rows, judge_spec(mutate))
    assert check(frames, "critical_evidence", "under")["passed"] is True
    assert check(frames, "critical_evidence", "indexed_miss")["passed"] is False
    assert check(frames, "critical_evidence", "indexed_hit")["passed"] is True


def test_json_list_nonempty(db):
    rows = healthy_rows()
    rows["raw_json"] += [
        _js("evidences/queries.json", "$.queries", "array", length=0),
        _js("evidences/component_health.json", "$.components[0].events", "array", length=2),
    ]

    def mutate(raw):
        raw["judge"]["critical_evidence"]["checks"] = [
            {"id": "empty", "all_of": [{"method": "json_list_nonempty", "file": "queries.json",
                                        "path": "$.queries"}]},
            {"id": "nested", "all_of": [{"method": "json_list_nonempty",
                                         "file": "component_health.json",
                                         "path": "$.components[*].events"}]},
            {"id": "missing_file", "all_of": [{"method": "json_list_nonempty",
                                               "file": "nope.json", "path": "$.x"}]},
        ]

    frames = judge_rows(db, rows, judge_spec(mutate))
    assert check(frames, "critical_evidence", "empty")["passed"] is False
    nested = check(frames, "critical_evidence", "nested")
    assert nested["passed"] is True and nested["evidence_path"] == "$.components[0].events"
    assert check(frames, "critical_evidence", "missing_file")["passed"] is False


def test_numeric_series_labels_and_threshold(db):
    def mutate(raw):
        raw["judge"]["critical_evidence"]["checks"] = [
            {"id": "other_instance", "all_of": [{"method": "numeric_series_any_gt",
                                                 "series": "tikv_restart_total",
                                                 "labels": {"instance": "tikv-1"},
                                                 "threshold": 0}]},
            {"id": "too_high", "all_of": [{"method": "numeric_series_any_gt",
                                           "series": "tikv_restart_total", "threshold": 1}]},
            {"id": "no_labels", "all_of": [{"method": "numeric_series_any_gt",
                                            "series": "tikv_restart_total", "threshold": 0.5}]},
            {"id": "restart_file", "all_of": [{"method": "numeric_series_any_gt",
                                               "file": "restarts.json", "series": "restarts",
                                               "labels": {"pod": "tikv-2"}, "threshold": 2}]},
        ]

    rows = healthy_rows()
    rows["raw_json"] += [
        _js("evidences/restarts.json", "$.series[0].name", "string", "restarts"),
        _js("evidences/restarts.json", "$.series[0].labels.pod", "string", "tikv-2"),
        _js("evidences/restarts.json", "$.series[0].points[0][1]", "number", "1", 1.0),
        _js("evidences/restarts.json", "$.series[0].points[1][1]", "number", "4", 4.0),
    ]
    frames = judge_rows(db, rows, judge_spec(mutate))
    assert check(frames, "critical_evidence", "other_instance")["passed"] is False
    assert check(frames, "critical_evidence", "too_high")["passed"] is False
    assert check(frames, "critical_evidence", "no_labels")["passed"] is True
    rf = check(frames, "critical_evidence", "restart_file")
    assert rf["passed"] is True and rf["evidence_path"] == "$.series[0].points[1][1]"


def test_keyword_any_over_a_named_file_and_log_files(db):
    rows = healthy_rows()
    rows["raw_json"].append(_js("evidences/gate_checks.json", "$.checks[0].detail", "string",
                                "Infra unhealthy: disk FULL"))

    def mutate(raw):
        raw["judge"]["critical_evidence"]["checks"] = [
            {"id": "gate", "all_of": [{"method": "keyword_any", "source": "gate_checks.json",
                                       "keywords": ["disk full"]}]},
            {"id": "logfile", "all_of": [{"method": "keyword_any", "source": "logs",
                                          "keywords": ["STORE 5 STARTING"]}]},
            {"id": "absent", "any_of": [{"method": "keyword_any", "source": "logs",
                                         "keywords": ["oom", "deadlock"]}]},
        ]

    frames = judge_rows(db, rows, judge_spec(mutate))
    gate = check(frames, "critical_evidence", "gate")
    assert gate["passed"] and gate["evidence_path"] == "$.checks[0].detail"
    log = check(frames, "critical_evidence", "logfile")
    assert log["passed"] and (log["evidence_file"], log["evidence_line"]) == (
        "logs/tikv-2.log", 7)
    absent = check(frames, "critical_evidence", "absent")
    assert absent["passed"] is False and "oom | deadlock" in absent["reason"]


def test_kill_query_signal_from_query_records_and_logs(db):
    rows = healthy_rows()
    assert fact(judge_rows(db, rows), "signal.kill_query_present")["value"] is False
    rows = healthy_rows("run-2")
    rows["raw_query"][0]["kind"] = "kill"
    rows3 = healthy_rows("run-3")
    rows3["raw_log_line"][1]["text"] = "[2026/10/03] WARN query was killed by max_execution_time"
    for table, items in rows3.items():
        rows[table] += items
    frames = judge_rows(db, rows)
    assert fact(frames, "signal.kill_query_present", "run-2")["value"] is True
    assert fact(frames, "signal.kill_query_present", "run-3")["value"] is True


def test_unknown_fact_never_holds(db):
    def mutate(raw):
        raw["judge"]["critical_evidence"]["checks"].append(
            {"id": "typo", "all_of": [{"fact": "signal.panic_presnt", "expect": False}]})

    frames = judge_rows(db, healthy_rows(), judge_spec(mutate))
    typo = check(frames, "critical_evidence", "typo")
    assert typo["passed"] is False and "not in the catalog" in typo["reason"]


def test_span_error_any_holds_for_an_error_span_of_the_service_with_a_keyword(db):
    rows = healthy_rows()
    t = "evidences/traces.json"
    rows["raw_json"] += [
        _js(t, "$.spans", "array", length=2),
        _js(t, "$.spans[0].id", "string", "T-ab-01"),
        _js(t, "$.spans[0].service", "string", "frontend"),
        _js(t, "$.spans[0].operation", "string", "GET /cart"),
        _js(t, "$.spans[0].status", "string", "ok"),
        _js(t, "$.spans[0].status_message", "string", "connection slots are reserved"),
        _js(t, "$.spans[1].id", "string", "T-ab-02"),
        _js(t, "$.spans[1].service", "string", "Checkout"),
        _js(t, "$.spans[1].operation", "string", "payment-db query"),
        _js(t, "$.spans[1].status", "string", "error"),
        _js(t, "$.spans[1].events[0].attributes.exception.message", "string",
            "FATAL: remaining connection slots are reserved"),
    ]

    def mutate(raw):
        def cond(**kw):
            return {"method": "span_error_any", **kw}
        raw["judge"]["critical_evidence"]["checks"] = [
            {"id": "any_error", "all_of": [cond()]},
            {"id": "of_checkout", "all_of": [cond(service="checkout",
                                                  keywords=["SLOTS ARE RESERVED"])]},
            {"id": "of_frontend", "all_of": [cond(service="frontend")]},  # its span is ok
            {"id": "wrong_keyword", "all_of": [cond(keywords=["dns"])]},
        ]

    frames = judge_rows(db, rows, judge_spec(mutate))
    hit = check(frames, "critical_evidence", "of_checkout")
    assert hit["passed"] is True and hit["evidence_path"] == (
        "$.spans[1].events[0].attributes.exception.message")
    assert "error span T-ab-02 (Checkout payment-db query)" in hit["reason"]
    assert check(frames, "critical_evidence", "any_error")["passed"] is True
    miss = check(frames, "critical_evidence", "of_frontend")
    assert miss["passed"] is False and "no error span of service frontend" in miss["reason"]
    assert check(frames, "critical_evidence", "wrong_keyword")["passed"] is False
