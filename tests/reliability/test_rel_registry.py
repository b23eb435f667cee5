"""Item: malformed registry YAML (control characters, random corruption) is always a registry
problem naming the file and line: exit 3 from validate, the case alone errored in `run`, the
case alone invalid in `judge`; never an unhandled exception."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reliability_kit import CASES, SAMPLE, THOROUGH, make_registry, query, rcaeval

from rcaeval.registry._loader import load_case_dir
from rcaeval.registry._yamlsrc import parse_yaml


def _inject(path: Path, key: str, char: str) -> int:
    """Put ``char`` into the value of top-level ``key``; return its 1-based line."""
    lines = path.read_text(encoding="utf-8").split("\n")
    for i, line in enumerate(lines):
        if line.startswith(f"{key}:"):
            lines[i] = line[: len(key) + 4] + char + line[len(key) + 4:]
            path.write_text("\n".join(lines), encoding="utf-8")
            return i + 1
    raise AssertionError(key)


@pytest.mark.parametrize("char", ["\x00", "\x1b", "\x7f", "\ufffe"])
def test_control_character_is_a_problem_with_file_line_and_field(tmp_path, char):
    reg = make_registry(tmp_path / "reg", [CASES[0]])
    line = _inject(reg / "cases" / CASES[0] / "case.yaml", "title", char)
    r = rcaeval("validate", "--registry", str(reg), cwd=tmp_path)
    assert r.returncode == 3, r.stderr
    assert f"case.yaml:{line}" in r.stdout and "control character" in r.stdout


def test_run_marks_only_the_malformed_case_errored(tmp_path):
    reg = make_registry(tmp_path / "reg", CASES)
    line = _inject(reg / "cases" / CASES[1] / "case.yaml", "title", "\x00")
    db = tmp_path / "s.duckdb"
    r = rcaeval("run", "--suite", "mini", "--registry", str(reg), "--agent", "replay:thorough",
                "--db", str(db), "--audit-root", str(tmp_path / "a"), "--no-progress",
                "--run-id", "r1", cwd=tmp_path)
    # the run completes, but an errored case means it measured less than asked: exit 7
    assert r.returncode == 7, r.stderr
    assert f"1 case(s) errored (infrastructure): {CASES[1]}" in r.stderr
    rows = dict(query(db, "SELECT case_id, status || ' ' || coalesce(error, '') "
                          "FROM eval_case_runs"))
    assert rows[CASES[1]].startswith("errored malformed case:")
    assert f"case.yaml:{line} unreadable: control character U+0000" in rows[CASES[1]]
    assert all(rows[c] == "judged " for c in (CASES[0], CASES[2]))
    assert query(db, "SELECT status FROM eval_runs") == [("completed",)]


def test_run_refuses_a_suite_file_with_a_control_character(tmp_path):
    reg = make_registry(tmp_path / "reg", CASES)
    _inject(reg / "suites" / "mini.yaml", "version", "\x00")
    r = rcaeval("run", "--suite", "mini", "--registry", str(reg), "--agent", "replay:thorough",
                "--db", str(tmp_path / "s.duckdb"), "--audit-root", str(tmp_path / "a"),
                "--no-progress", cwd=tmp_path)
    assert r.returncode == 3, r.stderr
    assert "mini.yaml:2" in r.stderr and "control character" in r.stderr


def test_judge_marks_only_the_malformed_case_invalid(tmp_path):
    reg = make_registry(tmp_path / "reg", CASES)
    _inject(reg / "cases" / CASES[2] / "judge.yaml", "case_id", "\x00")
    audits = tmp_path / "audits" / "hand"
    for cid in CASES:
        shutil.copytree(THOROUGH / cid, audits / cid)
    db = tmp_path / "s.duckdb"
    r = rcaeval("judge", str(tmp_path / "audits"), "--registry", str(reg), "--db", str(db),
                "--no-progress", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    got = dict(query(db, "SELECT case_id, verdict FROM eval_judgment"))
    assert got == {CASES[0]: "pass", CASES[1]: "pass", CASES[2]: "invalid"}


def test_baseline_that_is_not_utf8_is_bad_input(tmp_path):
    reg = make_registry(tmp_path / "reg", CASES)
    (reg / "baselines").mkdir()
    (reg / "baselines" / "mini.yaml").write_bytes(b"suite_id: mini\nrun_id: \xff\xfe\n")
    r = rcaeval("baseline", "show", "mini", "--registry", str(reg), cwd=tmp_path)
    assert r.returncode in (3, 6), r.stderr
    assert "Traceback" not in r.stderr


_CASE_TEXT = (SAMPLE / "cases" / CASES[0] / "case.yaml").read_bytes()
_JUDGE_TEXT = (SAMPLE / "cases" / CASES[0] / "judge.yaml").read_bytes()


@st.composite
def _corrupt(draw, original: bytes) -> bytes:
    data = bytearray(original)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["insert", "replace", "delete", "truncate"]))
        pos = draw(st.integers(0, len(data)))
        if kind == "insert":
            data[pos:pos] = draw(st.binary(min_size=1, max_size=8)
                                 | st.sampled_from([b"\x00", b"\x1b", b"&a ", b"*a", b": [",
                                                    b"\t", b"{", b"- ", b"!!python/object "]))
        elif kind == "replace" and pos < len(data):
            data[pos] = draw(st.integers(0, 255))
        elif kind == "delete":
            del data[pos:pos + draw(st.integers(1, 20))]
        else:
            del data[pos:]
    return bytes(data)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(case_yaml=_corrupt(_CASE_TEXT), judge_yaml=_corrupt(_JUDGE_TEXT))
def test_corrupted_registry_files_are_problems_never_exceptions(tmp_path_factory, case_yaml,
                                                                judge_yaml):
    root = tmp_path_factory.mktemp("reg")
    case_dir = root / "cases" / CASES[0]
    shutil.copytree(SAMPLE / "cases" / CASES[0], case_dir)
    (case_dir / "case.yaml").write_bytes(case_yaml)
    (case_dir / "judge.yaml").write_bytes(judge_yaml)
    parse_yaml(case_dir / "case.yaml", "case.yaml")
    merged, problems = load_case_dir(root, case_dir)
    assert merged is not None or problems
    for p in problems:
        assert p.file and p.code and p.message
