"""The `command` provider (context JSON on stdin, packet JSON on stdout) and
`rcaeval judge --semantic` through the CLI."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from semantic_kit import BLENDED_CASE, CASES, RUN, contexts_of, files_of, needs_sample

import rcaeval.store as st
from rcaeval.cli import main
from rcaeval.semantic import SemanticConfig, SemanticPacket
from rcaeval.semantic._flow import ask

pytestmark = needs_sample
SCRIPT = Path(__file__).parent / "agents" / "fake_semantic_command.py"


def _provider(mode: str) -> str:
    return "command:" + shlex.join([sys.executable, str(SCRIPT), mode])


def test_judge_cli_with_command_provider(sem_audit, baseline, tmp_path, capsys):
    audits, registry = sem_audit
    db, out = tmp_path / "s.duckdb", tmp_path / "out"
    code = main(["judge", str(audits), "--registry", str(registry), "--db", str(db),
                 "--out", str(out), "--workers", "1", "--semantic", _provider("ok"),
                 "--semantic-samples", "3"])
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "semantic status:   4 cases: ok 4; 1 second pass(es), 0 from cache" in printed
    assert "judge tokens:      input 84, output 36 (12 requests)" in printed
    for case in CASES:
        files = files_of(out, case)
        assert files["judgment.json"] == files_of(baseline[0], case)["judgment.json"]
        pkt = SemanticPacket.model_validate_json(files["semantic_packet_v1.json"])
        assert pkt.status == "ok" and pkt.settings.provider == "command"
        assert pkt.settings.samples == 3 and pkt.usage.input_tokens == 21
        assert pkt.usage.cost_usd == pytest.approx(0.003)
        assert pkt.checks[0].rationale == "sample 0"
    blended = json.loads(files_of(out, BLENDED_CASE)["judgment_blended.json"])
    assert blended["verdict"] == "pass"
    with st.connect(db, read_only=True) as s:
        assert s.con.execute("SELECT count(*) FROM eval_judgment_blended").fetchall() == [(1,)]


@pytest.mark.parametrize(("mode", "status", "detail"), [
    ("exit1", "provider_failure", "exited 1: judge exploded"),
    ("malformed", "provider_failure", "malformed answer"),
    ("partial", "provider_failure", "no verdict for"),
    ("hang", "timeout", "within 1s"),
])
def test_command_failures(baseline, mode, status, detail):
    cfg = SemanticConfig(provider=_provider(mode), timeout_s=1.0)
    for packet, _ in ask(st.connect(":memory:").con, contexts_of(baseline), cfg).values():
        assert packet["status"] == status and detail in packet["detail"]
        assert packet["checks"] == [] and packet["run_id"] == RUN


def test_command_fail_all_agrees_with_failing_detectors(baseline):
    cfg = SemanticConfig(provider=_provider("fail_all"))
    answered = ask(st.connect(":memory:").con, contexts_of(baseline), cfg)
    pkt = SemanticPacket.model_validate(answered[(RUN, BLENDED_CASE)][0])
    assert all(c.verdict == "fail" for c in pkt.checks)
    assert {c.agrees for c in pkt.checks} == {True, False}
