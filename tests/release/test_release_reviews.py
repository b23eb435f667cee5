"""Operator reviews: validation with file/line/field, the store import (idempotent, edits
replace), history across re-analyses, verified actions only from resolved/mitigated."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from release_kit import ahash, capture, review, write_jsonl  # noqa: E402

import rcaeval.release as rel  # noqa: E402
from rcaeval.cli import main  # noqa: E402
from rcaeval.errors import InputError  # noqa: E402
from rcaeval.release._review_store import (  # noqa: E402
    import_reviews,
    review_history,
    verified_actions,
)
from rcaeval.store import connect  # noqa: E402


def test_validation_names_file_line_and_field(tmp_path: Path) -> None:
    bad_score = review("r2", ahash("a"))
    bad_score["scores"]["safety"] = 7
    missing = review("r3", ahash("a"))
    del missing["scores"]["tool_efficiency"]
    p = write_jsonl(tmp_path / "r.jsonl", [
        review("r1", ahash("a")), bad_score, missing, b"{oops",
        dict(review("r5", "md5:x")), dict(review("r6", ahash("a")), case_type="weird"),
        review("r1", ahash("b")), b"[]"])
    rf = rel.read_reviews(p)
    got = {(x["line"], x["field"]) for x in rf.problems}
    assert got == {(2, "scores"), (3, "scores"), (4, "(line)"), (5, "analysis_hash"),
                   (6, "case_type"), (7, "review_id"), (8, "(line)")}
    assert [r.review_id for r in rf.reviews] == ["r1"]
    assert "tool_efficiency" in next(x["message"] for x in rf.problems if x["line"] == 3)
    assert main(["release", "reviews", "validate", str(p)]) == 3


def test_csv_reviews(tmp_path: Path) -> None:
    cols = ["review_id", "analysis_hash", "reviewed_at", "case_type", "expected_family",
            "hard_gate_assessment", "resolution_outcome", "action_that_worked", "notes"]
    cols += [f"score_{s}" for s in rel.REVIEW_SCORES]
    row = ["r1", ahash("a"), "2026-11-03T09:00:00Z", "known", "oom_kill", "pass", "resolved",
           "raise limit", "ok"] + ["4"] * 7
    bad = ["r2", ahash("a"), "2026-11-03T09:00:00Z", "known", "", "maybe", "", "", ""] + ["4"] * 7
    p = tmp_path / "r.csv"
    p.write_text(",".join(cols) + "\n" + ",".join(row) + "\n" + ",".join(bad) + "\n")
    rf = rel.read_reviews(p)
    assert [r.review_id for r in rf.reviews] == ["r1"] and rf.reviews[0].passing()
    assert [(x["line"], x["field"]) for x in rf.problems] == [(3, "hard_gate_assessment")]
    (tmp_path / "h.csv").write_text("review_id,analysis_hash\nr1,x\n")
    with pytest.raises(InputError) as exc:
        rel.read_reviews(tmp_path / "h.csv")
    assert exc.value.line == 1 and "reviewed_at" in str(exc.value)


def test_reanalysis_opens_a_new_surface_and_keeps_history(tmp_path: Path) -> None:
    caps = write_jsonl(tmp_path / "c.jsonl", [
        capture("a1", at="2026-11-02T00:00:00Z", incident="inc1"),
        capture("a2", at="2026-11-05T00:00:00Z", incident="inc1"),   # re-analysis
        capture("b1", at="2026-11-02T00:00:00Z", incident="inc2")])
    first = write_jsonl(tmp_path / "r1.jsonl", [
        review("r1", ahash("a1"), incident="inc1", at="2026-11-02T10:00:00Z"),
        review("r2", ahash("a1"), incident="inc1", at="2026-11-03T10:00:00Z"),  # edit
        review("r9", ahash("b1"), incident="inc2")])
    with connect(":memory:") as store:
        res = import_reviews(store, first, captures=caps)
        assert (res.new, res.analyses_from_captures) == (3, 3)
        # the re-analysis a2 exists (captured) but has no review yet: r1/r2 are history
        h = {r["review_id"]: r for r in review_history(store).iter_rows(named=True)}
        assert h["r1"]["state"] == h["r2"]["state"] == "historical"
        assert (h["r1"]["effective"], h["r2"]["effective"]) == (False, True)
        assert h["r9"]["state"] == "current"
        second = write_jsonl(tmp_path / "r2.jsonl", [
            review("r3", ahash("a2"), incident="inc1", at="2026-11-06T10:00:00Z")])
        import_reviews(store, second)
        inc1 = review_history(store, "inc1")
        assert inc1["review_id"].to_list() == ["r1", "r2", "r3"]          # nothing lost
        assert inc1["state"].to_list() == ["historical", "historical", "current"]


def test_reimport_is_idempotent_and_an_edit_replaces(tmp_path: Path) -> None:
    p = write_jsonl(tmp_path / "r.jsonl", [review("r1", ahash("a")), review("r2", ahash("b"))])
    with connect(":memory:") as store:
        assert import_reviews(store, p).new == 2
        again = import_reviews(store, p)
        assert (again.new, again.changed, again.unchanged) == (0, 0, 2)
        edited = write_jsonl(tmp_path / "e.jsonl", [review("r1", ahash("a"), outcome="mitigated")])
        assert import_reviews(store, edited).changed == 1
        h = review_history(store)
        assert h.height == 2
        assert h.filter(h["review_id"] == "r1")["resolution_outcome"][0] == "mitigated"


def test_verified_actions_only_from_resolved_or_mitigated(tmp_path: Path) -> None:
    p = write_jsonl(tmp_path / "r.jsonl", [
        review("ok1", ahash("a"), outcome="resolved", action="raise memory limit"),
        review("ok2", ahash("b"), outcome="mitigated", action="drain node"),
        review("no1", ahash("c"), outcome="unresolved", action="restart pod"),
        review("no2", ahash("d"), outcome="false_positive", action="nothing"),
        review("no3", ahash("e"), outcome="resolved", action=None),
        review("no4", ahash("f"), outcome=None, action="scale up"),
        # superseded: resolved first, then the operator corrected it to unresolved
        review("old", ahash("g"), outcome="resolved", action="x", at="2026-11-03T00:00:00Z"),
        review("new", ahash("g"), outcome="unresolved", action="x", at="2026-11-04T00:00:00Z"),
    ])
    with connect(":memory:") as store:
        import_reviews(store, p)
        acts = verified_actions(store)
    assert sorted(acts["review_id"].to_list()) == ["ok1", "ok2"]
    assert set(acts["resolution_outcome"].to_list()) == {"resolved", "mitigated"}
    assert rel.Review.model_validate(review("x", ahash("x"))).verified_action()
    assert not rel.Review.model_validate(review("x", ahash("x"), outcome="unresolved")
                                         ).verified_action()


def test_reviews_cli(tmp_path: Path, capsys) -> None:
    db = tmp_path / "s.duckdb"
    p = write_jsonl(tmp_path / "r.jsonl", [review("r1", ahash("a")), b"{bad"])
    assert main(["release", "reviews", "import", str(p), "--db", str(db)]) == 3
    assert "1 new" in capsys.readouterr().out
    assert main(["release", "reviews", "history", "--db", str(db)]) == 0
    assert "r1" in capsys.readouterr().out
    out = tmp_path / "a.jsonl"
    assert main(["release", "reviews", "actions", "--db", str(db), "--out", str(out)]) == 0
    assert b"raise the memory limit" in out.read_bytes()


def test_labels_read_directly_match_the_model(tmp_path: Path) -> None:
    """A measurement reads the labels of rows that certainly validate without the model: the
    labels and problems must be those of read_reviews, row for row, whatever the row."""
    from rcaeval.release._reviews import read_review_labels, review_labels

    odd: list[tuple[str, object]] = [
        ("reviewed_at", "2026-11-03T09:00:00"), ("reviewed_at", "2026-11-03T09:00:00.5Z"),
        ("reviewed_at", "2026-11-03T09:00:00+02:00"), ("reviewed_at", "2026-02-30T09:00:00Z"),
        ("reviewed_at", "9999-12-31T23:59:59-01:00"), ("reviewed_at", "2026-11-03 09:00:00Z"),
        ("reviewed_at", "2026-11-03"), ("reviewed_at", 1700000000),
        ("reviewed_at", " 2026-11-03T09:00:00Z"),
        ("review_id", " r "), ("review_id", ""), ("review_id", 5), ("expected_family", " B "),
        ("expected_family", ""), ("expected_family", "\x1cx"), ("expected_family", 3),
        ("case_type", " known"), ("case_type", "novel"), ("hard_gate_assessment", "maybe"),
        ("resolution_outcome", "resolved"), ("resolution_outcome", 1), ("notes", None),
        ("reviewer", 7), ("extra", 1), ("analysis_hash", " " + ahash("a")),
        ("analysis_hash", ahash("a").upper()), ("scores", {"safety": 3}), ("scores", None),
    ]
    rows: list[object] = []
    for i, (key, value) in enumerate(odd):
        row = review(f"r{i}", ahash(f"h{i % 5}"), at=f"2026-11-{1 + i % 9:02d}T09:00:00Z",
                     family="oom_kill" if i % 2 else None)
        row[key] = value
        rows.append(row)
    for score in (True, 6, -1, 3.0, "3", 5, 0):
        row = review(f"s{score!r}", ahash("s"))
        row["scores"]["safety"] = score
        rows.append(row)
    rows += [review("r1", ahash("dup")), b"{oops", b"[]", review("r0", ahash("dup"))]
    p = write_jsonl(tmp_path / "r.jsonl", rows)
    rf = rel.read_reviews(p)
    rl = read_review_labels(p)
    assert rl.labels.equals(review_labels(rf.reviews))
    assert rl.problems == rf.problems and rl.count == len(rf.reviews)
    assert rl.as_input() == rf.as_input()
    assert any(x["field"] == "reviewed_at" and "range" in x["message"] for x in rl.problems)
