"""rcaeval._numfmt.display_value: the one number format of the report pages and terminal
tables (no raw floats, counts as integers, booleans as true/false)."""

from __future__ import annotations

import pytest

from rcaeval._numfmt import display_value


@pytest.mark.parametrize(("value", "kw", "text"), [
    (0.9682142857142857, {"kind": "rate"}, "0.968"),
    (0.9682142857142857, {"column": "pass_rate"}, "0.968"),
    (1.0, {"kind": "rate"}, "1.000"),
    (1.0, {"kind": "count"}, "1"),
    (1378, {}, "1,378"),
    (1378.0, {"column": "sample_size"}, "1,378"),
    (1.0, {"kind": "bool"}, "true"),
    (0, {"kind": "bool"}, "false"),
    (True, {}, "true"),
    (False, {"kind": "rate"}, "false"),
    (40.75, {"column": "mean_score"}, "40.75"),
    (100.0, {"column": "score_before"}, "100.00"),
    (-59.25, {"column": "score_delta"}, "-59.25"),
    (5.0, {"column": "score_delta"}, "+5.00"),
    (0.0001, {"column": "score_delta"}, "0.00"),
    (0.000244140625, {"kind": "p"}, "0.0002441"),
    (8.55412, {"kind": "value"}, "8.554"),
    (45.0, {"kind": "value"}, "45"),
    (None, {}, "-"),
    (None, {"missing": ""}, ""),
    (float("nan"), {"missing": ""}, ""),
    ("smoke", {"column": "suite_id"}, "smoke"),
])
def test_display_value(value: object, kw: dict[str, str], text: str) -> None:
    assert display_value(value, **kw) == text
