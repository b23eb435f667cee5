"""An output path that cannot be written (a directory, a device, a path under a file) is exit 3
naming the path and the option, before any work is done: never a traceback (exit 5), and
never a sidecar beside a device (`--out /dev/null` once wrote /dev/null.sha256)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from release_kit import capture, review, write_jsonl  # noqa: E402

import rcaeval.release as rel  # noqa: E402
from rcaeval.errors import InputError  # noqa: E402

WIN = "2026-11-01..2026-11-07"


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rcaeval", *args], capture_output=True,
                          text=True, timeout=300, cwd=cwd)


@pytest.fixture(scope="module")
def window(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("outpaths")
    caps = write_jsonl(root / "c.jsonl", [capture("a"), capture("b")])
    write_jsonl(root / "r.jsonl", [review("r1", "a")])
    proc = _cli("release", "metrics", "--captures", str(caps), "--window", WIN,
                "--out", str(root / "M.json"), cwd=root)
    assert proc.returncode == 0, proc.stderr
    (root / "adir").mkdir()
    (root / "afile").write_text("x")
    return root


COMMANDS = {
    "metrics": ("release", "metrics", "--captures", "c.jsonl", "--window", WIN, "--out", "{}"),
    "gate": ("release", "gate", "M.json", "--json-out", "{}"),
    "compare": ("release", "compare", "--active", "M.json", "--shadow", "M.json",
                "--no-paired", "--json-out", "{}"),
    "candidates": ("release", "candidates", "--reviews", "r.jsonl", "--captures", "c.jsonl",
                   "--out", "{}"),
    "rejected": ("release", "candidates", "--reviews", "r.jsonl", "--captures", "c.jsonl",
                 "--out", "cand.jsonl", "--rejected-out", "{}"),
    "windows": ("release", "windows", "--db", "nostore.duckdb", "--json-out", "{}"),
    "report": ("release", "report", "M.json", "--html", "{}"),
}


@pytest.mark.parametrize("target", ["adir", "afile/x.json"])
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_unwritable_output_is_exit_3_naming_it(window: Path, name: str, target: str) -> None:
    args = [a.replace("{}", target) for a in COMMANDS[name]]
    proc = _cli(*args, cwd=window)
    assert proc.returncode == 3, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr
    assert target in proc.stderr and "[--" in proc.stderr, proc.stderr
    if target.startswith("afile"):
        assert "afile is not a directory" in proc.stderr, proc.stderr


def test_sample_out_that_is_a_file_is_exit_3(window: Path) -> None:
    proc = _cli("release", "sample", "--out", "afile", "--n", "10", cwd=window)
    assert proc.returncode == 3, proc.stderr
    assert "afile [--out]" in proc.stderr and "name a directory" in proc.stderr


def test_write_metrics_json_refuses_a_directory_and_a_device(window: Path) -> None:
    m = rel.measure(window / "c.jsonl", WIN)
    with pytest.raises(InputError, match="is a directory"):
        rel.write_metrics_json(m, window / "adir")
    with pytest.raises(InputError, match="character device"):
        rel.write_metrics_json(m, Path("/dev/null"))
    assert not Path("/dev/null.sha256").exists()


@pytest.mark.parametrize("name", ["../escaped", "/tmp/abs-sample", "", ".hidden"])
def test_sample_name_is_one_file_name_under_out(tmp_path: Path, name: str) -> None:
    (tmp_path / "out").mkdir()
    proc = _cli("release", "sample", "--out", "out", "--n", "10", "--name", name,
                "--no-shadow", cwd=tmp_path)
    assert proc.returncode == 3, proc.stderr
    assert "[--name]" in proc.stderr and "Traceback" not in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    assert list((tmp_path / "out").iterdir()) == []


def test_sample_refuses_a_symlink_leading_outside_out(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "w.parquet").symlink_to(tmp_path / "outside.parquet")
    with pytest.raises(InputError, match="outside"):
        rel.write_sample(out, rel.SampleSpec(n=10), name="w")
    assert not (tmp_path / "outside.parquet").exists()
