"""The sandbox a run's agents got is recorded per run (eval_runs.sandbox) and shown in
report.txt, the results JSON, JUnit and the run page - so a CI job can see the information
boundary was on. Driven through the real CLI."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import orjson
import pytest

from rcaeval.cli import main
from rcaeval.runner._sandbox import bwrap_path

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("mode,expect", [("none", "none"), ("require", "bwrap")])
def test_the_effective_sandbox_is_in_every_result(mode, expect, paths, make_registry,
                                                  db_query, tmp_path, capsys):
    if mode == "require" and bwrap_path() is None:
        pytest.skip("bubblewrap is not installed")
    reg = make_registry(["tikv-panic-restart-001"])
    run_id = f"sb-{mode}"
    results, junit = tmp_path / "results.json", tmp_path / "junit.xml"
    code = main(["run", "--suite", "mini", "--registry", str(reg), "--db", str(paths["db"]),
                 "--audit-root", str(paths["audits"]), "--no-progress", "--agent",
                 "replay:thorough", "--sandbox", mode, "--run-id", run_id,
                 "--results-json", str(results), "--junit-xml", str(junit)])
    capsys.readouterr()
    assert code == 0
    assert db_query(paths["db"], "SELECT sandbox FROM eval_runs WHERE run_id = ?",
                    [run_id]) == [(expect,)]
    report = (paths["audits"] / run_id / "report.txt").read_text()
    assert f"sandbox:           {expect}\n" in report
    assert orjson.loads(results.read_bytes())["run"]["sandbox"] == expect
    props = {p.get("name"): p.get("value") for p in ET.parse(junit).iter("property")}
    assert props["sandbox"] == expect


def test_the_run_page_lists_the_sandbox():
    nb = orjson.loads((REPO / "notebooks" / "run_report.ipynb").read_bytes())
    sources = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    assert any('"judge_version", "sandbox"]' in s for s in sources)
