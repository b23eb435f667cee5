"""Bad release input is refused naming file, row and field (exit 3, never 5 and never
accepted): capture timestamps outside the one timestamp rule, hypothesis scores that are not
numbers, review scores that are strings. Lower-case t/z (RFC 3339) are accepted everywhere."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import orjson
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from release_kit import ahash, capture, review, write_jsonl  # noqa: E402

import rcaeval.release as rel  # noqa: E402
from rcaeval.cli import main  # noqa: E402
from rcaeval.stats import wilson_interval  # noqa: E402

WIN = "2026-11-01..2026-11-07"


def _metrics(tmp_path: Path, capsys, rows: list, *extra: str) -> tuple[int, str, dict]:
    caps = write_jsonl(tmp_path / "c.jsonl", rows)
    out = tmp_path / "M.json"
    code = main(["release", "metrics", "--captures", str(caps), "--window", WIN,
                 "--out", str(out), *extra])
    err = capsys.readouterr().err.replace("\n", " ")
    return code, err, orjson.loads(out.read_bytes()) if out.exists() else {}


@pytest.mark.parametrize("at", ["99999-11-02T10:00:00Z", "2026-11-02T10:00:00+25:00",
                                "2026-11-02T10:00:00+23:60", "1700000000",
                                "2026-11-02T10:00:60Z", "2026-02-30T10:00:00Z"])
def test_capture_timestamps_outside_the_rule_are_refused(tmp_path: Path, capsys,
                                                         at: str) -> None:
    code, err, doc = _metrics(tmp_path, capsys, [capture("ok"), capture("bad", at=at)])
    assert code == 3
    assert re.search(r"c\.jsonl:2 \\?\[captured_at\]", err), err
    assert doc["provenance"]["population"]["captures"]["invalid"] == 1


def test_lower_case_t_and_z_are_rfc3339(tmp_path: Path, capsys) -> None:
    """Decision: RFC 3339 allows a lower-case t and z; captures, reviews and the window all
    accept them (captures were refused before, reviews accepted)."""
    rows = [capture("a", at="2026-11-02t10:00:00z"), capture("b", at="2026-11-02 10:00:00Z",
                                                             labels=False)]
    revs = write_jsonl(tmp_path / "r.jsonl", [review("r", ahash("b"),
                                                     at="2026-11-03t09:00:00z")])
    code, err, doc = _metrics(tmp_path, capsys, rows, "--reviews", str(revs))
    assert code == 0, err
    assert doc["metrics"]["known_top1"]["denominator"] == 2   # b labelled by its review
    assert rel.parse_window("2026-11-01t00:00z..2026-11-02T00:00Z").start.day == 1


def test_hypothesis_score_must_be_a_number(tmp_path: Path, capsys) -> None:
    bad = capture("bad")
    bad["response"]["hypotheses"][0]["score"] = "high"
    neg = capture("neg")
    neg["response"]["hypotheses"][0]["score"] = -1
    fine = capture("fine")
    fine["response"]["hypotheses"][0]["score"] = 0.8
    code, err, doc = _metrics(tmp_path, capsys, [fine, bad, neg])
    assert code == 3
    assert "c.jsonl:2 [response.hypotheses[0].score]" in err.replace("\\[", "[")
    assert "c.jsonl:3 [response.hypotheses[0].score]" in err.replace("\\[", "[")
    assert doc["provenance"]["population"]["captures"]["in_window"] == 1


def test_review_scores_are_integers(tmp_path: Path, capsys) -> None:
    r = review("r1", ahash("a"))
    r["scores"]["safety"] = "5"
    f = review("r2", ahash("b"))
    f["scores"]["safety"] = 4.5
    path = write_jsonl(tmp_path / "r.jsonl", [review("r0", ahash("c")), r, f])
    assert main(["release", "reviews", "validate", str(path)]) == 3
    err = capsys.readouterr().err.replace("\\[", "[")
    assert "r.jsonl:2 [scores.safety]" in err and "r.jsonl:3 [scores.safety]" in err
    # the measurement reports the same rows, and they reach the gate (invalid_reviews)
    code, err, doc = _metrics(tmp_path, capsys, [capture("c")], "--reviews", str(path))
    assert code == 3 and doc["provenance"]["population"]["invalid_reviews"] == 2
    # CSV cells are text: integer text is a score there, "5.0" is not
    csv = tmp_path / "r.csv"
    cols = ["review_id", "analysis_hash", "reviewed_at", "case_type", "hard_gate_assessment"]
    names = [f"score_{s}" for s in rel.REVIEW_SCORES]
    csv.write_text(",".join(cols + names) + "\n"
                   + ",".join(["a", ahash("a"), "2026-11-03T00:00:00Z", "known", "pass"]
                              + ["5"] * 7) + "\n"
                   + ",".join(["b", ahash("b"), "2026-11-03T00:00:00Z", "known", "pass"]
                              + ["5.0"] * 7) + "\n")
    assert main(["release", "reviews", "validate", str(csv)]) == 3
    out = capsys.readouterr()
    assert "1 valid review(s), 1 invalid" in out.out and "r.csv:3 [scores." in \
        out.err.replace("\\[", "[")


@pytest.mark.parametrize("at", ["99999-11-03T09:00:00Z", "2026-11-03T09:00:00+25:00",
                                1700000000])
def test_review_timestamps_follow_the_same_rule(tmp_path: Path, capsys, at: object) -> None:
    path = write_jsonl(tmp_path / "r.jsonl", [{**review("r", ahash("a")), "reviewed_at": at}])
    assert main(["release", "reviews", "validate", str(path)]) == 3
    assert "r.jsonl:1 [reviewed_at]" in capsys.readouterr().err.replace("\\[", "[")


def test_docs_wilson_example_is_the_wilson_interval(repo_root: Path) -> None:
    text = (repo_root / "docs" / "release.md").read_text(encoding="utf-8")
    m = re.search(r'"numerator": (\d+), "denominator": (\d+),.*?\n.*?"ci_low": ([0-9.]+), '
                  r'"ci_high": ([0-9.]+)', text)
    assert m is not None
    k, n, lo, hi = int(m[1]), int(m[2]), float(m[3]), float(m[4])
    want_lo, want_hi = wilson_interval(k, n)
    assert (lo, hi) == (round(want_lo, 4), round(want_hi, 4)) == (0.9559, 0.9813)
    assert f"[{lo:.4f}, {hi:.4f}]" in text
