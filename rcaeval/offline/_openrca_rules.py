"""OpenRCA's scoring rules, reproduced exactly from its evaluator (``main/evaluate.py``).

Per row (docs/offline.md, "Public benchmarks"):

* the prediction text is searched for JSON-like objects ``{"root cause occurrence datetime":
  "...", "root cause component": "...", "root cause reason": "..."}`` (each key optional, in
  that order); every object found is one predicted root cause;
* the scoring points are searched for ``The <i>-th|only predicted root cause component is X``,
  ``... reason is X`` and ``The <i>-th|only root cause occurrence time is within 1 minutes
  (i.e., <=1min) of T`` lines; the row has ``max(#components, #reasons, #times)`` root causes
  and ``#components + #reasons + #times`` criteria;
* a different number of predicted root causes scores 0; otherwise predictions are assigned to
  the ground-truth root causes by the best assignment (the first in permutation order among
  the best) and each criterion is a hit: component and reason by exact string equality, time
  when both parse as ``%Y-%m-%d %H:%M:%S`` and lie within 60 s (a criterion listed a different
  number of times than there are root causes can never be hit, but still counts);
* score = hits / criteria, rounded to 2 places.

Parsing is Python's ``re`` and ``datetime.strptime``, as in OpenRCA, so that every edge case
(Unicode digits and whitespace, odd date spellings) agrees. (Rust's regex through polars was
tried for whole columns: extracting the capture groups made it slower than ``re``.)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from itertools import permutations

MAX_ROOT_CAUSES = 16
"""Most root causes one row may have (the assignment search is exponential in it)."""
TIME_FORMAT = "%Y-%m-%d %H:%M:%S"
TIME_TOLERANCE = timedelta(seconds=60)

_PREDICTED_SRC = (
    r'{\s*'
    r'(?:"root cause occurrence datetime":\s*"(.*?)")?,?\s*'
    r'(?:"root cause component":\s*"(.*?)")?,?\s*'
    r'(?:"root cause reason":\s*"(.*?)")?\s*}'
)
_IDX = r"The (?:\d+-th|only) "
_COMPONENT_SRC = _IDX + r"predicted root cause component is ([^\n]+)"
_REASON_SRC = _IDX + r"predicted root cause reason is ([^\n]+)"
_TIME_SRC = _IDX + r"root cause occurrence time is within 1 minutes \(i\.e\., <=1min\) of ([^\n]+)"

_PREDICTED = re.compile(_PREDICTED_SRC.replace(r"\s*", r"\s*+"))
r"""The prediction pattern for ``re``, with possessive whitespace runs (``\s*+``): a shorter
run could only be followed by whitespace, which no key, comma, quote or ``}`` accepts, so giving
whitespace back never finds another match; it only costs backtracking (about 2.5x the time).
tests/offline checks the equivalence with the original pattern."""
_COMPONENT = re.compile(_COMPONENT_SRC)
_REASON = re.compile(_REASON_SRC)
_TIME = re.compile(_TIME_SRC)


@dataclass(frozen=True, slots=True)
class ScoringPoints:
    """The ground truth of one row, parsed from its ``scoring_points`` text."""

    components: tuple[str, ...]
    reasons: tuple[str, ...]
    times: tuple[str, ...]

    @property
    def root_causes(self) -> int:
        return max(len(self.components), len(self.reasons), len(self.times))

    @property
    def criteria(self) -> int:
        return len(self.components) + len(self.reasons) + len(self.times)


@dataclass(frozen=True)
class RowScore:
    """One row's OpenRCA score and the criteria its best assignment hit."""

    score: float
    hits: int
    criteria: int
    component_hits: int
    reason_hits: int
    time_hits: int
    predicted_root_causes: int
    expected_root_causes: int


def parse_scoring_points(text: str) -> ScoringPoints:
    """The components, reasons and times listed in an OpenRCA ``scoring_points`` text."""
    return ScoringPoints(tuple(_COMPONENT.findall(text)), tuple(_REASON.findall(text)),
                         tuple(_TIME.findall(text)))


def parse_prediction(text: str) -> list[tuple[str, str, str]]:
    """The predicted root causes in an answer, as ``(datetime, component, reason)`` (an absent
    key is ``""``), in the order they appear."""
    return _PREDICTED.findall(text)


# --- whole columns ---------------------------------------------------------------------


def parse_points_column(texts: Sequence[str],
                        ) -> tuple[list[list[str]], list[list[str]], list[list[str]]]:
    """Components, reasons and times of every ``scoring_points`` text of a column."""
    cf, rf, tf = _COMPONENT.findall, _REASON.findall, _TIME.findall
    # a substring test first (most rows list only one or two of the three criteria): the
    # pattern cannot match where its fixed phrase is absent. (One combined pattern in one
    # pass was tried: the Python loop sorting its matches costs more than it saves.)
    comps = [cf(x) if "cause component is " in x else [] for x in texts]
    reasons = [rf(x) if "cause reason is " in x else [] for x in texts]
    times = [tf(x) if "occurrence time is within" in x else [] for x in texts]
    return comps, reasons, times


