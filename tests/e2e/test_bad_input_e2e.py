"""Bad input, end to end through the real CLI (issue "Bad input" + the project standard).

One audits tree holds three untouched recorded runs (thorough, misdiagnosis, shallow) and one
run per corruption, each a copy of ``rec-thorough/tikv-panic-restart-001`` corrupted in ONE
way. ``rcaeval judge`` runs once as a subprocess over the whole tree (module fixture); a
second run over the untouched runs alone gives the clean reference. Asserted: exit 0; every
untouched case gets exactly its clean verdict, score and judgment.json bytes; each corrupted
case gets a clear reason naming the file (raw_file / raw_bundle / eval_check /
eval_judgment); nothing outside a case dir is ever read -- a secret behind outside symlinks
appears in no DuckDB column and no judgment.json, and an outside FIFO behind a symlink would
hang the run if it were ever opened.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from e2e_kit import (
    HAVE_SAMPLE,
    RECORDED,
    REGISTRY,
    CliResult,
    copy_case,
    expected_verdicts,
    judgments,
    query,
    run_cli,
    tables_containing,
)

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not HAVE_SAMPLE, reason="sample data/recorded not generated")]

SECRET = "E2E-SECRET-5f0c1a77d3"
CASE = "tikv-panic-restart-001"
SOURCE_RUN = "rec-thorough"
UNTOUCHED_RUNS = ("rec-thorough", "rec-misdiagnosis", "rec-shallow")
MIB = 1024 * 1024
PASSWD = Path("/etc/passwd")


# --------------------------------------------------------------------------- corruptions
def _truncate_half(case: Path, _: Path) -> None:
    p = case / "evidences/metrics.json"
    data = p.read_bytes()
    p.write_bytes(data[: len(data) // 2])


def _logs_not_utf8(case: Path, _: Path) -> None:
    p = case / "evidences/logs.json"
    data = p.read_bytes()
    at = data.index(b"FATAL")
    p.write_bytes(data[:at] + b"\xff\xfe\xc3(" + data[at:])


def _queries_40mb(case: Path, _: Path) -> None:
    p = case / "evidences/queries.json"  # sparse: 40 MiB of NULs, real size on stat and read
    with open(p, "r+b") as fh:
        fh.truncate(40 * MIB)


def _patch_not_json(case: Path, _: Path) -> None:
    (case / "analysis_patch.json").write_text("items:\n  - id: A1\n    refs: [L-1]\n")


def _patch_escaping_refs(case: Path, _: Path) -> None:
    p = case / "analysis_patch.json"
    doc = json.loads(p.read_text())
    doc["items"][0]["refs"] = [{"type": "log", "id": "../../etc/passwd"},
                               {"type": "metric", "id": "/etc/passwd"}]
    p.write_text(json.dumps(doc))


def _symlink_file_outside(case: Path, outside: Path) -> None:
    (case / "evidences/component_health.json").unlink()
    os.symlink(outside / "component_health.json", case / "evidences/component_health.json")
    # Opening this would block the whole run forever: proves it is never opened.
    os.symlink(outside / "trap.fifo", case / "evidences/host.json")


def _symlink_evidences_dir(case: Path, outside: Path) -> None:
    shutil.rmtree(case / "evidences")
    os.symlink(outside / "bundle/evidences", case / "evidences")


def _symlink_workspace_bundle(case: Path, outside: Path) -> None:
    shutil.rmtree(case / "evidences")
    (case / "workspace").mkdir()
    os.symlink(outside / "bundle", case / "workspace/ws-evil")


def _symlink_workspace_root(case: Path, outside: Path) -> None:
    shutil.rmtree(case / "evidences")
    os.symlink(outside / "workspaces", case / "workspace")


def _symlink_opencode_dir(case: Path, outside: Path) -> None:
    shutil.rmtree(case / ".opencode")
    os.symlink(outside / "opencode", case / ".opencode")


def _output_fifo(case: Path, _: Path) -> None:
    (case / "output.txt").unlink()
    os.mkfifo(case / "output.txt")


def _output_dir(case: Path, _: Path) -> None:
    (case / "output.txt").unlink()
    (case / "output.txt").mkdir()
    (case / "output.txt/answer.md").write_text("## Root cause\nTiKV panicked.\n")


def _output_to_passwd(case: Path, _: Path) -> None:
    (case / "output.txt").unlink()
    os.symlink(PASSWD, case / "output.txt")


def _manifest_list(case: Path, _: Path) -> None:
    (case / "manifest.json").write_text('["run_id", "case_id"]')


def _report_empty(case: Path, _: Path) -> None:
    (case / "evidences/workspace_evidence_report.json").write_text("{}")


def _empty_case_dir(case: Path, _: Path) -> None:
    shutil.rmtree(case)
    case.mkdir()


def _telemetry_binary(case: Path, _: Path) -> None:
    garbage = bytes(range(256)) * 64 + b"\x00\x00\n\xff{\"event\": \n"
    (case / ".opencode/telemetry.log").write_bytes(garbage)


def _deep_json(case: Path, _: Path) -> None:
    (case / "evidences/gate_checks.json").write_text("[" * 10_000 + "]" * 10_000)


def _string_50mb(case: Path, _: Path) -> None:
    with open(case / "evidences/cluster_meta.json", "wb") as fh:
        fh.write(b'{"note": "')
        fh.write(b"x" * (50 * MIB))
        fh.write(b'"}')


@dataclass(frozen=True)
class Corruption:
    apply: Callable[[Path, Path], None]
    verdict: str
    subtype: str
    files: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    """raw_file rows: file -> (status, substring of detail or None)."""
    reasons: tuple[str, ...] = ()
    """Substrings of the case's reason text (judgment + bundle + failing check reasons)."""
    same_as_clean: bool = False
    """Verdict, subtype and score equal the uncorrupted case's."""


