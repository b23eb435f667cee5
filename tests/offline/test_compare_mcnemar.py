"""`rcaeval offline compare`: two per-row files on the same rows, the exact McNemar test."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from rcaeval.cli import main
from rcaeval.errors import InputError
from rcaeval.offline import compare_files, score_openrca
from rcaeval.stats import mcnemar_exact

OPENRCA = Path(__file__).resolve().parents[2] / "data" / "external" / "openrca" / "Telecom"


def _csv(path: Path, header: str, rows: list[str]) -> Path:
    path.write_text(header + "\n" + "".join(r + "\n" for r in rows), encoding="utf-8")
    return path


def test_scores_paired_by_id_not_position(tmp_path: Path) -> None:
    a = _csv(tmp_path / "a.csv", "row_id,score", ["1,1.0", "2,1.0", "3,0.5", "4,0", "5,1"])
    b = _csv(tmp_path / "b.csv", "row_id,score", ["5,0.33", "4,1", "3,1.0", "2,1.0", "1,0"])
    c = compare_files(a, b)
    # A right on 1, 2, 5; B right on 2, 3, 4 -> only A: 1, 5; only B: 3, 4; both: 2
    assert (c.rows, c.a_correct, c.b_correct) == (5, 3, 3)
    assert (c.test.b, c.test.c, c.test.both, c.test.neither) == (2, 2, 1, 0)
    assert c.test.p_value == 1.0
    c = compare_files(a, b, min_score=0.5)  # A right on 1,2,3,5; B on 2,3,4
    assert (c.test.b, c.test.c) == (2, 1)


def test_correct_column_and_jsonl(tmp_path: Path) -> None:
    a = _csv(tmp_path / "a.csv", "case_id,correct", [f"c{i},true" for i in range(9)]
             + ["c9,false"])
    b = tmp_path / "b.jsonl"
    b.write_text("".join(json.dumps({"case_id": f"c{i}", "correct": i >= 8}) + "\n"
                         for i in range(10)), encoding="utf-8")
    c = compare_files(a, b)
    # only A: c0..c7 (8); only B: c9 (1); both: c8
    assert (c.test.b, c.test.c, c.test.both) == (8, 1, 1)
    assert c.test.p_value == pytest.approx(2 * (1 + 9) / 512)


def test_cli_on_two_openrca_score_files(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    score_openrca(OPENRCA / "query.csv", OPENRCA / "predictions.csv", out=a)
    preds = tmp_path / "pred.csv"
    with (OPENRCA / "predictions.csv").open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    rows[0]["prediction"] = ""  # system B: no answer on row 0, which A got right
    with preds.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, ["row_id", "prediction"])
        writer.writeheader()
        writer.writerows(rows)
    score_openrca(OPENRCA / "query.csv", preds, out=b)
    assert main(["offline", "compare", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "only A (b)       1" in out and "only B (c)       0" in out
    assert f"exact McNemar p = {mcnemar_exact(1, 0):.4g}" in out
    assert main(["offline", "compare", str(a), str(b), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["rows"] == 51 and doc["a_correct"] == 12 and doc["only_a"] == 1


@pytest.mark.parametrize(
    ("a_text", "b_text", "which", "line", "field", "message"),
    [
        ("id,score\n1,1\n", "row_id,score\n1,1\n", "a", 1, "row_id", "needs an id column"),
        ("row_id,value\n1,1\n", "row_id,score\n1,1\n", "a", 1, "correct",
         "needs a 'correct' or a 'score'"),
        ("row_id,score\n1,high\n", "row_id,score\n1,1\n", "a", 2, "score",
         "must be a finite number"),
        ("row_id,correct\n1,maybe\n", "row_id,score\n1,1\n", "a", 2, "correct",
         "true/false"),
        ("row_id,score\n1,1\n1,0\n", "row_id,score\n1,1\n", "a", 3, "row_id", "duplicate"),
        ("row_id,score\n1,1\n2,1\n", "row_id,score\n1,1\n", "b", None, "row_id",
         "1 id(s) of"),
    ],
)
def test_bad_input(tmp_path: Path, a_text: str, b_text: str, which: str, line: int | None,
                   field: str, message: str) -> None:
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text(a_text, encoding="utf-8")
    b.write_text(b_text, encoding="utf-8")
    with pytest.raises(InputError) as exc:
        compare_files(a, b)
    err = exc.value
    assert err.file == str(a if which == "a" else b)
    assert err.line == line and err.field == field and message in err.message
    assert main(["offline", "compare", str(a), str(b)]) == 3


@pytest.mark.parametrize("cell", ["nan", "NaN", "inf", "-Infinity"])
def test_a_non_finite_score_is_bad_input(tmp_path: Path, cell: str) -> None:
    a = _csv(tmp_path / "a.csv", "row_id,score", ["1,1.0", f"2,{cell}"])
    b = _csv(tmp_path / "b.csv", "row_id,score", ["1,1.0", "2,1.0"])
    with pytest.raises(InputError, match="finite") as exc:
        compare_files(a, b)
    assert exc.value.file == str(a) and exc.value.line == 3 and exc.value.field == "score"


@pytest.mark.parametrize("min_score", [float("nan"), float("inf")])
def test_a_non_finite_min_score_is_bad_input(tmp_path: Path, min_score: float) -> None:
    a = _csv(tmp_path / "a.csv", "row_id,score", ["1,1.0"])
    with pytest.raises(InputError, match="finite"):
        compare_files(a, a, min_score=min_score)
