"""`rcaeval label import` reads the sheet as every user input is read (a missing sheet is
exit 6, a FIFO exit 3 without blocking, bytes that are not UTF-8 exit 3 naming the line, a
cell over 128 KiB is read: never a traceback), and `label export` refuses an output path it
cannot write before any work."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from label_kit import SAMPLE_LABELS, cli  # noqa: E402


def test_a_sheet_that_is_not_utf8_names_its_line(sample_db: Path, tmp_path: Path) -> None:
    sheet = tmp_path / "sheet.csv"
    lines = SAMPLE_LABELS.read_bytes().splitlines(keepends=True)
    sheet.write_bytes(b"".join(lines[:3]) + lines[3].replace(b"the agent", b"the \xe9gent")
                      + b"".join(lines[4:]))
    proc = cli("label", "import", str(sheet), "--db", str(sample_db))
    assert proc.returncode == 3, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "sheet.csv:4" in proc.stderr and "UTF-8" in proc.stderr, proc.stderr


def test_a_missing_sheet_is_not_found_and_a_fifo_is_refused(sample_db: Path,
                                                          tmp_path: Path) -> None:
    proc = cli("label", "import", str(tmp_path / "none.csv"), "--db", str(sample_db))
    assert proc.returncode == 6, proc.stderr
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    proc = cli("label", "import", str(fifo), "--db", str(sample_db), timeout=60)
    assert proc.returncode == 3, proc.stderr
    assert "FIFO" in proc.stderr


@pytest.mark.parametrize("target", ["adir.csv", "afile/sheet.csv"])
def test_export_to_an_unwritable_path_is_exit_3(sample_db: Path, tmp_path: Path,
                                                target: str) -> None:
    (tmp_path / "adir.csv").mkdir()
    (tmp_path / "afile").write_text("x")
    proc = cli("label", "export", "rec-thorough", "--out", str(tmp_path / target),
               "--db", str(sample_db))
    assert proc.returncode == 3, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"{target} [--out]" in proc.stderr, proc.stderr


def test_a_long_cell_is_data_not_a_csv_error(sample_db: Path, tmp_path: Path) -> None:
    import csv

    with SAMPLE_LABELS.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    rows[0]["notes"] = "y" * 200_000  # an exported answer or evidence cell can be this long
    sheet = tmp_path / "sheet.csv"
    with sheet.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    proc = cli("label", "import", str(sheet), "--db", str(sample_db))
    assert proc.returncode == 0, proc.stderr
    assert f"{len(rows)} label(s) added" in proc.stdout, proc.stdout