OUTSIDE_NOTE = "resolves outside the case dir; not read"
CORRUPTIONS: dict[str, Corruption] = {
    "metrics-truncated": Corruption(
        _truncate_half, "invalid", "evidence_collection_fail",
        {"evidences/metrics.json": ("parse_error", "unexpected end of data at line")},
        ("not parsed: evidences/metrics.json",
         "evidences/metrics.json not parsed (parse_error: unexpected end of data")),
    "logs-not-utf8": Corruption(
        _logs_not_utf8, "pass", "diagnosis_pass",
        {"evidences/logs.json": ("not_utf8", "invalid UTF-8 at byte")}, same_as_clean=True),
    "queries-40mb": Corruption(
        _queries_40mb, "invalid", "evidence_collection_fail",
        {"evidences/queries.json": ("too_large", "exceeds the 33554432-byte cap")},
        ("not parsed: evidences/queries.json",)),
    "patch-not-json": Corruption(
        _patch_not_json, "fail", "evidence_routing_fail",
        {"analysis_patch.json": ("parse_error", "at line 1 column 1 (byte 0)")},
        ("analysis_patch.json did not parse (parse_error)",)),
    "patch-escaping-refs": Corruption(
        _patch_escaping_refs, "fail", "evidence_routing_fail",
        {"analysis_patch.json": ("ok", None)},
        ("metric ref(s) name no collected series, first: /etc/passwd",
         "log ref(s) name no collected log entry, first: ../../etc/passwd")),
    "symlink-file-outside": Corruption(
        _symlink_file_outside, "fail", "critical_evidence_partial",
        {"evidences/component_health.json": ("outside_bundle", OUTSIDE_NOTE),
         "evidences/host.json": ("outside_bundle", OUTSIDE_NOTE)},
        ("evidences/component_health.json not read (outside_bundle",)),
    "symlink-evidences-dir": Corruption(
        _symlink_evidences_dir, "invalid", "bundle_missing",
        {"evidences/workspace_evidence_report.json": ("outside_bundle", OUTSIDE_NOTE)},
        ("refused: evidences/workspace_evidence_report.json (outside_bundle)",)),
    "symlink-workspace-bundle": Corruption(
        _symlink_workspace_bundle, "invalid", "bundle_missing",
        {"workspace/ws-evil/evidences/workspace_evidence_report.json":
            ("outside_bundle", OUTSIDE_NOTE)},
        ("refused: workspace/ws-evil/evidences/workspace_evidence_report.json "
         "(outside_bundle)",)),
    "symlink-workspace-root": Corruption(
        _symlink_workspace_root, "invalid", "bundle_missing",
        {"workspace": ("outside_bundle", "directory resolves outside the case dir")},
        ("refused: workspace (outside_bundle)",)),
    "symlink-opencode-dir": Corruption(
        _symlink_opencode_dir, "invalid", "execution_contract_fail",
        {".opencode/telemetry.log": ("outside_bundle", OUTSIDE_NOTE)},
        ("required workflow check(s) failed",)),
    "output-fifo": Corruption(
        _output_fifo, "fail", "diagnosis_fail",
        {"output.txt": ("unreadable", "not a regular file")},
        ("no sentence of the answer matches; output.txt not read (unreadable: "
         "not a regular file)",)),
    "output-dir": Corruption(
        _output_dir, "fail", "diagnosis_fail",
        {"output.txt": ("unreadable", "not a regular file")},
        ("output.txt not read (unreadable: not a regular file)",)),
    "output-to-passwd": Corruption(
        _output_to_passwd, "fail", "diagnosis_fail",
        {"output.txt": ("outside_bundle", OUTSIDE_NOTE)},
        ("output.txt not read (outside_bundle",)),
    "manifest-list": Corruption(
        _manifest_list, "pass", "diagnosis_pass",
        {"manifest.json": ("ok", "manifest is not a JSON object (got array)")},
        same_as_clean=True),
    "report-empty-object": Corruption(
        _report_empty, "pass", "diagnosis_pass",
        {"evidences/workspace_evidence_report.json": ("ok", None)}, same_as_clean=True),
    "empty-case-dir": Corruption(
        _empty_case_dir, "invalid", "bundle_missing", {},
        ("bundle_missing: no evidences/workspace_evidence_report.json in the case dir",)),
    "telemetry-binary": Corruption(
        _telemetry_binary, "invalid", "execution_contract_fail",
        {".opencode/telemetry.log": ("not_utf8", "invalid UTF-8 at byte 128")},
        ("not observed: telemetry has diagnosis_run.initialized",)),
    "deep-json": Corruption(
        _deep_json, "pass", "diagnosis_pass",
        {"evidences/gate_checks.json": ("parse_error", "depth limit exceeded")},
        same_as_clean=True),
    "string-50mb": Corruption(
        _string_50mb, "pass", "diagnosis_pass",
        {"evidences/cluster_meta.json": ("too_large", "exceeds the 33554432-byte cap")},
        same_as_clean=True),
}


