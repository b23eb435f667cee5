"""`rcaeval doctor` on a good set-up (exit 0: the sample registry, a fresh store, the example
ACP agent's handshake) and a broken one (exit 7: a corrupt store, a case that does not load,
an agent that does not speak ACP, a missing executable), each finding with what to do."""

from __future__ import annotations

import shlex
import sys

import orjson

from rcaeval.cli import main
from rcaeval.doctor import run_checks


def test_doctor_on_a_good_set_up(tmp_path, capsys):
    spec = f"acp:{shlex.quote(sys.executable)} -m rcaeval.examples.example_agent"
    code = main(["doctor", "--suite", "smoke", "--agent", spec, "--db",
                 str(tmp_path / "new.duckdb"), "--json"])
    doc = orjson.loads(capsys.readouterr().out)
    assert code == 0, doc
    assert doc["ok"] is True
    got = {c["name"]: c for c in doc["checks"]}
    assert {k: got[k]["status"] for k in ("python", "packages", "store", "registry", "suite",
                                          "agent")} == dict.fromkeys(
        ("python", "packages", "store", "registry", "suite", "agent"), "ok")
    assert "ACP handshake ok (rcaeval-example-agent" in got["agent"]["detail"]
    assert got["sandbox"]["status"] in ("ok", "warn")


def test_doctor_on_a_broken_set_up(tmp_path, make_registry, capsys):
    reg = make_registry(["tikv-panic-restart-001", "disk-full-tikv-001"],
                        broken=("disk-full-tikv-001",))
    db = tmp_path / "corrupt.duckdb"
    db.write_bytes(b"this is not a duckdb file\n" * 100)
    spec = f"acp:{shlex.quote(sys.executable)} -c 'print(42)'"
    code = main(["doctor", "--suite", "mini", "--registry", str(reg), "--db", str(db),
                 "--agent", spec, "--timeout", "10"])
    out = " ".join(capsys.readouterr().out.split())
    assert code == 7, out
    assert f"fail store: {db} cannot be opened" in out
    assert "fail registry:" in out and "disk-full-tikv-001" in out
    assert "fail suite: suite mini: 2 case(s), 1 do not load: disk-full-tikv-001" in out
    assert "fail agent:" in out and "ACP handshake failed" in out
    assert "fix: rcaeval validate" in out
    checks = {c.name: c for c in run_checks(agent="command:/nonexistent/agent --x")}
    assert checks["agent"].status == "fail" and "not found" in checks["agent"].detail
    assert checks["agent"].fix
