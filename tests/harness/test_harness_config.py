from __future__ import annotations

import pytest
from harness_kit import good

from rcaeval.errors import ExitCode, InputError
from rcaeval.harness import HarnessConfig, check


@pytest.mark.parametrize(
    ("var", "value"),
    [("MAX_RCA_REPAIR_ATTEMPTS", "-1"), ("MAX_RCA_REPAIR_ATTEMPTS", "abc"),
     ("MAX_RCA_REPAIR_ATTEMPTS", "2.5"), ("MAX_RCA_REPAIR_ATTEMPTS", "99"),
     ("RCA_HARNESS_PASS_SCORE", "150"), ("RCA_HARNESS_PASS_SCORE", "-1"),
     ("RCA_HARNESS_PASS_SCORE", "nan"), ("RCA_HARNESS_PASS_SCORE", "high"),
     ("ENABLE_RCA_OUTPUT_HARNESS", "maybe"), ("RCA_HARNESS_GATE3_OUTCOME", "withdraw")],
)
def test_invalid_env_values_name_the_variable(monkeypatch, var: str, value: str) -> None:
    monkeypatch.setenv(var, value)
    with pytest.raises(InputError) as exc:
        check(good())
    assert exc.value.field == var and var in str(exc.value) and repr(value) in str(exc.value)
    assert exc.value.exit_code == ExitCode.INVALID_INPUT


def test_env_values_are_read(monkeypatch) -> None:
    monkeypatch.setenv("ENABLE_RCA_OUTPUT_HARNESS", "off")
    monkeypatch.setenv("MAX_RCA_REPAIR_ATTEMPTS", " 1 ")
    monkeypatch.setenv("RCA_HARNESS_PASS_SCORE", "85.5")
    monkeypatch.setenv("RCA_HARNESS_GATE3_OUTCOME", " Degraded ")
    assert HarnessConfig.from_env() == HarnessConfig(False, 1, 85.5, "degraded")


def test_defaults_when_unset_or_empty(monkeypatch) -> None:
    for var in ("ENABLE_RCA_OUTPUT_HARNESS", "MAX_RCA_REPAIR_ATTEMPTS"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("RCA_HARNESS_PASS_SCORE", "")
    monkeypatch.delenv("RCA_HARNESS_GATE3_OUTCOME", raising=False)
    assert HarnessConfig.from_env() == HarnessConfig(True, 3, 70.0, "insufficient_evidence")


def test_explicit_config_beats_env(monkeypatch) -> None:
    monkeypatch.setenv("ENABLE_RCA_OUTPUT_HARNESS", "false")
    r = check(good(), HarnessConfig())
    assert r.status == "passed"
    assert check(good()).status == "disabled"


@pytest.mark.parametrize(
    "kwargs",
    [{"max_repair_attempts": -1}, {"max_repair_attempts": True}, {"pass_score": 101},
     {"pass_score": float("inf")}, {"enabled": "yes"}],
)
def test_invalid_explicit_config(kwargs) -> None:
    with pytest.raises(InputError):
        HarnessConfig(**kwargs)


def test_disabled_returns_response_unchanged_but_scored() -> None:
    d = good()
    d["actions"].append({"text": "Restart everything"})
    d["evidence"][0]["id"] = "zz"
    r = check(d, HarnessConfig(enabled=False))
    assert r.status == "disabled" and r.repairs == []
    assert r.response.evidence[0].id == "zz"  # not even renumbered
    assert r.response.actions[-1].operator_approval is False
    assert not r.gates_passed and r.score.total < 100
    assert r.checks_frame().height == 4 + len(r.score.checks)


def test_gate3_outcome_must_be_known() -> None:
    with pytest.raises(InputError) as exc:
        HarnessConfig(gate3_outcome="withdraw")
    assert exc.value.field == "gate3_outcome"
