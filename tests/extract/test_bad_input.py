from __future__ import annotations

import os
from pathlib import Path

import pytest

import rcaeval.extract._safe as safe_mod
from rcaeval.extract import CaseRef, extract_case, extract_cases
from rcaeval.extract._schema import RAW_TABLES

SECRET = "TOP-SECRET-7f3a9c"


def _files(t) -> dict[str, dict]:
    return {r["file"]: r for r in t["raw_file"].to_pylist()}


def _extract(case: Path, **kw):
    return extract_case(CaseRef("run-1", "case-1", case), **kw)


def test_malformed_and_truncated_json(tmp_path: Path, write, bundle) -> None:
    truncated = b'{"series": [{"id": "M-1", "points": [[1, '
    case = write(tmp_path / "c", bundle(**{
        "evidences/metrics.json": truncated,
        "evidences/queries.json": b'{"queries": [}',
    }))
    t = _extract(case)
    f = _files(t)
    m = f["evidences/metrics.json"]
    assert m["status"] == "parse_error"
    assert m["detail"].startswith("unexpected end of data at line 1")
    assert f"(byte {len(truncated)})" in m["detail"]
    assert f["evidences/queries.json"]["status"] == "parse_error"
    assert m["sha256"] is not None and m["size"] == len(truncated)
    assert t["raw_metric_point"].num_rows == 0 and t["raw_query"].num_rows == 0
    json_files = set(t["raw_json"].column("file").to_pylist())
    assert "evidences/metrics.json" not in json_files
    assert "evidences/logs.json" in json_files  # the rest of the bundle is intact
    assert t["raw_bundle"].column("status").to_pylist() == ["resolved"]


def test_non_utf8_is_replaced_reported_and_parsed(tmp_path: Path, write, bundle) -> None:
    case = write(tmp_path / "c", bundle(**{
        "output.txt": b"## Root cause\nTiKV \xff\xfe panicked.\n",
        "evidences/events.json": b'{"events": [{"id": "EV-\xc3\x28"}]}',
    }))
    t = _extract(case)
    f = _files(t)
    assert f["output.txt"]["status"] == "not_utf8"
    assert "byte 19" in f["output.txt"]["detail"]
    assert t["raw_output_sentence"].column("text").to_pylist()[0] == "TiKV \ufffd\ufffd panicked."
    assert f["evidences/events.json"]["status"] == "not_utf8"
    ids = [r["event_id"] for r in t["raw_event"].to_pylist() if r["source"] == "events.json"]
    assert ids == ["EV-\ufffd("]


def test_too_large_file_is_not_parsed(tmp_path: Path, write, bundle) -> None:
    big = {"series": [{"id": f"M-{i}", "points": [["t", i]]} for i in range(50)]}
    case = write(tmp_path / "c", bundle(**{"evidences/metrics.json": big}))
    t = _extract(case, max_file_bytes=1024)
    m = _files(t)["evidences/metrics.json"]
    assert m["status"] == "too_large" and m["size"] > 1024 and m["sha256"] is None
    assert "1024-byte cap" in m["detail"]
    assert t["raw_metric_point"].num_rows == 0
    assert "evidences/metrics.json" not in set(t["raw_json"].column("file").to_pylist())


def test_patch_that_is_not_json(tmp_path: Path, write, bundle) -> None:
    case = write(tmp_path / "c", bundle(**{"analysis_patch.json": "items: - A1\n"}))
    t = _extract(case)
    p = _files(t)["analysis_patch.json"]
    assert (p["kind"], p["status"]) == ("patch", "parse_error")
    assert t["raw_patch_item"].num_rows == 0 and t["raw_patch_ref"].num_rows == 0


