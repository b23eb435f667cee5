"""The lab suite's generated registry and the oracle's target reading (fast: no lab)."""

from __future__ import annotations

from datetime import UTC, datetime

from rcaeval.examples.lab_agent import resolve_target
from rcaeval.lab import load_scenarios
from rcaeval.lab._scenario import OracleTarget
from rcaeval.lab._suite import SUITE_ID, write_registry
from rcaeval.registry import iter_suite_cases, load_suite


def test_the_generated_registry_loads_with_every_scenario(tmp_path) -> None:
    scenarios = load_scenarios()
    root = write_registry(tmp_path / "reg", scenarios,
                          start=datetime(2026, 12, 2, 6, 0, tzinfo=UTC))
    suite = load_suite(root, SUITE_ID)
    assert suite.execution.tools == "mcp" and suite.execution.jobs == 1
    entries = list(iter_suite_cases(root, SUITE_ID))
    assert [e.entry.id for e in entries] == [sc.id for sc in scenarios]
    for entry in entries:
        assert entry.case is not None, entry.problems
    # rewriting with the same window leaves the files as they are (no churn, same rules)
    before = {p: p.stat().st_mtime_ns for p in root.rglob("*.yaml")}
    write_registry(root, scenarios, start=datetime(2026, 12, 2, 6, 0, tzinfo=UTC))
    assert {p: p.stat().st_mtime_ns for p in root.rglob("*.yaml")} == before


def test_every_shipped_scenario_has_an_oracle_whose_answer_fires_its_detectors() -> None:
    import re

    for sc in load_scenarios():
        assert sc.oracle is not None, sc.id
        for name, det in sc.judge.detectors.items():
            assert any(re.search(p, sc.oracle.root_cause, re.I) for p in det.any), (sc.id, name)


def test_oracle_targets_are_read_from_results() -> None:
    results = [{"rows": [{"pid": 7, "blocked_by": [41, 42]}, {"pid": 8, "blocked_by": [41]}]},
               {"processes": [{"pid": 30, "program": "pgbench", "age_s": 90.0},
                              {"pid": 31, "program": "pgbench", "age_s": 12.5},
                              {"pid": 32, "program": "postgres", "age_s": 1.0}]}]
    assert resolve_target(OracleTarget(step=0, rows="rows", field="blocked_by"),
                          results) == "41,42"
    assert resolve_target(OracleTarget(step=1, rows="processes", field="pid",
                                       where={"program": "pgbench"}, order_by="age_s",
                                       first=True), results) == "31"
    assert resolve_target("pgbench_accounts.aid", results) == "pgbench_accounts.aid"


def test_the_default_registry_is_state_outside_the_source_tree(tmp_path, monkeypatch) -> None:
    from pathlib import Path

    import rcaeval
    from rcaeval.lab._suite import registry_root

    monkeypatch.delenv("RCAEVAL_LAB_REGISTRY", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert registry_root() == tmp_path / "state" / "rcaeval" / "lab-registry"
    monkeypatch.delenv("XDG_STATE_HOME")
    default = registry_root()
    assert default == Path.home() / ".local" / "state" / "rcaeval" / "lab-registry"
    checkout = Path(rcaeval.__file__).resolve().parent.parent
    assert checkout not in default.resolve().parents
    monkeypatch.setenv("RCAEVAL_LAB_REGISTRY", str(tmp_path / "mine"))
    assert registry_root() == tmp_path / "mine"


def test_a_run_scoped_case_id_is_a_valid_separator_free_id() -> None:
    import pytest

    from rcaeval.errors import InputError
    from rcaeval.lab._suite import run_case_id

    assert run_case_id("lab-dropped-index", "lab-20261202T123000-a1b2c3") == \
        "lab-dropped-index-lab-20261202t123000-a1b2c3"
    assert run_case_id("lab-dropped-index", "r1", 3) == "lab-dropped-index-r1-3"
    assert run_case_id("lab-dropped-index", "../../etc/x") == "lab-dropped-index-etc-x"
    with pytest.raises(InputError):
        run_case_id("lab-dropped-index", "x" * 200)


def test_the_registry_is_not_written_through_a_symlink(tmp_path) -> None:
    import pytest

    from rcaeval.errors import InputError

    scenarios = load_scenarios()
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "reg" / "cases").mkdir(parents=True)
    (tmp_path / "reg" / "cases" / scenarios[0].id).symlink_to(outside)
    with pytest.raises(InputError, match="symlink"):
        write_registry(tmp_path / "reg", scenarios)
    assert list(outside.iterdir()) == []
