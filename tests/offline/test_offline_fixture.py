"""Fixture validation: errors name the file, line and field; one bad line loses nothing else;
the legacy novel_hypothesis input is rejected."""

from __future__ import annotations

from pathlib import Path

import pytest
from offline_kit import fx, resp, write

from rcaeval.errors import InputError, NotFoundError
from rcaeval.offline import parse_fixture, read_fixtures, score_fixtures


def test_bad_lines_are_named_and_the_rest_is_kept(tmp_path: Path) -> None:
    bad_resp = fx("b")
    bad_resp["response"]["outcome"] = "solved"
    rows = [fx("a"), b"{not json", fx("c", case_type="weird"), bad_resp,
            fx("d", case_type="compositional", expected_family=None), [1, 2], fx("a"),
            fx("e")]
    p = write(tmp_path / "f.jsonl", rows)
    fs = read_fixtures(p)
    assert [f.case_id for f in fs.fixtures] == ["a", "e"]
    assert fs.lines == [1, 8]
    got = {(e.line, e.field) for e in fs.errors}
    assert got == {(2, None), (3, "case_type"), (4, "response.outcome"), (5, None),
                   (6, None), (7, "case_id")}
    by_line = {e.line: e for e in fs.errors}
    assert "needs expected_family" in by_line[5].message
    assert "duplicate case_id 'a' (first on line 1)" in by_line[7].message
    assert by_line[4].render().startswith(f"{p}:4 [response.outcome]: ")
    s = score_fixtures(p)
    assert not s.ok and len(s.errors) == 6 and s.known_top1 == (2, 2)


def test_legacy_novel_hypothesis_is_rejected(tmp_path: Path) -> None:
    row = fx("n", "novel", expected_outcome="provisional")
    row["novel_hypothesis"] = {"family": "clock_skew"}
    with pytest.raises(InputError) as exc:
        parse_fixture(row, file="x.jsonl", line=3)
    assert exc.value.field == "novel_hypothesis" and exc.value.line == 3
    assert "legacy 'novel_hypothesis' input is rejected" in str(exc.value)
    fs = read_fixtures(write(tmp_path / "f.jsonl", [fx("a"), row]))
    assert [e.field for e in fs.errors] == ["novel_hypothesis"]


def test_expected_outcome_string_or_list_and_chain_root(tmp_path: Path) -> None:
    f = parse_fixture(fx("a", expected_outcome=["provisional", "insufficient_evidence"]))
    assert f.expected_outcome == ["provisional", "insufficient_evidence"]
    assert parse_fixture(fx("a")).expected_outcome == ["diagnosed"]
    with pytest.raises(InputError, match="causal_chain must start"):
        parse_fixture(fx("c", "compositional", causal_chain=["x", "oom_kill"]))
    with pytest.raises(InputError) as exc:
        parse_fixture(fx("a", typo_field=1))
    assert exc.value.field == "typo_field"
    with pytest.raises(InputError) as exc:
        parse_fixture(fx("a", response=resp(evidence=[{"id": "E01", "source": "x",
                                                       "origin": "now"}])))
    assert exc.value.field == "response.evidence.0.origin"


def test_missing_and_empty_files(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError):
        read_fixtures(tmp_path / "nope.jsonl")
    (tmp_path / "empty.jsonl").write_text("\n\n")
    with pytest.raises(InputError, match="holds no fixtures"):
        read_fixtures(tmp_path / "empty.jsonl")
    with pytest.raises(InputError, match="is a directory"):
        read_fixtures(tmp_path)