def _bad_run(name: str) -> str:
    return f"bad-{name}"


def _make_outside(outside: Path) -> None:
    """Files outside every case dir, all carrying SECRET, plus a FIFO trap."""
    outside.mkdir()
    os.mkfifo(outside / "trap.fifo")
    (outside / "component_health.json").write_text(json.dumps({"components": [
        {"name": "tikv", "instance": "tikv-2", "last_termination_reason": f"panic {SECRET}"}]}))
    bundle = outside / "bundle"
    shutil.copytree(RECORDED / SOURCE_RUN / CASE / "evidences", bundle / "evidences")
    report = bundle / "evidences/workspace_evidence_report.json"
    doc = json.loads(report.read_text())
    doc["analysis"] = {"root_cause": SECRET}
    report.write_text(json.dumps(doc))
    (bundle / "evidences/secret.json").write_text(json.dumps({"secret": SECRET}))
    shutil.copytree(bundle, outside / "workspaces/ws-1")
    (outside / "opencode").mkdir()
    (outside / "opencode/telemetry.log").write_text(
        json.dumps({"event": "diagnosis_run.initialized", "detail": SECRET}) + "\n")


@dataclass(frozen=True)
class Judged:
    root: Path
    outside: Path
    db: Path
    out: Path
    result: CliResult
    clean_db: Path
    clean_out: Path
    clean_result: CliResult


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Judged:
    root = tmp_path_factory.mktemp("bad_input_e2e")
    outside = root / "outside"
    _make_outside(outside)
    clean, audits = root / "clean_audits", root / "audits"
    for run in UNTOUCHED_RUNS:
        shutil.copytree(RECORDED / run, clean / run, symlinks=True)
        shutil.copytree(RECORDED / run, audits / run, symlinks=True)
    for name, corruption in CORRUPTIONS.items():
        case = copy_case(SOURCE_RUN, CASE, audits / _bad_run(name) / CASE,
                         run_id=_bad_run(name))
        corruption.apply(case, outside)

    clean_db, clean_out = root / "clean.duckdb", root / "clean_out"
    db, out = root / "judged.duckdb", root / "out"
    with ThreadPoolExecutor(2) as pool:  # two independent CLI processes, side by side
        clean_job = pool.submit(run_cli, "judge", clean, "--registry", REGISTRY,
                                "--db", clean_db, "--out", clean_out, "--workers", "1")
        job = pool.submit(run_cli, "judge", audits, "--registry", REGISTRY, "--db", db,
                          "--out", out)
        clean_result, result = clean_job.result(), job.result()
    return Judged(root, outside, db, out, result, clean_db, clean_out, clean_result)


