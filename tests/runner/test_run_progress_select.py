"""The progress bar's ETA and cases in flight; choosing cases with --tag, --case-type and
--limit (suite order kept; nothing matching is a clear not-found)."""

from __future__ import annotations

import io

import pytest
import yaml
from rich.console import Console

from rcaeval.cli import main
from rcaeval.errors import InputError, NotFoundError
from rcaeval.runner import RunProgress, select_cases


def test_bar_shows_eta_and_the_cases_in_flight():
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=160)
    with RunProgress(5, title="smoke", console=console) as bar:
        for cid in ("case-a", "case-b", "case-c", "case-d"):
            bar.started(cid)
        assert bar.flight_text() == "running 4: case-a, case-b, case-c +1"
        bar.record("pass", "case-a")
        bar._progress.refresh()
        assert bar.in_flight == ["case-b", "case-c", "case-d"]
        assert "running 3: case-b, case-c, case-d" in buf.getvalue()
        for cid in ("case-b", "case-c", "case-d"):
            bar.record("fail", cid)
    text = buf.getvalue()
    assert "ETA" in text and "4/5" in text
    assert bar.flight_text() == ""


def test_select_by_tag_case_type_and_limit(make_registry):
    reg = make_registry(["cpu-hotspot-region-001", "disk-full-tikv-001",
                         "fake-alarm-scrape-gap-001", "tikv-panic-restart-001"])
    suite_file = reg / "suites" / "mini.yaml"
    suite = yaml.safe_load(suite_file.read_text())
    suite["cases"][2]["tags"] = ["novel"]  # a suite-level tag
    suite_file.write_text(yaml.safe_dump(suite, sort_keys=False))
    assert select_cases(reg, "mini") is None  # no filter: every case
    assert select_cases(reg, "mini", tags=["novel"]) == ["fake-alarm-scrape-gap-001"]  # suite
    assert select_cases(reg, "mini", tags=["hotspot"]) == ["cpu-hotspot-region-001"]  # case
    assert select_cases(reg, "mini", case_types=["known"]) == [
        "cpu-hotspot-region-001", "disk-full-tikv-001", "tikv-panic-restart-001"]
    assert select_cases(reg, "mini", case_types=["known", "novel"], limit=2) == \
        ["cpu-hotspot-region-001", "disk-full-tikv-001"]
    assert select_cases(reg, "mini", case_ids=["tikv-panic-restart-001",
                                              "fake-alarm-scrape-gap-001"],
                        case_types=["known"]) == ["tikv-panic-restart-001"]
    with pytest.raises(NotFoundError, match="matches --tag nope"):
        select_cases(reg, "mini", tags=["nope"])
    with pytest.raises(InputError, match="--limit"):
        select_cases(reg, "mini", limit=0)


def test_cli_runs_only_the_selected_cases(paths, make_registry, capsys, db_query):
    reg = make_registry(["cpu-hotspot-region-001", "disk-full-tikv-001",
                         "fake-alarm-scrape-gap-001"])
    common = ["run", "--suite", "mini", "--registry", str(reg), "--agent", "replay:thorough",
              "--db", str(paths["db"]), "--audit-root", str(paths["audits"]), "--no-progress"]
    assert main([*common, "--run-id", "t", "--tag", "tikv", "--limit", "1"]) == 0
    # known Top-1 beside the verdicts (suite_known_top1): the one known case names its family
    assert ("t: known Top-1 1/1 = 1.000 [95% CI 0.207, 1.000] (answer names the ground-truth "
            "family)") in capsys.readouterr().out
    assert db_query(paths["db"], "SELECT case_id FROM eval_case_runs") == \
        [("cpu-hotspot-region-001",)]
    assert main([*common, "--run-id", "u", "--case-type", "no_such_type"]) == 6
    assert "no case of suite 'mini' matches --case-type no_such_type" in \
        " ".join(capsys.readouterr().err.split())
    assert main([*common, "--resume", "t", "--tag", "tikv"]) == 3