def parse_predictions_column(texts: Sequence[str]) -> list[list[tuple[str, str, str]]]:
    """The predicted root causes of every prediction text of a column."""
    findall = _PREDICTED.findall
    return [findall(x) for x in texts]


# --- scoring ---------------------------------------------------------------------------


@lru_cache(maxsize=1 << 16)
def _parse_time(text: str) -> datetime | None:
    try:
        return datetime.strptime(text, TIME_FORMAT)
    except ValueError:
        return None


def time_hit(truth: str, predicted: str) -> int:
    a = _parse_time(truth)
    if a is None:
        return 0
    b = _parse_time(predicted)
    if b is None:
        return 0
    return 1 if abs(a - b) <= TIME_TOLERANCE else 0


_ENUMERATE_UP_TO = 4
"""Up to this many root causes the permutations are simply tried in order (at most 24);
beyond it the subset dynamic programme is cheaper. Both give the same permutation."""


def _best_assignment(hits: list[list[tuple[int, int, int]]]) -> list[int]:
    """The permutation ``p`` (prediction ``p[i]`` for ground truth ``i``) with the most hits;
    among the best, the first in lexicographic (itertools.permutations) order."""
    n = len(hits)
    w = [[h[0] + h[1] + h[2] for h in row] for row in hits]
    if n <= _ENUMERATE_UP_TO:
        top, arg = -1, None
        for perm in permutations(range(n)):
            v = 0
            for i, j in enumerate(perm):
                v += w[i][j]
            if v > top:
                top, arg = v, perm
        assert arg is not None
        return list(arg)
    # dynamic programming over subsets of used predictions: best[mask] is the most hits for
    # the truths not yet assigned (truth i = popcount(mask) is next); then walk forward taking
    # the smallest prediction that keeps the optimum, which is the first best permutation.
    full = (1 << n) - 1
    best = [0] * (1 << n)
    for mask in range(full - 1, -1, -1):
        row = w[mask.bit_count()]
        best[mask] = max(row[j] + best[mask | 1 << j] for j in range(n) if not mask >> j & 1)
    perm: list[int] = []
    mask = 0
    for i in range(n):
        for j in range(n):
            if not mask >> j & 1 and w[i][j] + best[mask | 1 << j] == best[mask]:
                perm.append(j)
                mask |= 1 << j
                break
    return perm


def row_hits(comps: Sequence[str], reasons: Sequence[str], times: Sequence[str],
             preds: Sequence[tuple[str, str, str]]) -> tuple[int, int, int]:
    """(component, reason, time) hits of the best assignment of ``preds`` to the ground
    truth; none when the number of predicted root causes differs from the ground truth's."""
    n = max(len(comps), len(reasons), len(times))
    if len(preds) != n or n == 0:
        return (0, 0, 0)
    use_c, use_r, use_t = len(comps) == n, len(reasons) == n, len(times) == n
    if n == 1:
        when, comp, reason = preds[0]
        return (1 if use_c and comp == comps[0] else 0,
                1 if use_r and reason == reasons[0] else 0,
                time_hit(times[0], when) if use_t else 0)
    table = [[(1 if use_c and p[1] == comps[i] else 0,
               1 if use_r and p[2] == reasons[i] else 0,
               time_hit(times[i], p[0]) if use_t else 0) for p in preds] for i in range(n)]
    c = r = t = 0
    for i, j in enumerate(_best_assignment(table)):
        h = table[i][j]
        c += h[0]
        r += h[1]
        t += h[2]
    return (c, r, t)


def score_parsed(points: ScoringPoints, preds: Sequence[tuple[str, str, str]]) -> RowScore:
    """Score already-parsed predictions against parsed scoring points."""
    n, criteria = points.root_causes, points.criteria
    if criteria == 0:
        raise ValueError("the scoring points hold no OpenRCA scoring point")
    if n > MAX_ROOT_CAUSES:
        raise ValueError(f"{n} root causes in one row; at most {MAX_ROOT_CAUSES} are supported")
    c, r, t = row_hits(points.components, points.reasons, points.times, preds)
    total = c + r + t
    return RowScore(score=round(total / criteria, 2), hits=total, criteria=criteria,
                    component_hits=c, reason_hits=r, time_hits=t,
                    predicted_root_causes=len(preds), expected_root_causes=n)


def score_row(prediction: str, scoring_points: str) -> RowScore:
    """Score one prediction text against one ``scoring_points`` text, as OpenRCA does."""
    return score_parsed(parse_scoring_points(scoring_points), parse_prediction(prediction))
