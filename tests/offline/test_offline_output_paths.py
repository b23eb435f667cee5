"""`rcaeval offline`, `rcaeval harness` and `rcaeval baseline diff` refuse an output path that
cannot be written (a directory where a file goes, a file where a directory goes, a path under
a file) with exit 3 naming it and the option, before any work: never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "data" / "offline" / "fixtures.jsonl"
SAMPLES = REPO / "data" / "harness" / "samples.jsonl"
BUNDLES = REPO / "data" / "recorded" / "rec-thorough"

COMMANDS = {
    "mutate-fixtures": (("offline", "mutate", "--fixtures", str(FIXTURES), "--out"), "adir"),
    "mutate-fixtures-under-file": (
        ("offline", "mutate", "--fixtures", str(FIXTURES), "--out"), "afile/m.jsonl"),
    "mutate-bundles": (("offline", "mutate", "--bundles", str(BUNDLES), "--out"), "afile"),
    "sample": (("offline", "sample", "--out"), "afile"),
    "sample-under-file": (("offline", "sample", "--out"), "afile/x"),
    "harness-out": (("harness", str(SAMPLES), "--out"), "adir"),
    "harness-checks-out": (("harness", str(SAMPLES), "--checks-out"), "afile/c.parquet"),
    "baseline-diff": (("baseline", "diff", "some-run", "--db", "none.duckdb", "--out"),
                      "adir"),
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_unwritable_output_is_exit_3(tmp_path: Path, name: str) -> None:
    (tmp_path / "adir").mkdir()
    (tmp_path / "afile").write_text("x")
    args, target = COMMANDS[name]
    proc = subprocess.run([sys.executable, "-m", "rcaeval", *args, target],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 3, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr
    assert f"{target} [--" in proc.stderr, proc.stderr
    assert (tmp_path / "afile").read_text() == "x"


def test_sample_writes_nothing_through_a_symlink_leading_out(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "fixtures.jsonl").symlink_to(tmp_path / "outside.jsonl")
    proc = subprocess.run([sys.executable, "-m", "rcaeval", "offline", "sample", "--out",
                           str(out)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 3, proc.stderr
    assert "outside" in proc.stderr and "[--out]" in proc.stderr
    assert not (tmp_path / "outside.jsonl").exists()
    assert sorted(p.name for p in out.iterdir()) == ["fixtures.jsonl"]
