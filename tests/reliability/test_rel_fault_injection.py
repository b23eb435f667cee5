"""The fault-injection suite (bench/fault_injection.py) at a small count: every section must
end with zero crashes, hangs, lost or duplicated judgments, stranded runs, outside reads and
differing verdicts and wrongly accepted inputs. `python -m bench.fault_injection --n 2000`
runs thousands of inputs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

REPO = Path(__file__).resolve().parents[2]
BAD = ("crashes", "hangs", "lost", "duplicated", "stranded", "outside_reads", "differing",
       "accepted")


def _suite(*args: str) -> list[dict]:
    r = subprocess.run([sys.executable, "-m", "bench.fault_injection", "--json", *args],
                       capture_output=True, text=True, cwd=REPO, timeout=1500)
    tallies = [orjson.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    assert tallies, r.stderr[-3000:]
    for t in tallies:
        assert t["inputs"] > 0, t
        assert all(t[k] == 0 for k in BAD), t
    assert r.returncode == 0, r.stderr[-3000:]
    return tallies


def test_generated_inputs_small_count():
    got = _suite("--n", "8", "--only", "registry", "harness", "usage", "bundles", "ids",
                 "files", "mcp", "escapes")
    assert [t["section"] for t in got] == ["registry YAML", "harness input", "usage reports",
                                           "bundle files", "run and case ids", "input files",
                                           "MCP requests", "registry escapes"]


@pytest.mark.slow
def test_damaged_stores_small_count():
    got = _suite("--n", "200", "--only", "store")
    assert [(t["section"], t["inputs"]) for t in got] == [("damaged stores", 2)]


@pytest.mark.slow
def test_hostile_agents_and_kill_and_resume_small_count():
    got = _suite("--n", "1", "--hostile-rounds", "1", "--kills", "3", "--only", "hostile",
                 "kill")
    assert {t["section"]: t["inputs"] for t in got} == {"hostile agents": 9,
                                                         "kill and resume": 3}
