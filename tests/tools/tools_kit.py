"""Helpers for the incident-tools tests: a scripted MCP client over stdio, judging a bundle."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import orjson

REPO = Path(__file__).resolve().parents[2]
REGISTRY = REPO / "data" / "registry"
PANIC_CASE = REGISTRY / "cases" / "tikv-panic-restart-001"


def server_params(case_dir: Path, bundle_dir: Path) -> Any:
    from mcp import StdioServerParameters

    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "rcaeval.tools", "serve", "--case-dir", str(case_dir),
              "--bundle-dir", str(bundle_dir)])


def run_scripted(case_dir: Path, bundle_dir: Path, script: Any) -> Any:
    """Start ``rcaeval tools serve`` over stdio and run ``await script(client)``."""
    from mcp import Client

    async def main() -> Any:
        async with Client(server_params(case_dir, bundle_dir)) as client:
            return await script(client)
    return asyncio.run(main())


def judge_bundle(tmp: Path, bundle: Path, case_id: str, run_id: str = "tools-e2e") -> dict:
    """Judge ``bundle`` as the audit dir of ``case_id`` (a manifest is added, as the runner
    would) and return the row of its judgment with its buckets."""
    import rcaeval.store as st
    from rcaeval.judge import judge_audit

    audit = tmp / "audit" / run_id / case_id
    audit.parent.mkdir(parents=True, exist_ok=True)
    bundle.rename(audit)
    (audit / "manifest.json").write_bytes(orjson.dumps({
        "run_id": run_id, "case_id": case_id, "status": "completed"}))
    store = st.connect(":memory:")
    frame = judge_audit(store, tmp / "audit", REGISTRY, out_dir=tmp / "out", workers=1)
    row = frame.row(0, named=True)
    df = store.sql("SELECT bucket, status FROM eval_bucket WHERE run_id = ? AND case_id = ?",
                   params=[run_id, case_id])
    buckets = dict(zip(df["bucket"].to_list(), df["status"].to_list(), strict=True))
    return {**row, "buckets": buckets}
