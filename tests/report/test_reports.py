"""report.txt / report_detail.txt: key lines, determinism, runs without suite or baseline."""

from __future__ import annotations

from pathlib import Path

import pytest
from report_kit import BASE_CASES, WORSE_CASES, Env, add_run

from rcaeval.errors import NotFoundError
from rcaeval.report import promote_baseline, write_reports


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def test_report_without_baseline_has_summary_lines(env: Env) -> None:
    report, detail = write_reports(env.store, "base-1", env.root / "out",
                                   registry_root=env.registry)
    assert report == env.root / "out" / "report.txt"
    assert detail == env.root / "out" / "report_detail.txt"
    lines = _lines(report)
    assert lines[0] == "rcaeval run report: base-1"
    assert "suite:             smoke 1.0 (registry suites/smoke.yaml, version 1.0, 5 cases)" \
        in lines
    assert "agent:             replay:thorough" in lines
    assert "execution status:  completed (5 judged, 0 errored, 0 timed_out)" in lines
    assert "comparison status: not compared: suite smoke has no baseline" in lines
    assert ("cases:             5 total: 4 pass, 1 fail, 0 invalid, 0 without verdict; "
            "0 errored, 0 timed_out") in lines
    assert "score:             total 370.00, average 74.00 over 5 scored cases" in lines
    assert ("timing:            started 2026-10-03T14:00:00Z, finished 2026-10-03T14:10:00Z, "
            "duration 10m00s") in lines
    assert "case time:         total 5m22s, average 1m04s over 5 timed cases" in lines
    assert ("tokens:            input 15,000, output 500, cache read 250, cache write 0 "
            "(5 of 5 cases reported)") in lines
    assert "cost:              $0.0625 (5 of 5 cases reported)" in lines
    table = lines[lines.index("cases:") + 1:]
    assert table[0].split() == ["case", "type", "verdict", "score", "failure", "duration"]
    assert [r.split()[0] for r in table[1:]] == sorted(BASE_CASES)
    assert table[3].split() == ["case-c", "known", "fail", "40.00", "diagnosis_fail", "1m04s"]


def test_report_with_baseline_and_detail(env: Env) -> None:
    promote_baseline(env.store, "base-1", env.registry, env.audits)
    report, detail = write_reports(env.store, "worse-1", env.root / "out",
                                   registry_root=env.registry)
    text = report.read_text()
    assert ("comparison status: compared with baseline base-1: REGRESSION (1 gating case(s), "
            "eligible pass 3 -> 1)") in text
    assert "  pass count:        4 -> 2 (all cases); eligible baseline cases 3 -> 1" in text
    assert ("  changes:           regressed 2 (1 gating), score_drop 0, missing 1, new 1, "
            "improved 0, unchanged 2") in text
    d = detail.read_text()
    block = d.split("== case-b ==\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert block[0] == "verdict:           fail (subtype diagnosis_fail)"
    assert "workspace:         ws-case-b" in block
    assert "  diagnosis            fail     0.00  50.00  diagnosis fail" in block
    assert ("  - diagnosis/names_family (hard, required, weight 1.00): detector "
            "asserts_storage_panic did not fire") in block
    assert "      evidence: output.txt line 3" in block
    assert ("  - supporting names_instance: weight 2.00 of 3.00 (67% of the supporting checks) "
            "= -21.33 of 32.00 points") in block
    assert block[-1] == ("baseline:          pass 80.00 -> fail 45.00 (-35.00): regressed, "
                         "gating; now: diagnosis_fail")
    assert "baseline:          not in the baseline (new)" in d
    missing = d.split("== cases missing from this run ==\n", 1)[1].splitlines()
    assert missing[1].split() == ["case-d", "suite,", "baseline", "pass", "90.00"]
    assert len(missing) == 2


def test_reports_are_byte_identical_on_regeneration(env: Env) -> None:
    promote_baseline(env.store, "base-1", env.registry, env.audits)
    first = write_reports(env.store, "worse-1", env.root / "a", registry_root=env.registry)
    second = write_reports(env.store, "worse-1", env.root / "b", registry_root=env.registry)
    for p, q in zip(first, second, strict=True):
        assert p.read_bytes() == q.read_bytes()
        assert b"\r" not in p.read_bytes()


def test_run_without_suite_says_so(env: Env) -> None:
    add_run(env.store, "adhoc-1", {"case-a": ("pass", 80.0)}, suite_id=None, suite_version=None)
    report, detail = write_reports(env.store, "adhoc-1", env.root / "o",
                                   registry_root=env.registry)
    text = report.read_text()
    assert "suite:             - (none recorded (judged from an audit dir?))" in text
    assert "comparison status: not compared: the run records no suite" in text
    assert "unknown: neither the suite file nor a baseline is available" in detail.read_text()


def test_errored_and_unjudged_cases(env: Env) -> None:
    cases = {**WORSE_CASES, "case-d": (None, None)}
    add_run(env.store, "err-1", cases, case_status={"case-d": "errored"})
    report, detail = write_reports(env.store, "err-1", env.root / "o",
                                   registry_root=env.registry)
    text = report.read_text()
    assert "execution status:  completed (5 judged, 1 errored, 0 timed_out)" in text
    assert "6 total: 2 pass, 3 fail, 0 invalid, 1 without verdict; 1 errored" in text
    row = next(r for r in text.splitlines() if r.strip().startswith("case-d"))
    assert "errored: agent crashed: exit 1" in row
    assert "error:             agent crashed: exit 1" in detail.read_text()


def test_unknown_run_is_not_found(env: Env) -> None:
    with pytest.raises(NotFoundError, match="nope"):
        write_reports(env.store, "nope", env.root / "o", registry_root=env.registry)


def test_default_out_dir_is_the_runs_audit_dir(env: Env) -> None:
    report, _ = write_reports(env.store, "worse-1", registry_root=env.registry)
    assert report == env.audits / "worse-1" / "report.txt"
