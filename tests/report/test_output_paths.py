"""Output paths that cannot be written: `report --out FILE`, `db export FILE` (or
`/dev/null`, or a path under a file), `notebook ... --out DIR` / `report --html DIR`. Each
is exit 3 naming the path and the option, never a traceback (exit 5), and a notebook is
refused before it is executed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RCAEVAL_")}
    return subprocess.run([sys.executable, "-m", "rcaeval", *args], capture_output=True,
                          text=True, timeout=300, cwd=cwd, env=env)


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("store")
    db = tmp / "s.duckdb"
    r = _cli("judge", str(REPO / "data" / "recorded" / "rec-thorough"), "--registry",
             str(REPO / "data" / "registry"), "--db", str(db), "--no-files", cwd=tmp)
    assert r.returncode == 0, r.stderr[-2000:]
    return db


def _refused(r: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert r.returncode == 3, (r.returncode, r.stderr[-2000:])
    assert "Traceback" not in r.stderr
    for n in needles:
        assert n in r.stderr, (n, r.stderr[-2000:])


def test_output_directories_that_are_files(tmp_path, store):
    shutil.copy(store, tmp_path / "s.duckdb")
    db = str(tmp_path / "s.duckdb")
    afile = tmp_path / "afile"
    afile.write_text("x")
    _refused(_cli("report", "rec-thorough", "--db", db, "--registry",
                  str(REPO / "data" / "registry"), "--out", str(afile), cwd=tmp_path),
             "afile [--out]", "name a directory")
    for target in (str(afile), "/dev/null", str(afile / "sub")):
        _refused(_cli("db", "export", target, "--db", db, "-t", "eval_runs", cwd=tmp_path),
                 f"{target} [DIRECTORY]")
    assert afile.read_text() == "x"


def test_notebook_outputs_that_are_directories_are_refused_before_executing(tmp_path, store):
    db = str(store)
    (tmp_path / "d.html").mkdir()
    _refused(_cli("notebook", "regression", "rec-thorough", "--db", db, "--registry",
                  str(REPO / "data" / "registry"), "--out", str(tmp_path / "d.html"),
                  cwd=tmp_path), "d.html [--out]", "is a directory")
    (tmp_path / "e.ipynb").mkdir()
    _refused(_cli("notebook", "explore", "--run-a", "rec-thorough", "--run-b", "rec-thorough",
                  "--db", db, "--out", str(tmp_path / "e.html"), cwd=tmp_path),
             "e.ipynb [--out]")
    _refused(_cli("report", "rec-thorough", "--db", db, "--html", str(tmp_path / "d.html"),
                  cwd=tmp_path), "d.html [--html]")
    assert not list(tmp_path.glob("*.html.*")) and not (tmp_path / "e.html").exists()