def _reason_text(db: Path, run_id: str) -> str:
    parts = [r[0] or "" for r in query(
        db,
        "SELECT reason FROM eval_judgment WHERE run_id = $1 "
        "UNION ALL SELECT reason FROM raw_bundle WHERE run_id = $1 "
        "UNION ALL SELECT reason FROM eval_check WHERE run_id = $1 AND NOT passed",
        [run_id])]
    return "\n".join(parts)


# --------------------------------------------------------------------------------- tests
def test_cli_exits_zero_and_judges_every_case(judged: Judged) -> None:
    assert judged.clean_result.returncode == 0, judged.clean_result.output
    assert judged.result.returncode == 0, judged.result.output
    got = judgments(judged.db)
    keys = {(run, case.name) for run in UNTOUCHED_RUNS for case in (RECORDED / run).iterdir()
            if case.is_dir()}
    keys |= {(_bad_run(name), CASE) for name in CORRUPTIONS}
    assert set(got) == keys
    assert f"{len(keys)} case run(s)" in judged.result.stdout


def test_untouched_cases_are_judged_exactly_as_clean(judged: Judged) -> None:
    clean, got = judgments(judged.clean_db), judgments(judged.db)
    expected = expected_verdicts()
    assert clean, judged.clean_result.output
    for key, want in clean.items():
        assert got[key] == want, key
        assert want["verdict"] == expected[key], key
        rel = Path(*key) / "judgment.json"
        assert (judged.out / rel).read_bytes() == (judged.clean_out / rel).read_bytes(), key
    for table in ("eval_check", "eval_fact", "eval_bucket"):
        sql = (f"SELECT count(*), count(DISTINCT md5(CAST(t AS VARCHAR))) FROM {table} AS t "
               "WHERE NOT starts_with(run_id, 'bad-')")
        assert query(judged.db, sql) == query(judged.clean_db, sql), table


@pytest.mark.parametrize("name", list(CORRUPTIONS))
def test_corrupted_case_gets_a_clear_reason(judged: Judged, name: str) -> None:
    spec, run_id = CORRUPTIONS[name], _bad_run(name)
    verdict = judgments(judged.db)[(run_id, CASE)]
    assert (verdict["verdict"], verdict["subtype"]) == (spec.verdict, spec.subtype), verdict
    if spec.same_as_clean:
        clean = judgments(judged.clean_db)[(SOURCE_RUN, CASE)]
        assert (verdict["verdict"], verdict["subtype"], verdict["score"]) == (
            clean["verdict"], clean["subtype"], clean["score"])
    files = {r[0]: r[1:] for r in query(
        judged.db, "SELECT file, status, detail, sha256 FROM raw_file WHERE run_id = ?",
        [run_id])}
    for file, (status, detail) in spec.files.items():
        assert file in files, (file, sorted(files))
        got_status, got_detail, sha = files[file]
        assert got_status == status, (file, got_status, got_detail)
        if detail is not None:
            assert detail in (got_detail or ""), (file, got_detail)
        if status in ("outside_bundle", "unreadable", "too_large"):
            assert sha is None, file  # never read
    text = _reason_text(judged.db, run_id)
    for needle in spec.reasons:
        assert needle in text, (needle, text)
    packet = json.loads((judged.out / run_id / CASE / "judgment.json").read_text())
    assert (packet["verdict"], packet["subtype"]) == (spec.verdict, spec.subtype)


