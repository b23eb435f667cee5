"""OpenRCA's archived agent runs (data/external/openrca) scored by `rcaeval offline openrca`
reproduce OpenRCA's own per-row scores and the published figures."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from rcaeval.cli import main
from rcaeval.offline import score_openrca

OPENRCA = Path(__file__).resolve().parents[2] / "data" / "external" / "openrca"

# system -> (rows, strict, partial, mean) as published (SOURCE.md)
PUBLISHED = {"Bank": (136, 20, 23, 0.2255), "Telecom": (51, 12, 6, 0.2808)}


def _expected(system: str) -> dict[int, float]:
    with (OPENRCA / system / "expected.csv").open(newline="", encoding="utf-8") as fh:
        return {int(r["row_id"]): float(r["score"]) for r in csv.DictReader(fh)}


@pytest.mark.parametrize("system", sorted(PUBLISHED))
def test_cli_reproduces_every_row_and_the_published_figures(
    system: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "scores.csv"
    d = OPENRCA / system
    code = main(["offline", "openrca", "--query", str(d / "query.csv"), "--predictions",
                 str(d / "predictions.csv"), "--out", str(out)])
    printed = capsys.readouterr().out
    assert code == 0
    rows, strict, partial, mean = PUBLISHED[system]

    with out.open(newline="", encoding="utf-8") as fh:
        got = list(csv.DictReader(fh))
    expected = _expected(system)
    assert [int(r["row_id"]) for r in got] == sorted(expected)  # query order = row order here
    for r in got:
        assert float(r["score"]) == pytest.approx(expected[int(r["row_id"])], abs=0.006), r
        assert int(r["hits"]) == sum(int(r[f"{c}_hits"]) for c in ("component", "reason",
                                                                     "time"))
        assert int(r["criteria"]) == sum(int(r[f"{c}_criteria"])
                                         for c in ("component", "reason", "time"))
    scores = [float(r["score"]) for r in got]
    assert len(scores) == rows
    assert sum(s == 1.0 for s in scores) == strict
    assert sum(0 < s < 1 for s in scores) == partial
    assert round(sum(scores) / rows, 4) == mean

    assert f"rows     {rows:>6}" in printed
    assert f"strict   {strict:>6}" in printed and f"partial  {partial:>6}" in printed
    assert f"mean     {mean:.4f}" in printed
    assert "no-information baseline" in printed and "answering '" in printed


def test_python_api_and_json_summary(capsys: pytest.CaptureFixture[str]) -> None:
    d = OPENRCA / "Telecom"
    result = score_openrca(d / "query.csv", d / "predictions.csv")
    s = result.summary
    assert (s.rows, s.strict.hits, s.partial.hits) == (51, 12, 6)
    assert s.mean == pytest.approx(0.2808, abs=5e-5)
    lo, hi = s.strict.interval
    assert lo is not None and hi is not None and lo < 12 / 51 < hi
    by_name = {c.criterion: c for c in s.criteria}
    assert set(by_name) == {"component", "reason", "time"}
    assert by_name["time"].baseline is None
    reason = by_name["reason"]
    assert reason.baseline is not None and reason.baseline.n == reason.accuracy.n
    # every ground-truth reason of the query file counts once in the baseline
    assert reason.accuracy.n == result.scores["reason_criteria"].sum()

    assert main(["offline", "openrca", "--query", str(d / "query.csv"), "--predictions",
                 str(d / "predictions.csv"), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["rows"] == 51 and doc["strict"]["hits"] == 12 and doc["partial"]["hits"] == 6
    assert doc["strict"]["ci_low"] == pytest.approx(lo)
    assert doc["criteria"][1]["baseline"]["label"] == reason.baseline.label
