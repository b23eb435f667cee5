"""bench/judge_equality.py judges one input with two code trees and compares every
judgment.json byte for byte and every eval_* row. Here the base tree is a copy of this
checkout's rcaeval/ and queries/ with one planted change in the diagnosis bucket's SQL (a
failing diagnosis's reason reads differently): the harness must find exactly that — the failing
case's packet and its eval_bucket row differ, the passing case and the tables the change cannot
reach do not — and, with the plant undone, find nothing (digests included)."""

from __future__ import annotations

import shutil
from pathlib import Path

from bench import judge_equality as eq

REPO = Path(__file__).resolve().parents[2]
CASES = ["rec-thorough/disk-full-tikv-001", "rec-misdiagnosis/disk-full-tikv-001"]
PLANTS = [("'hard check(s) failed: '", "'hard check(s) FAILED: '"),
          ("THEN ' matches' ELSE ' is not' END\n           || ' the ground truth '",
           "THEN ' matches' ELSE ' is NOT' END\n           || ' the ground truth '")]


def _tree(dest: Path) -> Path:
    shutil.copytree(REPO / "rcaeval", dest / "rcaeval", symlinks=True,
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "queries", dest / "queries")
    shutil.copy(REPO / "pyproject.toml", dest / "pyproject.toml")
    return dest


def _run(tmp: Path, base: Path, capsys, *extra: str) -> tuple[int, str]:
    code = eq.main(["--base-dir", str(base), "--inputs", "sample", "--sample-runs", *CASES,
                    "--work", str(tmp), *extra])
    return code, capsys.readouterr().out


def test_finds_the_planted_difference_and_nothing_else(tmp_path, capsys):
    base = _tree(tmp_path / "planted")
    sql = base / "queries/buckets/diagnosis.sql"
    text = sql.read_text(encoding="utf-8")
    for old, new in PLANTS:
        assert old in text, old
        text = text.replace(old, new)
    sql.write_text(text, encoding="utf-8")

    # the SQL changed, so the digest differs in every packet: masked, to see what else does
    code, out = _run(tmp_path / "work-planted", base, capsys, "--mask-digest")
    assert code == 1, out
    assert "(differs: masked)" in out, out
    results = {c.name: c for c in eq.compare(tmp_path / "work-planted/base",
                                             tmp_path / "work-planted/head",
                                             [{"name": "sample"}], mask_digest=True)}
    for name in ("judge", "rejudge"):
        c = results[name]
        assert c.packets == 2 and c.packets_differing == 1, out
        assert any("rec-misdiagnosis/disk-full-tikv-001/judgment.json" in e
                   for e in c.examples), out
        assert any("eval_bucket" in e and ("FAILED" in e or "is NOT" in e)
                   for e in c.examples), out
        assert 0 < c.rows_differing < c.rows, out
    assert "differences: 0" not in out

    # the same harness over an unchanged copy: zero differences
    shutil.rmtree(base)
    code, out = _run(tmp_path / "work-clean", _tree(tmp_path / "clean"), capsys)
    assert code == 0, out
    assert "differences: 0 (packets 4," in out and "(same)" in out, out
