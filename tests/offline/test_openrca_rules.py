"""OpenRCA's scoring rules, one by one, and against a plain reference implementation of the
specification (every permutation, the original backtracking pattern)."""

from __future__ import annotations

import itertools
import re
from datetime import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rcaeval.offline import score_openrca_row
from rcaeval.offline._openrca_rules import (
    parse_points_column,
    parse_prediction,
    parse_scoring_points,
)

REFERENCE_PATTERN = re.compile(
    r'{\s*(?:"root cause occurrence datetime":\s*"(.*?)")?,?\s*'
    r'(?:"root cause component":\s*"(.*?)")?,?\s*(?:"root cause reason":\s*"(.*?)")?\s*}'
)


def _pred(*causes: tuple[str | None, str | None, str | None]) -> str:
    parts = []
    for i, (when, comp, reason) in enumerate(causes, start=1):
        keys = []
        if when is not None:
            keys.append(f'"root cause occurrence datetime": "{when}"')
        if comp is not None:
            keys.append(f'"root cause component": "{comp}"')
        if reason is not None:
            keys.append(f'"root cause reason": "{reason}"')
        parts.append(f'"{i}": {{\n        ' + ",\n        ".join(keys) + "\n    }")
    return "{\n    " + ",\n    ".join(parts) + "\n}"


def _points(components=(), reasons=(), times=()) -> str:
    n = max(len(components), len(reasons), len(times))

    def idx(i: int) -> str:
        return "only" if n == 1 else f"{i + 1}-th"

    lines = [f"The {idx(i)} predicted root cause component is {c}"
             for i, c in enumerate(components)]
    lines += [f"The {idx(i)} predicted root cause reason is {r}" for i, r in enumerate(reasons)]
    lines += [f"The {idx(i)} root cause occurrence time is within 1 minutes (i.e., <=1min) of "
              f"{t}" for i, t in enumerate(times)]
    return "\n".join(lines) + "\n"


def reference(prediction: str, scoring_points: str) -> tuple[float, tuple[int, int, int]]:
    """The specification, written plainly: score and (component, reason, time) hits."""
    preds = REFERENCE_PATTERN.findall(prediction)
    comps = re.findall(r"The (?:\d+-th|only) predicted root cause component is ([^\n]+)",
                       scoring_points)
    reasons = re.findall(r"The (?:\d+-th|only) predicted root cause reason is ([^\n]+)",
                         scoring_points)
    times = re.findall(r"The (?:\d+-th|only) root cause occurrence time is within 1 minutes "
                       r"\(i\.e\., <=1min\) of ([^\n]+)", scoring_points)
    n = max(len(comps), len(reasons), len(times))
    total = len(comps) + len(reasons) + len(times)

    def close(a: str, b: str) -> bool:
        try:
            d = datetime.strptime(a, "%Y-%m-%d %H:%M:%S") - datetime.strptime(
                b, "%Y-%m-%d %H:%M:%S")
        except ValueError:
            return False
        return abs(d.total_seconds()) <= 60

    best, best_hits = -1, (0, 0, 0)
    if len(preds) == n:
        for perm in itertools.permutations(preds):
            c = sum(len(comps) == n and perm[i][1] == comps[i] for i in range(n))
            r = sum(len(reasons) == n and perm[i][2] == reasons[i] for i in range(n))
            t = sum(len(times) == n and close(times[i], perm[i][0]) for i in range(n))
            if c + r + t > best:
                best, best_hits = c + r + t, (c, r, t)
    return round(max(best, 0) / total, 2), best_hits


def _hits(s) -> tuple[int, int, int]:
    return (s.component_hits, s.reason_hits, s.time_hits)


def test_single_root_cause_all_criteria() -> None:
    pts = _points(["db1"], ["cpu"], ["2021-03-04 14:57:00"])
    s = score_openrca_row(_pred(("2021-03-04 14:57:59", "db1", "cpu")), pts)
    assert (s.score, s.hits, s.criteria, _hits(s)) == (1.0, 3, 3, (1, 1, 1))
    s = score_openrca_row(_pred(("2021-03-04 14:56:00", "db1", "mem")), pts)
    assert (s.score, _hits(s)) == (0.67, (1, 0, 1))  # 60 s exactly is within
    s = score_openrca_row(_pred(("2021-03-04 14:58:01", "db2", "cpu")), pts)
    assert (s.score, _hits(s)) == (0.33, (0, 1, 0))  # 61 s is not
    s = score_openrca_row(_pred(("2021-03-04 14:59:00", "db1", None)), pts)
    assert (s.score, s.hits) == (0.33, 1)  # 1/3 rounded to 2 places


def test_count_mismatch_scores_zero() -> None:
    pts = _points(["a", "b"], ["x", "y"])
    one = _pred((None, "a", "x"))
    three = _pred((None, "a", "x"), (None, "b", "y"), (None, "c", "z"))
    for text in (one, three, "", "no JSON here"):
        s = score_openrca_row(text, pts)
        assert s.score == 0.0 and s.hits == 0 and s.criteria == 4
        assert s.expected_root_causes == 2


def test_best_assignment_over_permutations_and_first_best_breakdown() -> None:
    pts = _points(["a", "b"], ["x", "y"])
    swapped = _pred((None, "b", "y"), (None, "a", "x"))
    s = score_openrca_row(swapped, pts)
    assert (s.score, _hits(s)) == (1.0, (2, 2, 0))
    # two assignments tie on 2 hits: identity (a-a, y-y... ) vs swap; the first in
    # permutation order (identity) gives the breakdown: components hit, reasons missed
    tie = _pred((None, "a", "y"), (None, "b", "x"))
    s = score_openrca_row(tie, pts)
    assert (s.score, _hits(s)) == (0.5, (2, 0, 0))
    assert reference(tie, pts) == (0.5, (2, 0, 0))


