"""Bad OpenRCA inputs: a clear InputError naming the file, line and field (exit code 3)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rcaeval.cli import main
from rcaeval.errors import InputError, NotFoundError
from rcaeval.offline import score_openrca

HEADER = "row_id,task_index,instruction,scoring_points\n"
POINT = '"The only predicted root cause component is db1\n"'
GOOD_Q = HEADER + f'0,task_3,"find it",{POINT}\n1,task_3,"again",{POINT}\n'
GOOD_P = 'row_id,prediction\n0,"{""root cause component"": ""db1""}"\n1,""\n'


def _files(tmp_path: Path, query: str = GOOD_Q, preds: str = GOOD_P) -> tuple[Path, Path]:
    q, p = tmp_path / "query.csv", tmp_path / "pred.csv"
    q.write_text(query, encoding="utf-8")
    p.write_text(preds, encoding="utf-8")
    return q, p


def test_good_small_files_and_empty_prediction(tmp_path: Path) -> None:
    q, p = _files(tmp_path)
    r = score_openrca(q, p)
    assert r.scores["score"].to_list() == [1.0, 0.0]
    assert r.scores["predicted_root_causes"].to_list() == [1, 0]


@pytest.mark.parametrize(
    ("query", "preds", "which", "line", "field", "message"),
    [
        (HEADER.replace(",scoring_points", "") + "0,task_3,x\n", GOOD_P, "query", 1,
         "scoring_points", "missing column 'scoring_points'"),
        (GOOD_Q, "row_id,answer\n0,x\n", "pred", 1, "prediction", "missing column"),
        (GOOD_Q.replace("\n1,task_3", "\nabc,task_3"), GOOD_P, "query", 4, "row_id",
         "must be an integer, got 'abc'"),
        (GOOD_Q, GOOD_P.replace("\n1,", "\n1.5,"), "pred", 3, "row_id", "must be an integer"),
        (GOOD_Q.replace("\n1,task_3", "\n0,task_3"), GOOD_P, "query", 4, "row_id",
         "duplicate row_id 0 (first on line 2)"),
        (GOOD_Q, GOOD_P + "0,again\n", "pred", 4, "row_id", "duplicate row_id 0"),
        (GOOD_Q, GOOD_P.replace('\n1,""\n', "\n"), "pred", None, "row_id",
         "1 row_id(s) of the query file"),
        (GOOD_Q, GOOD_P + "7,x\n", "pred", 4, "row_id", "row_id 7 is not in the query file"),
        (HEADER + '0,task_3,x,"The root cause is db1"\n', GOOD_P.split("\n1,")[0] + "\n",
         "query", 2, "scoring_points", "no OpenRCA scoring point found"),
        (GOOD_Q.replace("\n1,task_3", "\n1, "), GOOD_P, "query", 4, "task_index",
         "must not be empty"),
        (GOOD_Q + "2,task_3,x\n", GOOD_P, "query", 6, None, "3 fields, the header has 4"),
        (GOOD_Q + '2,task_3,"x,unterminated\n', GOOD_P, "query", None, None, "malformed CSV"),
        ("", GOOD_P, "query", 1, None, "empty file"),
    ],
)
def test_bad_csv_names_file_line_and_field(
    tmp_path: Path, query: str, preds: str, which: str, line: int | None, field: str | None,
    message: str,
) -> None:
    q, p = _files(tmp_path, query, preds)
    with pytest.raises(InputError) as exc:
        score_openrca(q, p)
    err = exc.value
    assert err.file == str(q if which == "query" else p)
    if line is not None:
        assert err.line == line
    assert err.field == field
    assert message in err.message


def test_not_utf8_names_the_line(tmp_path: Path) -> None:
    q, p = _files(tmp_path)
    p.write_bytes(GOOD_P.encode() + b'2,"\xff\xfe"\n')
    with pytest.raises(InputError, match="not UTF-8") as exc:
        score_openrca(q, p)
    assert exc.value.file == str(p)


def test_missing_file_is_not_found(tmp_path: Path) -> None:
    q, _ = _files(tmp_path)
    with pytest.raises(NotFoundError):
        score_openrca(q, tmp_path / "nope.csv")


def test_cli_exit_3_with_file_line_field_and_no_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    q, p = _files(tmp_path, preds=GOOD_P + "0,again\n")
    out = tmp_path / "scores.csv"
    assert main(["offline", "openrca", "--query", str(q), "--predictions", str(p),
                 "--out", str(out)]) == 3
    err = capsys.readouterr().err
    assert f"{p}:4 [row_id]: duplicate row_id 0 (first on line 2)" in err
    assert not out.exists()


def test_real_cli_process_exit_code(tmp_path: Path) -> None:
    q, p = _files(tmp_path, query=GOOD_Q.replace("\n1,task_3", "\nx,task_3"))
    script = Path(sys.executable).with_name("rcaeval")
    proc = subprocess.run([str(script), "offline", "openrca", "--query", str(q),
                           "--predictions", str(p)], capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 3
    assert f"{q}:4 [row_id]: must be an integer, got 'x'" in proc.stderr
