"""`rcaeval import openrca|rcaeval` on hostile datasets (docs/import.md, "Public corpora";
docs/cli.md, "Input files and ids"): each bad row, file or id skips only the cases it touches
and is named (exit 3), never an internal error (exit 5) or a hang; and no `--suite`, row id
or symlink makes the import write outside the registry."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
OPENRCA = Path(__file__).parent / "data" / "openrca"
RCAEVAL = Path(__file__).parent / "data" / "rcaeval" / "RE2-OB"
CASES = [f"openrca-bank-{i:04d}" for i in range(5)]


def rcaeval(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rcaeval", *args], capture_output=True,
                          text=True, timeout=120, check=False,
                          env={**os.environ, "COLUMNS": "200"})


def _openrca(tmp_path: Path, *extra: str) -> tuple[subprocess.CompletedProcess[str], dict]:
    res = rcaeval("import", "openrca", str(tmp_path / "ds"), "--system", "Bank", "--out",
                  str(tmp_path / "reg"), "--json", *extra)
    assert res.returncode in (0, 3), res.stdout + res.stderr
    return res, json.loads(res.stdout)


def _copy(tmp_path: Path) -> Path:
    shutil.copytree(OPENRCA, tmp_path / "ds")
    return tmp_path / "ds" / "Bank"


@pytest.mark.parametrize("stamp", ["9" * 40, "9999-12-31T23:59:59+00:00",
                                   "0001-01-01T00:00:00+08:00"])
def test_a_timestamp_no_date_can_hold_skips_its_row(tmp_path: Path, stamp: str) -> None:
    rec = _copy(tmp_path) / "record.csv"
    rec.write_text(rec.read_text().replace("1614841020", stamp, 1))
    res, doc = _openrca(tmp_path)
    assert res.returncode == 3
    assert doc["cases"] == CASES[1:]
    (skip,) = doc["skipped"]
    assert skip["reason"] == (f"{rec}:2: unknown timestamp format {stamp!r} in column "
                              "'timestamp'")


@pytest.mark.parametrize("name", ["query.csv", "record.csv"])
def test_bytes_that_are_not_utf8_skip_their_row(tmp_path: Path, name: str) -> None:
    path = _copy(tmp_path) / name
    word = b"task_1" if name == "query.csv" else b"Tomcat01"
    path.write_bytes(path.read_bytes().replace(word, word[:3] + b"\xff" + word[3:], 1))
    res, doc = _openrca(tmp_path)
    assert res.returncode == 3
    assert doc["cases"] == CASES[1:]
    (skip,) = doc["skipped"]
    column = "task_index" if name == "query.csv" else "component"
    assert skip["reason"] == f"{path}:2: column {column!r} is not UTF-8 text (byte 0xff)"


def test_repeated_and_unusable_row_ids_skip_their_rows(tmp_path: Path) -> None:
    q = _copy(tmp_path) / "query.csv"
    rows = list(csv.reader(io.StringIO(q.read_text(), newline="")))
    rows[0].append("row_id")
    for row, rid in zip(rows[1:], ["7", "7", "1" + "0" * 60, "-1", "3"], strict=True):
        row.append(rid)
    buf = io.StringIO()
    csv.writer(buf).writerows(rows)
    q.write_text(buf.getvalue())
    res, doc = _openrca(tmp_path)
    assert res.returncode == 3
    assert doc["cases"] == ["openrca-bank-0007", "openrca-bank-0003"]  # source order
    reasons = [s["reason"].removeprefix(f"{q}:") for s in doc["skipped"]]
    assert reasons[0] == "4: row_id 7 is also line 2's (one case per row id)"
    assert reasons[1].startswith("6: row_id '1000") and "is not between 0 and" in reasons[1]
    assert reasons[2] == "9: row_id '-1' is not between 0 and 999999999"


@pytest.mark.parametrize("kind", ["fifo", "dir", "devzero"])
def test_a_telemetry_file_that_is_not_a_regular_file_skips_its_cases(tmp_path: Path,
                                                                     kind: str) -> None:
    sysdir = _copy(tmp_path)
    path = sysdir / "telemetry" / "2021_03_04" / "metric" / "metric_container.csv"
    path.unlink()
    {"fifo": os.mkfifo, "dir": Path.mkdir,
     "devzero": lambda p: p.symlink_to("/dev/zero")}[kind](path)
    res, doc = _openrca(tmp_path)  # returns: a FIFO or /dev/zero is never read
    assert res.returncode == 3
    what = {"fifo": "a FIFO", "dir": "a directory", "devzero": "a character device"}[kind]
    assert doc["cases"] == ["openrca-bank-0004"]  # the other date's case lands
    assert [s["reason"] for s in doc["skipped"]] == [
        f"{path}: is {what}, expected a regular file"] * 4
    assert not any("no known layout" in n for n in doc["notes"])


def test_a_record_csv_that_is_a_fifo_is_exit_3_without_blocking(tmp_path: Path) -> None:
    rec = _copy(tmp_path) / "record.csv"
    rec.unlink()
    os.mkfifo(rec)
    res = rcaeval("import", "openrca", str(tmp_path / "ds"), "--system", "Bank", "--out",
                  str(tmp_path / "reg"))
    assert res.returncode == 3, res.stderr
    assert f"{rec}: is a FIFO, expected a regular file" in res.stderr


@pytest.mark.parametrize("suite", ["../../evil", "a/b", "Bad Suite", "-x", "." * 3])
def test_a_suite_id_that_is_no_registry_id_is_refused(tmp_path: Path, suite: str) -> None:
    _copy(tmp_path)
    for args in (("openrca", str(tmp_path / "ds"), "--system", "Bank"),
                 ("rcaeval", str(RCAEVAL))):
        res = rcaeval("import", *args, "--out", str(tmp_path / "reg" / "r"), f"--suite={suite}")
        assert res.returncode == 3, res.stderr
        assert "[--suite]" in res.stderr and "is not a suite id" in res.stderr
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")
                     if not p.is_relative_to(tmp_path / "ds"))
    assert written == []


def test_symlinks_out_of_the_registry_are_not_written_through(tmp_path: Path) -> None:
    _copy(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    reg = tmp_path / "reg"
    reg.mkdir()
    (reg / "suites").symlink_to(outside)
    res = rcaeval("import", "openrca", str(tmp_path / "ds"), "--system", "Bank", "--out",
                  str(reg))
    assert res.returncode == 3, res.stderr
    assert f"{reg / 'suites'} [--out]: resolves to" in res.stderr
    assert list(outside.iterdir()) == []
    (reg / "suites").unlink()
    (reg / "cases").mkdir()
    (reg / "cases" / CASES[1]).symlink_to(outside)  # one case's dir: that case only
    res, doc = _openrca(tmp_path)
    assert res.returncode == 3
    assert doc["cases"] == [c for c in CASES if c != CASES[1]]
    (skip,) = doc["skipped"]
    assert "is not a plain directory (a symlink or a file): not replaced" in skip["reason"]
    assert list(outside.iterdir()) == []
    suite = (reg / "suites" / "openrca-bank.yaml").read_text()
    assert CASES[0] in suite and CASES[1] not in suite


def test_an_out_that_is_a_file_is_exit_3(tmp_path: Path) -> None:
    (tmp_path / "reg").write_text("x")
    res = rcaeval("import", "rcaeval", str(RCAEVAL), "--out", str(tmp_path / "reg"))
    assert res.returncode == 3, res.stderr
    assert "is not a directory" in res.stderr


@pytest.mark.parametrize("kind", ["fifo", "dir"])
def test_an_inject_time_that_is_not_a_file_skips_that_case(tmp_path: Path, kind: str) -> None:
    ds = tmp_path / "RE2-OB"
    shutil.copytree(RCAEVAL, ds)
    inject = ds / "cartservice_cpu" / "1" / "inject_time.txt"
    inject.unlink()
    os.mkfifo(inject) if kind == "fifo" else inject.mkdir()
    res = rcaeval("import", "rcaeval", str(ds), "--out", str(tmp_path / "reg"), "--json")
    assert res.returncode == 3, res.stdout + res.stderr
    doc = json.loads(res.stdout)
    assert len(doc["cases"]) == 1
    (skip,) = doc["skipped"]
    what = "a FIFO" if kind == "fifo" else "a directory"
    assert skip["reason"] == f"inject_time.txt: is {what}, expected a regular file"
    assert "cartservice" not in skip["reason"]


def test_a_logs_csv_that_is_a_fifo_skips_that_case_by_its_id(tmp_path: Path) -> None:
    ds = tmp_path / "RE2-OB"
    shutil.copytree(RCAEVAL, ds)
    logs = ds / "cartservice_cpu" / "1" / "logs.csv"
    logs.unlink()
    os.mkfifo(logs)
    res = rcaeval("import", "rcaeval", str(ds), "--out", str(tmp_path / "reg"), "--json")
    assert res.returncode == 3, res.stdout + res.stderr
    doc = json.loads(res.stdout)
    assert len(doc["cases"]) == 1
    (skip,) = doc["skipped"]
    assert skip["reason"] == "logs.csv: is a FIFO, expected a regular file"
