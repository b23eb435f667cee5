"""Smaller reliability items: an ACP agent printing garbage (one line per case, not a
traceback per line), hard links in hand-made bundles, an agent replacing .rcaeval/, numeric
time windows, every pydantic error of a harness input."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import orjson
from reliability_kit import (
    CASES,
    THOROUGH,
    hostile_args,
    make_registry,
    query,
    rcaeval,
)

from rcaeval.errors import InputError
from rcaeval.harness import check as check_response
from rcaeval.registry._loader import load_case_dir

GARBAGE = Path(__file__).resolve().parent / "agents" / "garbage_acp_agent.py"


def test_a_garbage_printing_acp_agent_gets_one_line_not_a_traceback_per_line(tmp_path):
    reg = make_registry(tmp_path / "reg", CASES[:1])
    r = rcaeval("run", "--suite", "mini", "--registry", str(reg), "--db",
                str(tmp_path / "s.duckdb"), "--audit-root", str(tmp_path / "a"), "--run-id", "g1",
                "--no-progress", "--retries", "0", "--agent", f"acp:{sys.executable} {GARBAGE}",
                "--agent-env", "GARBAGE_LINES=1000", cwd=tmp_path)
    assert r.returncode in (0, 7), r.stderr  # 7: the case errored (docs/running.md)
    assert "Traceback" not in r.stderr and len(r.stderr.splitlines()) < 20, r.stderr[:2000]
    # the one line names the case (and attempt) for the operator
    rejected = [ln for ln in r.stderr.splitlines() if "the ACP library rejected" in ln]
    assert len(rejected) == 1 and f"case {CASES[0]} (attempt 1, ws-" in rejected[0], r.stderr
    (status, error), = query(tmp_path / "s.duckdb", "SELECT status, error FROM eval_case_runs")
    assert status in ("judged", "errored") and "the ACP library rejected 1000 message(s)" in error


def test_judge_refuses_hard_links_out_of_a_hand_made_bundle(tmp_path):
    secret = tmp_path / "secret.json"
    secret.write_text('{"evidence_id": "TOPSECRET"}')
    case = tmp_path / "audits" / "hand" / CASES[0]
    shutil.copytree(THOROUGH / CASES[0], case)
    target = case / "evidences" / "stolen.json"
    os.link(secret, target)
    db = tmp_path / "s.duckdb"
    r = rcaeval("judge", str(tmp_path / "audits"), "--db", str(db), "--no-progress",
                cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    (status, detail), = query(db, "SELECT status, detail FROM raw_file "
                                  "WHERE file = 'evidences/stolen.json'")
    assert status == "outside_bundle" and "hard link" in detail
    assert query(db, "SELECT count(*) FROM raw_json WHERE value_text = 'TOPSECRET'") == [(0,)]


def test_an_agent_replacing_the_runner_dir_gets_a_clear_error(tmp_path):
    reg = make_registry(tmp_path / "reg", CASES[:2])
    target = tmp_path / "elsewhere"
    target.mkdir()
    r = rcaeval("run", "--suite", "mini", "--registry", str(reg), "--db",
                str(tmp_path / "s.duckdb"), "--audit-root", str(tmp_path / "a"), "--run-id", "s1",
                "--no-progress",
                *hostile_args("symlink_runner", [CASES[0]], HOSTILE_TARGET=str(target)),
                cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rows = dict(query(tmp_path / "s.duckdb", "SELECT case_id, status || ' ' || "
                      "coalesce(error, '') FROM eval_case_runs"))
    assert "replaced the runner-owned .rcaeval/ directory with a symlink" in rows[CASES[0]]
    assert rows[CASES[0]].startswith("judged") and rows[CASES[1]] == "judged "
    assert list(target.iterdir()) == []  # nothing was written through the symlink


def test_a_numeric_time_window_is_refused(tmp_path):
    reg = make_registry(tmp_path / "reg", CASES[:1])
    path = reg / "cases" / CASES[0] / "case.yaml"
    lines = path.read_text().split("\n")
    for i, line in enumerate(lines):
        if line.strip().startswith("start:"):
            lines[i] = line[: line.index("start:")] + "start: 0"
            break
    path.write_text("\n".join(lines))
    r = rcaeval("validate", "--registry", str(reg), cwd=tmp_path)
    assert r.returncode == 3
    merged, problems = load_case_dir(reg, reg / "cases" / CASES[0])
    assert merged is None
    (p,) = problems
    assert p.field == "time_window.start" and "timestamp with a timezone" in p.message


def test_harness_reports_every_validation_error():
    try:
        check_response({"root_cause": 5, "confidence": "very", "evidence": 3})
    except InputError as exc:
        text = str(exc)
    else:
        raise AssertionError("accepted")
    assert "more error" not in text
    assert text.count(": ") >= 3 and "errors:" in text
    orjson.dumps(text)
