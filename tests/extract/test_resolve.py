from __future__ import annotations

import os
from pathlib import Path

from rcaeval.extract import CaseFS, CaseRef, extract_case, resolve_bundle

REPORT = "evidences/workspace_evidence_report.json"


def _resolve(case_dir: Path):
    return resolve_bundle(CaseFS(case_dir))


def test_single_bundle_in_case_dir(tmp_path: Path, write, bundle) -> None:
    case = write(tmp_path / "c", bundle())
    res = _resolve(case)
    assert (res.status, res.bundle_dir) == ("resolved", ".")
    assert "one bundle" in res.reason


def test_no_bundle_is_missing_but_keeps_manifest_and_output(tmp_path: Path, write, bundle) -> None:
    case = write(tmp_path / "c", {
        "manifest.json": {"run_id": "r", "case_id": "c", "status": "crashed"},
        "output.txt": "## Conclusion\nUnknown.\n",
        "evidences/metrics.json": {"series": []},
    })
    res = _resolve(case)
    assert res.status == "bundle_missing" and res.bundle_dir is None
    assert REPORT in res.reason
    t = extract_case(CaseRef("r", "c", case))
    bundle = t["raw_bundle"].to_pylist()[0]
    assert bundle["status"] == "bundle_missing"
    assert bundle["manifest_status"] == "crashed"
    assert [f["file"] for f in t["raw_file"].to_pylist()] == ["manifest.json", "output.txt"]
    assert t["raw_output_sentence"].column("text").to_pylist() == ["Unknown."]
    assert t["raw_metric_point"].num_rows == 0  # evidences are not read without a bundle


def test_nested_workspace_bundle(tmp_path: Path, write, bundle) -> None:
    files = bundle()
    manifest = files.pop("manifest.json")
    nested = {f"workspace/ws-9/{k}": v for k, v in files.items()}
    case = write(tmp_path / "c", {"manifest.json": manifest, **nested})
    res = _resolve(case)
    assert (res.status, res.bundle_dir) == ("resolved", "workspace/ws-9")
    t = extract_case(CaseRef("run-1", "case-1", case))
    files_seen = {f["file"] for f in t["raw_file"].to_pylist()}
    # labels are relative to the bundle dir (or the case dir for case-dir files)
    assert {"manifest.json", REPORT, "evidences/metrics.json", "output.txt",
            "logs/tikv-2.log", ".opencode/telemetry.log"} <= files_seen
    bundle = t["raw_bundle"].to_pylist()[0]
    assert bundle["bundle_dir"] == "workspace/ws-9"
    assert bundle["workspace_id"] == "ws-1"  # the manifest's, when it has one
    assert t["raw_metric_point"].num_rows == 2


def test_deeply_nested_within_three_levels(tmp_path: Path, write, bundle) -> None:
    case = write(tmp_path / "c", {f"workspace/a/b/c/{REPORT}": {}})
    assert _resolve(case).bundle_dir == "workspace/a/b/c"
    too_deep = write(tmp_path / "d", {f"workspace/a/b/c/d/{REPORT}": {}})
    assert _resolve(too_deep).status == "bundle_missing"


def test_ambiguous_without_manifest_workspace_id(tmp_path: Path, write, bundle) -> None:
    case = write(tmp_path / "c", {
        f"workspace/ws-1/{REPORT}": {}, f"workspace/ws-2/{REPORT}": {},
        "manifest.json": {"run_id": "r"},
    })
    res = _resolve(case)
    assert res.status == "bundle_ambiguous" and res.bundle_dir is None
    assert "workspace/ws-1" in res.reason and "workspace/ws-2" in res.reason
    t = extract_case(CaseRef("r", "c", case))
    assert t["raw_bundle"].column("status").to_pylist() == ["bundle_ambiguous"]


def test_disambiguated_by_manifest_workspace_id(tmp_path: Path, write, bundle) -> None:
    case = write(tmp_path / "c", {
        REPORT: {}, f"workspace/ws-1/{REPORT}": {}, f"workspace/ws-2/{REPORT}": {},
        "manifest.json": {"workspace_id": "ws-2"},
    })
    res = _resolve(case)
    assert (res.status, res.bundle_dir) == ("resolved", "workspace/ws-2")
    assert "ws-2" in res.reason


def test_manifest_workspace_id_matching_none_is_ambiguous(tmp_path: Path, write, bundle) -> None:
    case = write(tmp_path / "c", {
        f"workspace/ws-1/{REPORT}": {}, f"workspace/ws-2/{REPORT}": {},
        "manifest.json": {"workspace_id": "ws-3"},
    })
    res = _resolve(case)
    assert res.status == "bundle_ambiguous" and "matches none" in res.reason


def test_symlinked_workspace_dirs_are_not_followed(tmp_path: Path, write, bundle) -> None:
    real = write(tmp_path / "elsewhere", {REPORT: {}})
    case = write(tmp_path / "c", {"manifest.json": {}})
    (case / "workspace").mkdir()
    os.symlink(real, case / "workspace" / "ws-1")
    assert _resolve(case).status == "bundle_missing"


def test_bundle_files_looked_up_in_bundle_first(tmp_path: Path, write, bundle) -> None:
    case = write(tmp_path / "c", {
        f"workspace/ws-1/{REPORT}": {},
        "workspace/ws-1/output.txt": "From the bundle.",
        "output.txt": "From the case dir.",
    })
    t = extract_case(CaseRef("r", "c", case))
    assert t["raw_output_sentence"].column("text").to_pylist() == ["From the bundle."]
    assert t["raw_bundle"].column("workspace_id").to_pylist() == ["ws-1"]


def test_transcript_stands_in_for_missing_output(tmp_path: Path, write, bundle) -> None:
    case = write(tmp_path / "c", bundle(**{"output.txt": None}))
    t = extract_case(CaseRef("run-1", "case-1", case))
    rows = t["raw_output_sentence"].to_pylist()
    assert [(r["section"], r["text"]) for r in rows] == [
        ("Root cause", "TiKV tikv-2 panicked."),
        ("followup-1", "Upgrade to v8.5.2."), ("followup-1", "It fixes the bug.")]
    assert "output.txt" not in t["raw_file"].column("file").to_pylist()
