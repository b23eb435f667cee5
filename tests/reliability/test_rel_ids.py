"""Ids that cannot escape their directories, and workspaces an agent cannot turn against the
runner (docs/reliability.md, "Ids and paths"): run and case ids from the command line and
from manifest.json, an agent replacing or deleting its own workspace."""

from __future__ import annotations

import shutil

import orjson
import pytest
from reliability_kit import CASES, THOROUGH, hostile_args, make_registry, query, rcaeval

from rcaeval._ids import child_path, id_problem
from rcaeval.errors import InputError

BAD_IDS = ["../../escaped", "/abs/escaped", "a\x00b", "..", ".", ".hidden", "-x", "a/b",
           "a\\b", "esc\x1b[2J", "x" * 201, "", " pad", "line\u2028sep", "\ud800"]


@pytest.mark.parametrize("value", BAD_IDS)
def test_unsafe_ids_are_refused(value):
    assert id_problem(value) is not None


def test_child_path_stays_under_its_root_after_resolution(tmp_path):
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "link").symlink_to(tmp_path)
    assert child_path(tmp_path / "root", "run-1", "case.a_b") == tmp_path / "root/run-1/case.a_b"
    with pytest.raises(InputError, match="outside"):
        child_path(tmp_path / "root", "link", "x")


def test_judge_out_with_hostile_manifest_ids_writes_only_under_out(tmp_path):
    audits = tmp_path / "work" / "audits" / "rec"
    shutil.copytree(THOROUGH, audits)
    bad = {CASES[0]: ("run_id", str(tmp_path / "abs-escape")),
           CASES[1]: ("run_id", "../../../escaped"),
           CASES[2]: ("case_id", "nul\x00byte")}
    for cid, (key, value) in bad.items():
        path = audits / cid / "manifest.json"
        doc = orjson.loads(path.read_bytes())
        doc[key] = value
        path.write_bytes(orjson.dumps(doc))
    out = tmp_path / "work" / "out"
    db = tmp_path / "s.duckdb"
    r = rcaeval("judge", str(audits.parent), "--db", str(db), "--out", str(out),
                "--no-progress", cwd=tmp_path / "work")
    assert r.returncode == 3, r.stderr
    assert "Traceback" not in r.stderr
    for cid, (key, _) in bad.items():
        assert f"{cid}/manifest.json [{key}]" in r.stderr.replace("\n", ""), r.stderr
    written = sorted(p.relative_to(out) for p in out.rglob("judgment.json"))
    cases = sorted(p.name for p in THOROUGH.iterdir() if p.is_dir())
    # every case has its judgment.json under --out, the bad ones under their directory names
    assert sorted(p.parent.name for p in written) == cases
    assert {p.parts[0] for p in written if p.parent.name in bad} == {"rec"}
    assert {p.parts[0] for p in written if p.parent.name not in bad} == {THOROUGH.name}
    assert not (tmp_path / "abs-escape").exists() and not (tmp_path / "escaped").exists()
    rows = dict(query(db, "SELECT case_id, verdict || ' ' || coalesce(subtype, '') "
                          "FROM eval_judgment"))
    assert len(rows) == len(cases)
    for cid in bad:
        assert rows[cid] == "invalid bundle_id_invalid"
    assert sum(v.startswith("pass") for v in rows.values()) == len(cases) - len(bad)


@pytest.mark.parametrize("option", ["--run-id", "--resume"])
def test_run_refuses_a_run_id_that_is_not_one_path_part(tmp_path, option):
    reg = make_registry(tmp_path / "reg", CASES[:1])
    r = rcaeval("run", "--suite", "mini", "--registry", str(reg), "--db",
                str(tmp_path / "s.duckdb"), "--audit-root", str(tmp_path / "a" / "b"),
                option, "../../../X", "--agent", "replay:thorough", "--no-progress",
                cwd=tmp_path)
    assert r.returncode == 3, r.stderr
    assert f"[{option}]" in r.stderr and "path separator" in r.stderr
    assert not (tmp_path / "X").exists() and not (tmp_path.parent / "X").exists()


@pytest.mark.parametrize("mode", ["symlink_workspace", "delete_workspace"])
def test_an_agent_replacing_or_deleting_its_workspace_fails_its_case_only(tmp_path, mode):
    reg = make_registry(tmp_path / "reg", CASES[:2])
    target = tmp_path / "target"
    target.mkdir()
    r = rcaeval("run", "--suite", "mini", "--registry", str(reg), "--db",
                str(tmp_path / "s.duckdb"), "--audit-root", str(tmp_path / "a"),
                "--workspace-root", str(tmp_path / "ws"), "--run-id", "w1", "--no-progress",
                "--retries", "0",
                *hostile_args(mode, [CASES[0]], HOSTILE_TARGET=str(target)), cwd=tmp_path)
    assert r.returncode == 0, r.stderr  # the agent's failure, not an infrastructure error
    assert list(target.iterdir()) == []  # nothing written through the agent's symlink
    rows = {c: (s, e or "") for c, s, e in query(
        tmp_path / "s.duckdb", "SELECT case_id, status, error FROM eval_case_runs")}
    status, error = rows[CASES[0]]
    assert status == "judged" and "its workspace" in error, rows
    assert rows[CASES[1]] == ("judged", "")
    (verdict,), = query(tmp_path / "s.duckdb", "SELECT verdict FROM eval_judgment WHERE "
                        "case_id = ?", [CASES[0]])
    assert verdict in ("fail", "invalid")
