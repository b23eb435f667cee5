"""suite_known_top1 over hand-built store rows: the answer must name the ground-truth family
and no other family; only known cases with a ground truth count; an empty run is reported
with sample size 0; and report.txt shows it beside the verdicts."""

from __future__ import annotations

from pathlib import Path

import rcaeval.store as st
from rcaeval.metrics import compute_metrics


def _store(tmp_path: Path) -> st.Store:
    s = st.connect(str(tmp_path / "s.duckdb"))
    con = s.con
    cases = [  # case_id, case_type, truth, families named by the answer
        ("a", "known", "oom", ["oom"]),
        ("b", "known", "oom", ["oom", "disk"]),   # names two families: not Top-1
        ("c", "known", "disk", ["oom"]),
        ("d", "known", "disk", []),
        ("e", "compositional", "oom", ["oom"]),   # not a known case
        ("f", "known", None, ["oom"]),            # no ground truth: not counted
    ]
    for cid, ctype, truth, named in cases:
        con.execute("INSERT INTO eval_judgment (run_id, case_id, verdict, case_type) "
                    "VALUES ('r', ?, 'pass', ?)", [cid, ctype])
        con.execute("INSERT INTO case_meta (run_id, case_id, case_type, rules_hash) "
                    "VALUES ('r', ?, ?, 'h')", [cid, ctype])
        if truth:
            con.execute("INSERT INTO rule_truth (case_id, rules_hash, family, component) "
                        "VALUES (?, 'h', ?, NULL)", [cid, truth])
        for fam in ("oom", "disk"):
            con.execute("INSERT INTO rule_detector (case_id, rules_hash, detector_id, scope, "
                        "negation, any_patterns, all_patterns, any_regex, all_regexes, "
                        "pattern_key) VALUES (?, 'h', ?, 'root_cause', true, [], [], '', [], "
                        "'k')", [cid, f"asserts_{fam}"])
            con.execute("INSERT INTO eval_fact (run_id, case_id, fact, value) VALUES "
                        "('r', ?, ?, ?)", [cid, f"detector.asserts_{fam}", fam in named])
    return s


def test_suite_known_top1(tmp_path: Path) -> None:
    s = _store(tmp_path)
    m = compute_metrics(s.con, ["suite_known_top1"], {"run_id": "r"}).row(0, named=True)
    assert (m["numerator"], m["denominator"]) == (1, 4)
    empty = compute_metrics(s.con, ["suite_known_top1"], {"run_id": "nope"}).row(0, named=True)
    assert empty["denominator"] == 0 and empty["value"] is None
    s.close()


def test_report_shows_known_top1(tmp_path: Path) -> None:
    from rcaeval.report import build_context
    from rcaeval.report._text import render_report

    s = _store(tmp_path)
    text = render_report(build_context(s, "r", tmp_path, baseline=None))
    line = next(ln for ln in text.splitlines() if ln.startswith("known Top-1:"))
    assert "1/4 = 0.250 [95% CI 0.046, 0.699]" in line
    s.close()
