"""RCAEval-style ranked lists: AC@k, Avg@k, the chance baseline and lift, by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rcaeval.cli import main
from rcaeval.errors import InputError
from rcaeval.offline import score_ranked

TRUTH = "case_id,root_cause,candidates\nc1,cart,10\nc2,db,\nc3,cart,\nc4,front,4\n"
RANKS = [
    {"case_id": "c1", "ranks": ["db", "cart", "front"]},  # truth at 2 of 10 candidates
    {"case_id": "c2", "ranks": ["db"]},  # truth at 1 of 1
    {"case_id": "c3", "ranks": ["a", "b", "c", "d", "e", "cart"]},  # at 6 of 6
    {"case_id": "c4", "ranks": []},  # no answer: a miss, 4 candidates
]


def _write(tmp_path: Path, truth: str = TRUTH, ranks: list | str = RANKS,
           ranks_name: str = "ranks.jsonl") -> tuple[Path, Path]:
    t, r = tmp_path / "truth.csv", tmp_path / ranks_name
    t.write_text(truth, encoding="utf-8")
    r.write_text(ranks if isinstance(ranks, str)
                 else "".join(json.dumps(x) + "\n" for x in ranks), encoding="utf-8")
    return t, r


def test_ac_avg_chance_and_lift_by_hand(tmp_path: Path) -> None:
    t, r = _write(tmp_path)
    res = score_ranked(t, r)
    assert res.cases["truth_rank"].to_list() == [2, 1, 6, None]
    assert res.cases["candidates"].to_list() == [10, 1, 6, 4]
    by_k = {row["k"]: row for row in res.by_k.iter_rows(named=True)}
    assert sorted(by_k) == [1, 2, 3, 4, 5]
    assert (by_k[1]["hits"], by_k[2]["hits"], by_k[5]["hits"]) == (1, 2, 2)
    assert by_k[1]["ac"] == pytest.approx(0.25) and by_k[2]["ac"] == pytest.approx(0.5)
    # Avg@2 per case: c1 rank 2 -> 1/2, c2 rank 1 -> 2/2 -> mean 1.5 / 4
    assert by_k[2]["avg"] == pytest.approx(1.5 / 4)
    assert by_k[3]["avg"] == pytest.approx((2 / 3 + 1) / 4)
    chance1 = (1 / 10 + 1 / 1 + 1 / 6 + 1 / 4) / 4
    chance2 = (2 / 10 + 1 + 2 / 6 + 2 / 4) / 4
    assert by_k[1]["chance_ac"] == pytest.approx(chance1)
    assert by_k[2]["chance_ac"] == pytest.approx(chance2)
    assert by_k[2]["chance_avg"] == pytest.approx((chance1 + chance2) / 2)
    assert by_k[1]["lift_ac"] == pytest.approx(0.25 / chance1)
    assert by_k[1]["ci_low"] < 0.25 < by_k[1]["ci_high"]
    assert (res.baseline.label, res.baseline.hits, res.baseline.n) == ("cart", 2, 4)


def test_csv_ranks_in_any_row_order_match_jsonl(tmp_path: Path) -> None:
    csv_ranks = ("case_id,rank,candidate\nc1,2,cart\nc1,1,db\nc1,3,front\nc2,1,db\n"
                 + "".join(f"c3,{i + 1},{x}\n" for i, x in enumerate("abcde"))
                 + "c3,6,cart\n")
    truth = "case_id,root_cause\nc1,cart\nc2,db\nc3,cart\n"
    t, r = _write(tmp_path, truth, csv_ranks, "ranks.csv")
    res = score_ranked(t, r)
    assert res.cases["truth_rank"].to_list() == [2, 1, 6]
    assert res.cases["candidates"].to_list() == [3, 1, 6]  # default: the list's length


def test_cli_table_json_and_per_case_output(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    t, r = _write(tmp_path)
    out = tmp_path / "cases.csv"
    assert main(["offline", "ranked", "--truth", str(t), "--ranks", str(r), "--out", str(out),
                 "--max-k", "3"]) == 0
    text = capsys.readouterr().out
    assert "AC@k" in text and "Avg@k" in text and "chance" in text and "lift" in text
    assert " 3  50.00%" in text and " 4 " not in text.split("\n")[-3]
    assert out.read_text(encoding="utf-8").splitlines()[1] == "c1,cart,2,3,10,false"
    assert main(["offline", "ranked", "--truth", str(t), "--ranks", str(r), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["cases"] == 4 and len(doc["by_k"]) == 5
    assert doc["no_information_baseline"]["label"] == "cart"


@pytest.mark.parametrize(
    ("truth", "ranks", "name", "which", "line", "field", "message"),
    [
        ("case_id,cause\nc1,x\n", RANKS[:1], "ranks.jsonl", "truth", 1, "root_cause",
         "missing column"),
        ("case_id,root_cause\nc1,x\nc1,y\n", RANKS[:1], "ranks.jsonl", "truth", 3, "case_id",
         "duplicate case_id 'c1' (first on line 2)"),
        ("case_id,root_cause,candidates\nc1,x,many\n", RANKS[:1], "ranks.jsonl", "truth", 2,
         "candidates", "must be a positive integer"),
        ("case_id,root_cause,candidates\nc1,cart,2\n", RANKS[:1], "ranks.jsonl", "truth", 2,
         "candidates", "candidates is 2 but case 'c1' ranks 3"),
        ("case_id,root_cause\nc4,x\n", RANKS[3:], "ranks.jsonl", "truth", 2, "candidates",
         "ranks no candidate"),
        ("case_id,root_cause\nc1,x\n", '{"case_id": "c1", "ranks": "db"}\n', "ranks.jsonl",
         "ranks", 1, "ranks", "must be a list"),
        ("case_id,root_cause\nc1,x\n", '{"case_id": "c1", "ranks": ["a", "a"]}\n',
         "ranks.jsonl", "ranks", 1, "candidate", "ranked twice"),
        ("case_id,root_cause\nc1,x\n", '\n{"case_id": "c1", "ranks": [}\n', "ranks.jsonl",
         "ranks", 2, None, "not valid JSON"),
        ("case_id,root_cause\nc1,x\n", "case_id,rank,candidate\nc1,1,a\nc1,3,b\n",
         "ranks.csv", "ranks", 2, "rank", "no rank 2"),
        ("case_id,root_cause\nc1,x\n", "case_id,rank,candidate\nc1,1,a\nc1,1,b\n",
         "ranks.csv", "ranks", 3, "rank", "rank 1 twice"),
        ("case_id,root_cause\nc1,x\nc2,y\n", RANKS[:1], "ranks.jsonl", "ranks", None,
         "case_id", "1 case(s) of the truth file"),
        ("case_id,root_cause\nc1,x\n", RANKS[:2], "ranks.jsonl", "ranks", 2, "case_id",
         "case 'c2' is not in the truth file"),
    ],
)
def test_bad_input_names_file_line_and_field(tmp_path: Path, truth: str, ranks, name: str,
                                             which: str, line: int | None, field: str | None,
                                             message: str) -> None:
    t, r = _write(tmp_path, truth, ranks, name)
    with pytest.raises(InputError) as exc:
        score_ranked(t, r)
    err = exc.value
    assert err.file == str(t if which == "truth" else r)
    assert err.line == line and err.field == field
    assert message in err.message


def test_cli_bad_input_exits_3(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    t, r = _write(tmp_path, "case_id,root_cause\nc1,x\nc1,y\n", RANKS[:1])
    assert main(["offline", "ranked", "--truth", str(t), "--ranks", str(r)]) == 3
    assert f"{t}:3 [case_id]: duplicate case_id 'c1'" in capsys.readouterr().err
