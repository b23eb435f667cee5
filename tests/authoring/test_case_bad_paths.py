"""`rcaeval case new --incident` and `case try --answer` on paths that are not what they
should be (docs/cli.md, "Input files and ids"): a FIFO or a directory is exit 3 naming it,
never a hang or a misleading "does not exist"; a missing one is exit 6."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from tests.authoring.conftest import PANIC_CASE, SAMPLE_REGISTRY, rcaeval


def test_case_new_refuses_a_fifo_in_the_incident_data(sample_copy: Path,
                                                      tmp_path: Path) -> None:
    inc = tmp_path / "incident"
    shutil.copytree(SAMPLE_REGISTRY / "cases" / PANIC_CASE / "incident", inc)
    (inc / "logs").mkdir(exist_ok=True)
    os.mkfifo(inc / "logs" / "pipe.log")
    got = rcaeval("case", "new", "fifo-case-001", "--incident", str(inc), "--registry",
                  str(sample_copy))
    assert got.returncode == 3, got.stdout + got.stderr
    assert f"{inc / 'logs' / 'pipe.log'} [--incident]: is a FIFO" in got.stderr
    assert not (sample_copy / "cases" / "fifo-case-001").exists()
    assert [p.name for p in (sample_copy / "cases").iterdir()] == [PANIC_CASE]


def test_case_new_incident_that_is_a_file_or_missing(sample_copy: Path,
                                                     tmp_path: Path) -> None:
    some_file = tmp_path / "metrics.json"
    some_file.write_text("{}")
    got = rcaeval("case", "new", "x-001", "--incident", str(some_file), "--registry",
                  str(sample_copy))
    assert got.returncode == 3, got.stderr
    assert f"{some_file} [--incident]: is not a directory" in got.stderr
    got = rcaeval("case", "new", "x-001", "--incident", str(tmp_path / "nope"), "--registry",
                  str(sample_copy))
    assert got.returncode == 6, got.stderr


def test_case_try_answer_that_is_a_fifo_or_a_dir(sample_copy: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "answer.md"
    os.mkfifo(fifo)
    for path, what in ((fifo, "a FIFO"), (tmp_path, "a directory")):
        got = rcaeval("case", "try", PANIC_CASE, "--answer", str(path), "--registry",
                      str(sample_copy))
        assert got.returncode == 3, got.stdout + got.stderr
        assert f"{path} [--answer]: is {what}, expected a regular file" in got.stderr
    got = rcaeval("case", "try", PANIC_CASE, "--answer", str(tmp_path / "nope.md"),
                  "--registry", str(sample_copy))
    assert got.returncode == 6, got.stderr


def test_case_try_case_id_and_bundle_paths(sample_copy: Path, tmp_path: Path) -> None:
    answer = tmp_path / "answer.md"
    answer.write_text("## Root cause\n\ntikv-2 panicked.\n")
    base = ["case", "try", PANIC_CASE, "--answer", str(answer), "--registry",
            str(sample_copy)]
    got = rcaeval("case", "try", "../../elsewhere", "--answer", str(answer), "--registry",
                  str(sample_copy))
    assert got.returncode == 3, got.stderr
    assert "invalid case id '../../elsewhere'" in got.stderr
    got = rcaeval(*base, "--bundle", str(tmp_path / "nope"))
    assert got.returncode == 6, got.stderr
    got = rcaeval(*base, "--bundle", str(answer))
    assert got.returncode == 3, got.stderr
    assert f"{answer} [--bundle]: is not a directory" in got.stderr
    bundle = tmp_path / "bundle"
    (bundle / "evidences").mkdir(parents=True)
    os.mkfifo(bundle / "evidences" / "queries.json")
    got = rcaeval(*base, "--bundle", str(bundle))
    assert got.returncode == 3, got.stderr
    assert f"{bundle / 'evidences' / 'queries.json'} [--bundle]: is a FIFO" in got.stderr
    assert "Traceback" not in got.stderr