def test_criterion_listed_fewer_times_than_root_causes_counts_but_never_hits() -> None:
    pts = _points(["a", "b"], ["x"])  # 2 root causes; one reason: never scorable
    s = score_openrca_row(_pred((None, "a", "x"), (None, "b", "x")), pts)
    assert (s.criteria, _hits(s), s.score) == (3, (2, 0, 0), 0.67)


def test_unparsable_times_are_misses() -> None:
    pts = _points(times=["2021-03-04 14:57:00"])
    for when in ("2021-03-04T14:57:00", "14:57", "", "2021-02-30 14:57:00"):
        assert score_openrca_row(_pred((when, None, None)), pts).score == 0.0
    bad_truth = _points(times=["soon"])
    assert score_openrca_row(_pred(("2021-03-04 14:57:00", None, None)), bad_truth).score == 0


def test_row_without_scoring_points_is_an_error() -> None:
    with pytest.raises(ValueError, match="no OpenRCA scoring point"):
        score_openrca_row(_pred((None, "a", None)), "nothing to score")


def test_parsers_follow_the_published_format() -> None:
    text = '{"root cause occurrence datetime": "t", "root cause reason": "r"} {} x'
    assert parse_prediction(text) == [("t", "", "r"), ("", "", "")]
    pts = parse_scoring_points(_points(["a", "b"], ["x", "y"], ["t1", "t2"]))
    assert (pts.components, pts.reasons, pts.times) == (("a", "b"), ("x", "y"), ("t1", "t2"))
    assert (pts.root_causes, pts.criteria) == (2, 6)


# --- against the reference -------------------------------------------------------------

_ws = st.sampled_from(["", " ", "\n", "\n    ", "\t", "  \n  "])
_val = st.sampled_from(["a", "b", "x", "", "2021-03-04 14:57:00", "2021-03-04 14:57:30",
                        "2021-03-04 14:59:00", 'q"'])


@st.composite
def _prediction_texts(draw) -> str:
    out = [draw(st.sampled_from(["", "{", "noise {", "}\n"]))]
    for _ in range(draw(st.integers(0, 4))):
        out.append("{" + draw(_ws))
        for key in ("root cause occurrence datetime", "root cause component",
                    "root cause reason"):
            if draw(st.booleans()):
                out.append(f'"{key}":{draw(_ws)}"{draw(_val)}"')
            out.append(draw(st.sampled_from(["", ",", ", ", ",\n  "])) + draw(_ws))
        out.append(draw(st.sampled_from(["}", " }", "\n}", ""])) + draw(_ws))
    return "".join(out)


@settings(max_examples=150, deadline=None)
@given(_prediction_texts())
def test_possessive_pattern_finds_what_openrcas_pattern_finds(text: str) -> None:
    assert parse_prediction(text) == REFERENCE_PATTERN.findall(text)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from([None, "a", "b"]), st.sampled_from([None, "x", "y"]),
                       st.sampled_from([None, "2021-03-04 14:57:00", "2021-03-04 15:30:00"])),
             min_size=0, max_size=5),
    st.integers(1, 4),
    st.sampled_from(["cri", "c", "r", "t", "cr", "ct", "rt"]),
    st.data(),
)
def test_scores_match_the_reference(causes, n, kinds, data) -> None:
    comps = [data.draw(st.sampled_from(["a", "b"])) for _ in range(n)] if "c" in kinds else []
    reasons = [data.draw(st.sampled_from(["x", "y"])) for _ in range(n)] if "r" in kinds \
        else []
    times = [data.draw(st.sampled_from(["2021-03-04 14:57:30", "2021-03-04 15:30:00"]))
             for _ in range(n)] if "t" in kinds or "i" in kinds else []
    if "i" in kinds and n > 1:
        times = times[:-1]  # a criterion listed too few times
    pts = _points(comps, reasons, times)
    text = _pred(*[(w, c, r) for c, r, w in causes])
    got = score_openrca_row(text, pts)
    assert (got.score, _hits(got)) == reference(text, pts)


_PHRASES = ["The only predicted root cause component is ", "The 2-th predicted root cause "
            "reason is ", "The 1-th root cause occurrence time is within 1 minutes (i.e., "
            "<=1min) of ", "The only ", "root cause ", "db1", " ", "\n", "x"]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_PHRASES), max_size=12))
def test_column_parse_equals_row_parse(parts: list[str]) -> None:
    text = "".join(parts)
    comps, reasons, times = parse_points_column([text])
    p = parse_scoring_points(text)
    assert (tuple(comps[0]), tuple(reasons[0]), tuple(times[0])) == (p.components, p.reasons,
                                                                     p.times)


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 7).flatmap(lambda n: st.lists(
    st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1), st.integers(0, 1)),
             min_size=n, max_size=n), min_size=n, max_size=n)))
def test_best_assignment_is_the_first_best_permutation(hits) -> None:
    from rcaeval.offline._openrca_rules import _best_assignment

    n = len(hits)
    best, first = -1, None
    for perm in itertools.permutations(range(n)):
        v = sum(sum(hits[i][j]) for i, j in enumerate(perm))
        if v > best:
            best, first = v, list(perm)
    assert _best_assignment(hits) == first
