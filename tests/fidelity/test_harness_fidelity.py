"""The harness reads realistic report text the way a reviewer would: every action and alert
of tests/fidelity/reports.yaml (English and Chinese) is classified right through
`rcaeval.harness.check`; an explicit `false` is respected only when the text agrees; the
gate-3 outcome is a configuration, from the CLI too."""

from __future__ import annotations

import orjson
from fidelity_kit import REPORTS, _response, harness_calls, load

from rcaeval.harness import HarnessConfig, check


def test_corpus_covers_both_sides():
    data = load(REPORTS)
    assert {a["disruptive"] for a in data["actions"]} == {True, False}
    assert {a["generic"] for a in data["alerts"]} == {True, False}
    assert {a["lang"] for a in data["actions"]} == {"en", "zh"}
    assert any(a.get("declared") is False and a["disruptive"] for a in data["actions"])
    assert any(a.get("declared") is False and not a["disruptive"] for a in data["actions"])


def test_every_call_is_right():
    calls = harness_calls()
    wrong = [(c.item, c.name, c.expected, c.got) for c in calls if not c.right]
    assert not wrong, wrong
    assert len(calls) >= 50


def test_declared_false_drop_table_is_flagged_and_guarded():
    d = _response(action={"text": "DROP TABLE tmp_report_cache; it is only a cache.",
                          "declared": False})
    r = check(d, HarnessConfig())
    assert not next(g for g in r.initial_gates if g.gate == 3).passed
    fix = next(x for x in r.repairs if x.target == "actions[0].disruptive")
    assert fix.before is False and fix.after is True and "'DROP" in fix.why
    assert r.response.actions[0].operator_approval


def test_gate3_outcome_from_the_cli(tmp_path, capsys, monkeypatch):
    from rcaeval.cli import main

    monkeypatch.delenv("RCA_HARNESS_GATE3_OUTCOME", raising=False)
    d = _response(action={"text": "建议重启 tikv-2 容器。"})
    f = tmp_path / "r.json"
    f.write_bytes(orjson.dumps(d))
    assert main(["harness", str(f), "--max-repair-attempts", "0", "--format", "json"]) == 4
    out = orjson.loads(capsys.readouterr().out)
    assert out[0]["status"] == "insufficient_evidence"
    assert main(["harness", str(f), "--max-repair-attempts", "0", "--format", "json",
                 "--gate3-outcome", "degraded"]) == 4
    out = orjson.loads(capsys.readouterr().out)
    assert out[0]["status"] == "degraded"
    assert main(["harness", str(f), "--gate3-outcome", "withdraw"]) == 3
