"""Operator reviews as CSV: a row holding bytes that are not UTF-8 is one invalid review
(file, line and field named) and every other row is read; a header that is not UTF-8 is exit 3;
a long field (a 200 KB note) is data, not a CSV error. All three were tracebacks (exit 5)."""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from release_kit import ahash, review  # noqa: E402

import rcaeval.release as rel  # noqa: E402

COLUMNS = ["review_id", "analysis_hash", "reviewed_at", "case_type", "expected_family",
           "hard_gate_assessment", "resolution_outcome", "notes",
           *(f"score_{s}" for s in rel.REVIEW_SCORES)]


def _csv(rows: list[dict]) -> bytes:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(COLUMNS)
    for r in rows:
        w.writerow([r["scores"][c[6:]] if c.startswith("score_") else r.get(c) or ""
                    for c in COLUMNS])
    return buf.getvalue().encode()


def _validate(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rcaeval", "release", "reviews", "validate",
                           str(path)], capture_output=True, text=True, timeout=300)


def test_a_row_that_is_not_utf8_is_one_invalid_review(tmp_path: Path) -> None:
    rows = [review(f"r{i}", ahash(f"a{i}")) for i in range(3)]
    rows[1]["notes"] = "MARK"
    p = tmp_path / "r.csv"
    p.write_bytes(_csv(rows).replace(b"MARK", b"caf\xe9"))
    rf = rel.read_reviews(p)
    assert [r.review_id for r in rf.reviews] == ["r0", "r2"]
    assert [(x["line"], x["field"]) for x in rf.problems] == [(3, "notes")]
    proc = _validate(p)
    assert proc.returncode == 3, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "r.csv:3 [notes]" in proc.stdout + proc.stderr
    assert "2 valid review(s), 1 invalid" in proc.stdout


def test_a_header_that_is_not_utf8_is_exit_3(tmp_path: Path) -> None:
    p = tmp_path / "r.csv"
    p.write_bytes(_csv([review("r0", ahash("a0"))]).replace(b"notes", b"n\xf6tes", 1))
    proc = _validate(p)
    assert proc.returncode == 3, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "r.csv:1" in proc.stderr and "UTF-8" in proc.stderr


def test_a_long_field_is_read(tmp_path: Path) -> None:
    rows = [review("r0", ahash("a0")), review("r1", ahash("a1"))]
    rows[0]["notes"] = "x" * 200_000
    p = tmp_path / "r.csv"
    p.write_bytes(_csv(rows))
    proc = _validate(p)
    assert proc.returncode == 0, proc.stderr
    assert "2 valid review(s), 0 invalid" in proc.stdout
