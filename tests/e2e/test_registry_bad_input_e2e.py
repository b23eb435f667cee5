"""Bad registry input and unknown case ids, end to end through the real CLI.

Standard: "malformed YAML/JSON, missing files, non-UTF-8 text ... gets a clear error naming the
file and field, marks only the affected case, and loses no other data". A copy of
data/registry gets five broken cases (non-UTF-8 case.yaml, YAML syntax error, an anchor/alias
"billion laughs" bomb, a recursive anchor, 2,000-deep nesting); ``rcaeval validate`` must name
each file (and line/field) quickly under a 1 GiB address-space cap, and ``rcaeval judge`` must
judge every other case normally.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from e2e_kit import (
    HAVE_SAMPLE,
    RECORDED,
    REGISTRY,
    VALIDATE_MEMORY_CAP,
    CliResult,
    copy_case,
    judgments,
    query,
    run_cli,
)

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not HAVE_SAMPLE, reason="sample data/recorded not generated")]

RUN = "rec-thorough"


def _bomb() -> str:
    text = "lol0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    for i in range(1, 10):  # 10**9 leaves once expanded
        text += f"lol{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]\n"
    return text


@dataclass(frozen=True)
class Broken:
    case_id: str
    file: str
    code: str
    line: int | None
    field: str
    message: str


def _break_registry(reg: Path) -> list[Broken]:
    cases = reg / "cases"
    out: list[Broken] = []

    p = cases / "cpu-hotspot-region-001/case.yaml"
    lines = p.read_bytes().split(b"\n")
    assert lines[1].startswith(b"title:")
    lines[1] += b" caf\xe9 \xff"
    p.write_bytes(b"\n".join(lines))
    out.append(Broken("cpu-hotspot-region-001", "cases/cpu-hotspot-region-001/case.yaml",
                      "unreadable", 2, "title", "not valid UTF-8: byte(s) e9"))

    p = cases / "disk-full-tikv-001/judge.yaml"
    text = p.read_text(encoding="utf-8").split("\n")
    line_no = next(i for i, t in enumerate(text) if t.startswith("ground_truth:")) + 1
    text.insert(line_no, "  oops: [unclosed, {")
    p.write_text("\n".join(text), encoding="utf-8")
    out.append(Broken("disk-full-tikv-001", "cases/disk-full-tikv-001/judge.yaml",
                      "yaml_syntax", None, "", "YAML syntax error"))

    p = cases / "kill-query-chain-001/judge.yaml"
    p.write_text(p.read_text(encoding="utf-8") + _bomb(), encoding="utf-8")
    out.append(Broken("kill-query-chain-001", "cases/kill-query-chain-001/judge.yaml",
                      "yaml_syntax", None, "lol4", "anchor/alias bomb"))

    p = cases / "mvcc-gc-buildup-001/judge.yaml"
    p.write_text(p.read_text(encoding="utf-8") + "loop: &x [1, *x]\n", encoding="utf-8")
    out.append(Broken("mvcc-gc-buildup-001", "cases/mvcc-gc-buildup-001/judge.yaml",
                      "yaml_syntax", None, "", "recursive anchor"))

    p = cases / "pd-leader-election-storm-001/judge.yaml"
    p.write_text(p.read_text(encoding="utf-8") + "deep: " + "[" * 2000 + "]" * 2000 + "\n",
                 encoding="utf-8")
    out.append(Broken("pd-leader-election-storm-001",
                      "cases/pd-leader-election-storm-001/judge.yaml", "yaml_syntax", None, "",
                      "nesting is too deep"))
    return out


@dataclass(frozen=True)
class BrokenRegistry:
    root: Path
    registry: Path
    broken: list[Broken]
    validate: CliResult


@pytest.fixture(scope="module")
def broken_registry(tmp_path_factory: pytest.TempPathFactory) -> BrokenRegistry:
    root = tmp_path_factory.mktemp("registry_e2e")
    reg = root / "registry"
    shutil.copytree(REGISTRY, reg)
    broken = _break_registry(reg)
    result = run_cli("validate", "--registry", reg, "--format", "json", timeout=120,
                     memory_cap=VALIDATE_MEMORY_CAP)
    return BrokenRegistry(root, reg, broken, result)


def test_validate_names_each_broken_file_quickly(broken_registry: BrokenRegistry) -> None:
    res = broken_registry.validate
    assert res.returncode == 3, res.output
    report = json.loads(res.stdout)
    assert report["counts"]["cases"] == 13  # every case is still accounted for
    by_file: dict[str, list[dict]] = {}
    for p in report["problems"]:
        by_file.setdefault(p["file"], []).append(p)
    assert set(by_file) == {b.file for b in broken_registry.broken}, by_file
    for b in broken_registry.broken:
        (problem,) = by_file[b.file]
        assert problem["code"] == b.code, problem
        assert b.message in problem["message"], problem
        assert problem["field"] == b.field, problem
        if b.line is not None:
            assert problem["line"] == b.line, problem
    bomb = by_file["cases/kill-query-chain-001/judge.yaml"][0]
    assert bomb["line"] is not None and bomb["line"] > 100  # the appended lol4 key


def test_judge_with_broken_registry_marks_only_affected_cases(
        broken_registry: BrokenRegistry) -> None:
    root = broken_registry.root
    db, out = root / "judge_broken.duckdb", root / "judge_broken_out"
    res = run_cli("judge", RECORDED / RUN, "--registry", broken_registry.registry,
                  "--db", db, "--out", out)
    assert res.returncode == 0, res.output
    got = judgments(db)
    broken = {b.case_id: b for b in broken_registry.broken}
    cases = sorted(p.name for p in (RECORDED / RUN).iterdir() if p.is_dir())
    for case_id in cases:
        row = got.get((RUN, case_id))
        if case_id in broken:
            assert row is not None and row["verdict"] == "invalid", (case_id, row)
            assert broken[case_id].file.split("/", 2)[-1] in row["reason"], row
        else:
            assert row is not None and (row["verdict"], row["score"]) == ("pass", 100.0), (
                case_id, row)


def test_judge_with_broken_registry_never_hangs_or_crashes(
        broken_registry: BrokenRegistry) -> None:
    """Whatever the policy, a broken registry is an input error naming the file, never a
    hang, a traceback or an internal error (exit 5)."""
    root = broken_registry.root
    db = root / "judge_broken2.duckdb"
    # a hang is caught by run_cli's timeout (no wall-clock assertion: CI machines are loaded)
    res = run_cli("judge", RECORDED / RUN, "--registry", broken_registry.registry,
                  "--db", db, "--no-files", timeout=300)
    assert res.returncode in (0, 3), res.output
    assert "Traceback" not in res.output
    if res.returncode == 3:
        assert any(b.file.split("/", 1)[1] in res.output.replace("\n", "")
                   for b in broken_registry.broken), res.output


@pytest.fixture(scope="module")
def unknown_case_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, CliResult]:
    root = tmp_path_factory.mktemp("unknown_case_e2e")
    audits = root / "audits"
    shutil.copytree(RECORDED / RUN, audits / RUN)
    dest = copy_case(RUN, "tikv-panic-restart-001", audits / "bad-unknown" / "no-such-case-001",
                     run_id="bad-unknown")
    manifest = json.loads((dest / "manifest.json").read_text())
    manifest["case_id"] = "no-such-case-001"
    (dest / "manifest.json").write_text(json.dumps(manifest))
    db = root / "unknown.duckdb"
    res = run_cli("judge", audits, "--registry", REGISTRY, "--db", db, "--out", root / "out")
    return db, res


def test_unknown_case_id_is_a_clear_error_not_a_crash(
        unknown_case_run: tuple[Path, CliResult]) -> None:
    _, res = unknown_case_run
    assert res.returncode in (0, 6), res.output
    assert "Traceback" not in res.output
    assert "no-such-case-001" in res.output.replace("\n", "")


def test_unknown_case_id_does_not_abort_the_others(
        unknown_case_run: tuple[Path, CliResult]) -> None:
    db, res = unknown_case_run
    assert res.returncode == 0, res.output
    got = judgments(db)
    cases = sorted(p.name for p in (RECORDED / RUN).iterdir() if p.is_dir())
    for case_id in cases:
        assert got[(RUN, case_id)]["verdict"] == "pass", case_id
    row = got.get(("bad-unknown", "no-such-case-001"))
    if row is None:  # skipped: then the run output must say so
        assert "no-such-case-001" in res.output.replace("\n", ""), res.output
    else:
        assert row["verdict"] == "invalid" and "registry" in row["reason"], row
    assert query(db, "SELECT count(*) FROM raw_bundle WHERE run_id = ?", [RUN]) == [(13,)]
