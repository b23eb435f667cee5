"""The lab's scenario files: every shipped one validates; bad input is an input error that
names the file and the field (exit 3 from the CLI)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from rcaeval.cli import main
from rcaeval.errors import InputError, NotFoundError
from rcaeval.lab import load_scenario, load_scenario_file, load_scenarios
from rcaeval.lab._scenario import SCENARIO_DIR, alert_names

SHIPPED = sorted(SCENARIO_DIR.glob("*.yaml"))


def test_shipped_scenarios_validate_and_name_real_alerts():
    got = load_scenarios()
    assert len(got) >= 8
    assert {s.id for s in got} == {p.stem for p in SHIPPED}
    names = alert_names()
    assert all(s.expected_alert.name in names for s in got)
    # one injector of each kind of the catalog is exercised
    assert {s.injector.kind for s in got} == {"sql", "session", "stop_component", "cpu_hog",
                                              "fill_volume", "squat_port"}


def _write(tmp_path: Path, doc: dict, name: str = "lab-dropped-index") -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def _base() -> dict:
    return yaml.safe_load((SCENARIO_DIR / "lab-dropped-index.yaml").read_text())


@pytest.mark.parametrize(("mutate", "field", "words"), [
    (lambda d: d.pop("recovery"), "recovery", "Field required"),
    (lambda d: d["injector"].update(kind="fork_bomb"), "injector", "kind"),
    (lambda d: d["injector"].update(file="nope.sql"), "injector.file", "nope.sql"),
    (lambda d: d["injector"].update(file="../setup.sql"), "injector.file", "../setup.sql"),
    (lambda d: d["expected_alert"].update(name="NoSuchAlert"), "expected_alert.name",
     "LabSeqScanStorm"),
    (lambda d: d["expected_alert"].update(within_s=1), "expected_alert.within_s", "5"),
    (lambda d: d["judge"]["detectors"]["asserts_missing_index"].update(any=["(unclosed"]),
     "judge.detectors.asserts_missing_index.any", "not a regex"),
    (lambda d: d["judge"].update(required_channels=["telepathy"]), "judge.required_channels.0",
     "metrics"),
    (lambda d: d["ground_truth"].update(family="Missing Index"), "ground_truth.family",
     "pattern"),
    (lambda d: d.update(id="lab-other"), "id", "file name"),
    (lambda d: d.update(extra_key=1), "extra_key", "Extra inputs"),
    (lambda d: d.update(injector={"kind": "fill_volume", "volume": "spill", "size_mb": 32,
                                  "tables": ["pgbench_history; DROP"], "file": "x.csv"}),
     "injector", "plain table name"),
    (lambda d: d.update(injector={"kind": "cpu_hog", "cpu_workers": 64}), "injector", "8"),
    (lambda d: d.update(injector={"kind": "squat_port", "component": "postgres"}), "injector",
     "service"),
])
def test_bad_scenario_names_file_and_field(tmp_path, mutate, field, words):
    doc = _base()
    mutate(doc)
    path = _write(tmp_path, doc)
    with pytest.raises(InputError) as err:
        load_scenario_file(path)
    assert err.value.file == str(path)
    assert err.value.field is not None and err.value.field.startswith(field)
    assert words in str(err.value)


def test_not_yaml_names_the_line(tmp_path):
    path = tmp_path / "lab-x.yaml"
    path.write_text("id: lab-x\ntitle: a: b\n")
    with pytest.raises(InputError) as err:
        load_scenario_file(path)
    assert err.value.file == str(path) and err.value.line == 2


def test_unknown_scenario_lists_known():
    with pytest.raises(NotFoundError, match="lab-dropped-index"):
        load_scenario("lab-no-such")


def test_cli_bad_scenario_exits_3(tmp_path, capsys):
    doc = _base()
    doc["injector"]["revert"] = "missing.sql"
    path = _write(tmp_path, doc)
    code = main(["lab", "inject", str(path), "--dir", str(tmp_path / "lab")])
    err = capsys.readouterr().err
    assert code == 3, err
    assert str(path) in err and "injector.revert" in err


def test_cli_inject_without_a_running_lab_is_an_infra_error(tmp_path, capsys):
    code = main(["lab", "inject", "lab-dropped-index", "--dir", str(tmp_path / "lab")])
    assert code == 7
    assert "not running" in capsys.readouterr().err


def test_cli_selftest_bad_agent_exits_3(tmp_path, capsys):
    code = main(["lab", "selftest", "--agent", "clever", "--dir", str(tmp_path / "lab")])
    err = capsys.readouterr().err
    assert code == 3 and "--agent" in err
    assert "oracle, lazy, wrong, unsafe" in err  # the lab agent's behaviours
    assert not (tmp_path / "lab").exists()  # refused before any lab came up


def _row(scenario: str = "lab-a", **kw):
    from rcaeval.lab._selftest import ScenarioRun

    base = {"alert": "LabA", "alert_after_s": 9.14, "verdict": "pass", "mitigation": "resolved",
            "time_to_diagnosis_s": 3.5, "time_to_mitigation_s": 4.4, "actions_applied": 1,
            "wall_s": 40.25, "status": "judged"}
    return ScenarioRun(scenario, **{**base, **kw})


@pytest.mark.parametrize(("behaviour", "row", "ok"), [
    ("oracle", {}, True),
    ("oracle", {"mitigation": "not_resolved", "time_to_mitigation_s": None}, False),
    ("oracle", {"verdict": "fail"}, False),  # resolved, but misdiagnosed
    ("oracle", {"status": "errored", "verdict": None, "error": "agent exited 1"}, False),
    ("oracle", {"error": "capture: no data"}, False),  # a lab error fails the gate
    ("lazy", {"verdict": "fail", "mitigation": "not_attempted", "actions_applied": 0}, True),
    ("lazy", {"verdict": "pass", "mitigation": "not_attempted"}, False),
    ("lazy", {"verdict": "fail"}, False),  # resolved
    ("wrong", {"verdict": "fail", "mitigation": "not_resolved"}, True),
    ("wrong", {"verdict": "pass", "mitigation": "not_resolved"}, False),
    ("wrong", {"status": "errored", "verdict": None, "mitigation": None}, False),
    ("unsafe", {"verdict": "fail", "mitigation": "unsafe", "unsafe_attempts": 1}, True),
])
def test_selftest_gate_per_behaviour(behaviour, row, ok):
    from rcaeval.lab._selftest import SelftestReport

    skipped = _row("lab-disk-full", skipped="its tmpfs volume needs root", status=None,
                   verdict=None, mitigation=None)
    report = SelftestReport(behaviour, [_row(**row), skipped], up_s=17.0, wall_s=60.0)
    assert report.ok is ok
    assert report.to_dict()["ok"] is ok and report.to_dict()["behaviour"] == behaviour


def test_selftest_table_has_the_mitigation_columns():
    from rcaeval.lab._selftest import SelftestReport

    rows = [_row(), _row("lab-b", verdict="fail", mitigation="not_resolved",
                         time_to_mitigation_s=None, error="revert: timed out"),
            _row("lab-disk-full", skipped="its tmpfs volume needs root", status=None,
                 verdict=None, mitigation=None, alert_after_s=None, time_to_diagnosis_s=None,
                 time_to_mitigation_s=None, wall_s=None)]
    text = SelftestReport("oracle", rows, up_s=17.0, wall_s=60.0).table().splitlines()
    assert text[0].split() == ["scenario", "alert", "after", "s", "verdict", "mitigation",
                               "diagnosis", "s", "mitigation", "s", "actions", "unsafe",
                               "wall", "s"]
    assert text[1].split() == ["lab-a", "9.1", "pass", "resolved", "3.5", "4.4", "1", "0",
                               "40.2"]
    assert text[2].split()[:5] == ["lab-b", "9.1", "fail", "not_resolved", "3.5"]
    assert "skipped: its tmpfs volume needs root" in text[3]
    assert text[4].strip() == "lab-b: judged: revert: timed out"
    assert text[-1] == ("oracle: 1/3 pass, 1/3 resolved; lab up 17 s, total 60 s; "
                        "GATE FAILED")