def test_ref_ids_are_never_opened(tmp_path: Path, write, bundle,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    patch = {"items": [{"id": "A1", "claim": "x", "role": "key",
                        "refs": [{"type": "log", "id": "../../etc/passwd"},
                                 {"type": "metric", "id": "/etc/hostname"}]}]}
    case = write(tmp_path / "c", bundle(**{"analysis_patch.json": patch}))
    opened: list[str] = []
    real_open = os.open

    def spy(path, *a, **kw):
        opened.append(str(path))
        return real_open(path, *a, **kw)

    monkeypatch.setattr(safe_mod.os, "open", spy)
    t = _extract(case)
    refs = t["raw_patch_ref"].to_pylist()
    assert [r["ref_id"] for r in refs] == ["../../etc/passwd", "/etc/hostname"]
    assert t["raw_patch_item"].column("shape_ok").to_pylist() == [True]
    assert opened and not any("passwd" in p or "hostname" in p for p in opened)
    assert all(p.startswith(os.path.realpath(case)) for p in opened)


def _all_text(con) -> str:
    chunks = []
    for table in RAW_TABLES:
        for row in con.execute(f"SELECT * FROM {table}").fetchall():
            chunks.append(repr(row))
    return "\n".join(chunks)


def test_symlinks_leaving_the_case_dir(tmp_path: Path, write, bundle, con) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.json"
    secret.write_text(f'{{"components": [{{"name": "{SECRET}"}}]}}\n{SECRET}\n')
    (outside / "logs").mkdir()
    (outside / "logs" / "x.log").write_text(f"ERROR {SECRET}\n")
    case = write(tmp_path / "audits" / "run-1" / "case-1", bundle(
        **{"output.txt": None, ".opencode/telemetry.log": None, "logs/tikv-2.log": None}))
    os.symlink(secret, case / "evidences" / "component_health.json")
    os.symlink(secret, case / "output.txt")
    (case / ".opencode").mkdir(exist_ok=True)
    os.symlink("../../../../outside/secret.json", case / ".opencode" / "telemetry.log")
    os.symlink(outside / "logs", case / "logs")
    if os.path.exists("/etc/hostname"):
        os.symlink("/etc/hostname", case / "evidences" / "hostname.json")
    # a symlink that stays inside the case dir is fine
    os.symlink("metrics.json", case / "evidences" / "metrics_alias.json")

    summary = extract_cases(con, [CaseRef("run-1", "case-1", case)], workers=1, progress=False)
    assert summary.statuses["resolved"] == 1
    status = dict(con.execute("SELECT file, status FROM raw_file").fetchall())
    assert status["evidences/component_health.json"] == "outside_bundle"
    assert status["output.txt"] == "outside_bundle"
    assert status[".opencode/telemetry.log"] == "outside_bundle"
    assert status["logs"] == "outside_bundle"
    assert status["evidences/metrics_alias.json"] == "ok"
    if os.path.exists("/etc/hostname"):
        assert status["evidences/hostname.json"] == "outside_bundle"
        hostname = Path("/etc/hostname").read_text().strip()
        if len(hostname) >= 6:
            assert hostname not in _all_text(con)
    details = con.execute(
        "SELECT size, sha256 FROM raw_file WHERE status = 'outside_bundle'").fetchall()
    assert all(d == (None, None) for d in details)
    assert SECRET not in _all_text(con)
    assert con.execute("SELECT count(*) FROM raw_telemetry").fetchone() == (0,)
    # output.txt was refused: only the transcript's follow-up answer remains
    kinds = con.execute("SELECT DISTINCT section_kind FROM raw_output_sentence").fetchall()
    assert kinds == [("followup",)]


def test_report_symlinked_outside_means_no_bundle(tmp_path: Path, write) -> None:
    outside = write(tmp_path / "outside", {"r.json": {"metadata": {"cluster_id": SECRET}}})
    case = write(tmp_path / "c", {"manifest.json": {}})
    (case / "evidences").mkdir()
    os.symlink(outside / "r.json", case / "evidences" / "workspace_evidence_report.json")
    t = _extract(case)
    b = t["raw_bundle"].to_pylist()[0]
    assert b["status"] == "bundle_missing" and "outside_bundle" in b["reason"]
    f = _files(t)["evidences/workspace_evidence_report.json"]
    assert f["status"] == "outside_bundle"
    assert SECRET not in repr(t["raw_json"].to_pylist())


def test_symlinked_evidences_dir_outside_is_not_listed(tmp_path: Path, write, bundle) -> None:
    outside = write(tmp_path / "outside", bundle())
    case = write(tmp_path / "c", {"manifest.json": {}})
    os.symlink(outside / "evidences", case / "evidences")
    t = _extract(case)
    assert t["raw_bundle"].column("status").to_pylist() == ["bundle_missing"]
    assert not any(f.startswith("evidences/") and s == "ok"
                   for f, s in ((r["file"], r["status"]) for r in t["raw_file"].to_pylist()))


def test_non_regular_file_is_refused(tmp_path: Path, write, bundle) -> None:
    case = write(tmp_path / "c", bundle())
    os.mkfifo(case / "logs" / "pipe.log")
    t = _extract(case)
    f = _files(t)["logs/pipe.log"]
    assert (f["status"], f["detail"]) == ("unreadable", "not a regular file")


def test_dotdot_paths_are_refused(tmp_path: Path) -> None:
    from rcaeval.extract import CaseFS

    fs = CaseFS(tmp_path)
    rec, data = fs.read("../x", "../x", "evidence")
    assert data is None and rec.status == "outside_bundle" and "'..'" in (rec.detail or "")
