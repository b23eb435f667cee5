"""Files of a baseline snapshot (``<registry>/baselines/runs/<run_id>/<case_id>/``): the
judgment packet, the final answer, ``case_result.yaml``, semantic files and the evidence dir
copied from the case's audit dir. Symlinks are never followed or copied."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path
from typing import Any

import yaml

from rcaeval.semantic import SHADOW_FILES as SEMANTIC_FILES

REPORT_MARKER = "workspace_evidence_report.json"


def dump_yaml(doc: Any) -> str:
    """Deterministic YAML: keys in the given order, block style, UTF-8 text."""
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, default_flow_style=False,
                          width=100)


def _real_file(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _real_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def copy_tree(src: Path, dst: Path) -> int:
    """Copy regular files under ``src`` to ``dst`` (contents only, sorted walk); symlinks and
    special files are skipped. Returns the number of files copied."""
    n = 0
    for name in sorted(os.listdir(src)):
        s, d = src / name, dst / name
        if _real_dir(s):
            n += copy_tree(s, d)
        elif _real_file(s):
            d.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(s, d)
            n += 1
    return n


def find_bundle(case_dir: Path, workspace_id: str | None) -> Path | None:
    """The audit's bundle dir (holding ``evidences/``): the case dir itself, else
    ``workspace/<workspace_id>/``, else the only ``workspace/**`` dir (≤ 3 levels) with a
    diagnosis report."""
    if _real_dir(case_dir / "evidences"):
        return case_dir
    ws = case_dir / "workspace"
    if not _real_dir(ws):
        return None
    if workspace_id and _real_dir(ws / workspace_id / "evidences"):
        return ws / workspace_id
    found = sorted(
        p.parent.parent for depth in ("*", "*/*", "*/*/*")
        for p in ws.glob(f"{depth}/evidences/{REPORT_MARKER}") if _real_file(p)
    )
    return found[0] if len(found) == 1 else None


def write_case_files(out: Path, case: dict[str, Any], buckets: list[dict[str, Any]],
                     judgment_json: str | None, case_dir: Path | None) -> None:
    """Write one case's snapshot files into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    if judgment_json is not None:
        (out / "judgment.json").write_text(judgment_json, encoding="utf-8", newline="")
    (out / "case_result.yaml").write_text(dump_yaml(case_result(case, buckets)),
                                          encoding="utf-8", newline="\n")
    if case_dir is None or not _real_dir(case_dir):
        return
    bundle = find_bundle(case_dir, case.get("workspace_id"))
    for name in ("output.txt", *SEMANTIC_FILES):
        for base in (case_dir, bundle):
            if base is not None and _real_file(base / name):
                shutil.copyfile(base / name, out / name)
                break
    if bundle is not None:
        copy_tree(bundle / "evidences", out / "evidences")


def _num(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 4)
    return value


def case_result(case: dict[str, Any], buckets: list[dict[str, Any]]) -> dict[str, Any]:
    """The ``case_result.yaml`` document of one case."""
    doc: dict[str, Any] = {
        "case_id": case["case_id"],
        "case_type": case["case_type"],
        "status": case["run_status"],
        "verdict": case["verdict"],
        "score": _num(case["score"]),
        "raw_score": _num(case["raw_score"]),
        "subtype": case["subtype"],
        "hard_gate": case["hard_gate"],
        "reason": case["reason"],
        "buckets": {
            b["bucket"]: {"status": b["status"], "score": _num(b["score"]),
                          "max_score": _num(b["max_score"])}
            for b in buckets
        },
        "duration_s": _num(case["duration_s"]),
        "attempts": case["attempts"],
        "workspace_id": case["workspace_id"],
        "tokens": {
            "input": case["input_tokens"], "output": case["output_tokens"],
            "cache_read": case["cache_read_tokens"], "cache_write": case["cache_write_tokens"],
        },
        "cost_usd": _num(case["cost_usd"]),
        "judge_version": case["judge_version"],
        "rules_hash": case["rules_hash"],
    }
    if case["error"]:
        doc["error"] = case["error"]
    return doc