def test_refused_files_have_no_parsed_rows(judged: Judged) -> None:
    """A refused / unparsable file contributes nothing beyond its raw_file row."""
    rows = query(judged.db, """
        SELECT f.run_id, f.file, f.status FROM raw_file AS f
        JOIN raw_json AS j ON j.run_id = f.run_id AND j.case_id = f.case_id AND j.file = f.file
        WHERE f.status NOT IN ('ok', 'not_utf8') GROUP BY ALL""")
    assert rows == []
    n = query(judged.db, "SELECT count(*) FROM raw_metric_point WHERE run_id = ?",
              [_bad_run("metrics-truncated")])
    assert n == [(0,)]
    n = query(judged.db, "SELECT count(*) FROM raw_query WHERE run_id = ?",
              [_bad_run("queries-40mb")])
    assert n == [(0,)]


def test_non_utf8_text_is_replaced_and_still_parsed(judged: Judged) -> None:
    rows = query(judged.db, "SELECT count(*) FROM raw_log_line AS t WHERE run_id = ? "
                            "AND file = 'evidences/logs.json' "
                            "AND contains(CAST(t AS VARCHAR), '\ufffd')",
                 [_bad_run("logs-not-utf8")])
    assert rows[0][0] >= 1
    rows = query(judged.db, "SELECT count(*) FROM raw_telemetry WHERE run_id = ? "
                            "AND event IS NULL", [_bad_run("telemetry-binary")])
    assert rows[0][0] >= 1


def test_escaping_patch_refs_are_ids_never_paths(judged: Judged) -> None:
    run_id = _bad_run("patch-escaping-refs")
    refs = query(judged.db, "SELECT ref_type, ref_id FROM raw_patch_ref WHERE run_id = ? "
                            "AND contains(ref_id, 'passwd') ORDER BY ALL", [run_id])
    assert refs == [("log", "../../etc/passwd"), ("metric", "/etc/passwd")]
    files = query(judged.db, "SELECT file FROM raw_file WHERE contains(file, 'passwd')")
    assert files == []


def test_report_fallback_is_named(judged: Judged) -> None:
    """An empty report object: window and cluster come from the manifest, and say so."""
    rows = query(judged.db, "SELECT fact, detail, evidence_file FROM eval_fact WHERE run_id = ? "
                            "AND fact IN ('window.present', 'cluster.present') ORDER BY fact",
                 [_bad_run("report-empty-object")])
    assert [(f, e) for f, _, e in rows] == [("cluster.present", "manifest.json"),
                                           ("window.present", "manifest.json")]
    assert all("manifest.json" in d for _, d, _ in rows)


def test_nothing_outside_the_case_dirs_is_read(judged: Judged) -> None:
    assert "raw_bundle.workspace_id" in tables_containing(judged.db, "ws-3f91eb90")  # control
    assert tables_containing(judged.db, SECRET) == []
    assert SECRET not in judged.result.output
    for packet in judged.out.rglob("judgment.json"):
        assert SECRET not in packet.read_text(encoding="utf-8"), packet
    if PASSWD.is_file():
        first = PASSWD.read_text(errors="replace").splitlines()[0]
        assert first and tables_containing(judged.db, first) == []
    # nothing was written outside --out / --db either
    assert sorted(p.name for p in judged.outside.iterdir()) == [
        "bundle", "component_health.json", "opencode", "trap.fifo", "workspaces"]
    assert not list(judged.root.joinpath("audits").rglob("judgment.json"))


def test_untouched_runs_keep_their_raw_rows(judged: Judged) -> None:
    """The raw tables of untouched runs equal a clean extraction's (no data lost)."""
    for table in ("raw_file", "raw_json", "raw_log_line", "raw_metric_point", "raw_telemetry",
                  "raw_patch_ref", "raw_output_sentence"):
        sql = (f"SELECT count(*), count(DISTINCT md5(CAST(t AS VARCHAR))) FROM {table} AS t "
               "WHERE NOT starts_with(run_id, 'bad-')")
        assert query(judged.db, sql) == query(judged.clean_db, sql), table
