"""`rcaeval import rcaeval` on a two-case fixture in RCAEval's RE2 layout
(tests/corpora/data/rcaeval/RE2-OB/<service>_<fault>/<n>/{metrics,logs,traces}.csv +
inject_time.txt): opaque case ids, nothing of the folder names in the workspace, the window
RCAEval's evaluation reads, bad input."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from rcaeval.corpora import import_rcaeval
from rcaeval.registry import load_case, load_registry

DATA = Path(__file__).parent / "data" / "rcaeval" / "RE2-OB"
TRUTH = {"cartservice_cpu/1": ("cartservice", "cpu_exhaustion"),
         "currencyservice_mem/1": ("currencyservice", "memory_exhaustion")}


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("reg")
    report = import_rcaeval(DATA, root)
    assert report.ok, report.skipped
    assert len(report.cases) == 2 and report.suite_id == "rcaeval-re2-ob"
    return root


def test_cases_are_opaque_and_judge_only_knows_the_folder(registry: Path) -> None:
    assert load_registry(registry).problems == []
    got = {}
    for cid in sorted(p.name for p in (registry / "cases").iterdir()):
        assert cid.startswith("re2-ob-") and len(cid) == len("re2-ob-") + 12
        merged = load_case(registry, cid)
        rc = merged.judge.ground_truth.root_cause
        got[merged.judge.corpus.source] = (rc.component, rc.family)
        case_dir = registry / "cases" / cid
        visible = [case_dir / "case.yaml", *sorted((case_dir / "incident").rglob("*"))]
        text = "\n".join(p.read_text() for p in visible if p.is_file())
        paths = "\n".join(str(p.relative_to(case_dir)) for p in visible)
        folder = merged.judge.corpus.source.split("/")[0]
        for needle in (folder, rc.family, rc.family.replace("_", " "), "inject_time"):
            assert needle not in text and needle not in paths, (cid, needle)
    assert got == TRUTH


def test_the_window_is_ten_minutes_either_side_of_the_fault(registry: Path) -> None:
    cid = next(c.name for c in (registry / "cases").iterdir()
               if load_case(registry, c.name).judge.corpus.source == "cartservice_cpu/1")
    merged = load_case(registry, cid)
    assert merged.case.time_window.start.timestamp() == 1700000600 - 600
    assert merged.case.time_window.end.timestamp() == 1700000600 + 600
    assert "at 2023-11-14T22:23:20Z" in merged.case.prompt.text   # the fault's start is given
    inc = registry / "cases" / cid / "incident"
    series = orjson.loads((inc / "metrics.json").read_bytes())["series"]
    assert {(s["name"], s["labels"]["instance"]) for s in series} == {
        (m, s) for s in ("frontend", "cartservice", "checkoutservice", "currencyservice")
        for m in ("cpu", "mem", "latency-90")}
    assert all(len(s["points"]) == 120 for s in series)
    log = (inc / "logs" / "cartservice.log").read_text().splitlines()
    assert any(" ERROR [cartservice] cartservice request failed" in ln for ln in log)
    (check,) = merged.judge.judge.critical_evidence.checks
    assert check.any_of[0].series == "cpu" and check.any_of[0].labels == {
        "instance": "cartservice"}


def test_a_bad_case_dir_is_skipped_by_its_id_only(tmp_path: Path) -> None:
    ds = tmp_path / "RE2-OB"
    shutil.copytree(DATA, ds)
    (ds / "cartservice_cpu" / "1" / "inject_time.txt").write_text("yesterday\n")
    metrics = ds / "currencyservice_mem" / "1" / "metrics.csv"
    lines = metrics.read_text().splitlines(keepends=True)
    lines[40] = lines[40].rsplit(",", 1)[0] + ",fast\n"
    metrics.write_text("".join(lines))
    report = import_rcaeval(ds, tmp_path / "reg")
    assert report.cases == []
    reasons = sorted(s.reason for s in report.skipped)
    assert reasons == ["inject_time.txt line 1: unknown timestamp format 'yesterday'",
                       "metrics.csv line 41: column 'currencyservice_latency-90': 'fast' is "
                       "not a number"]
    for s in report.skipped:
        assert "cartservice" not in s.render() and "currencyservice_mem" not in s.render()
