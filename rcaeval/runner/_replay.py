"""``replay:<behaviour>``: serve a recorded run as if an agent had just produced it.

Recordings live in ``<data>/recorded/rec-<behaviour>/<case_id>/`` (docs/bundle-contract.md);
``replay:<dir>`` names a recorded-run directory directly. The recorded bundle is copied into
the workspace (symlinks are never followed or copied) except ``manifest.json``, whose
``status`` and ``usage`` become the outcome's; the runner writes a fresh manifest.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path
from typing import Any

import orjson

from rcaeval._paths import data_dir
from rcaeval._usage import json_safe
from rcaeval.runner._agents import (
    USAGE_KEYS,
    AgentOutcome,
    Turn,
    empty_usage,
    read_capped,
    set_usage,
)
from rcaeval.runner._workspace import Workspace

_STATUSES = {"completed", "crashed", "timed_out"}


def recorded_root() -> Path:
    return data_dir() / "recorded"


class ReplayAgent:
    name = "replay"

    def __init__(self, spec: str, behaviour: str) -> None:
        self.spec = spec
        self.behaviour = behaviour
        cand = Path(behaviour)
        if ("/" in behaviour or behaviour.startswith(".")) and cand.is_dir():
            self.run_dir = cand
        else:
            self.run_dir = recorded_root() / f"rec-{behaviour}"

    def info(self) -> dict[str, Any]:
        return {"name": self.name, "spec": self.spec, "behaviour": self.behaviour,
                "recorded_run": str(self.run_dir)}

    def run_case(
        self, workspace: Workspace, *, timeout_s: float, turn_timeout_s: float | None = None
    ) -> AgentOutcome:
        ws = workspace
        src = self.run_dir / ws.case.case_id
        if not src.is_dir():
            return AgentOutcome(status="errored", agent_info=self.info(),
                                error=f"no recording for case {ws.case.case_id!r} in {src}")
        recorded: dict[str, Any] = {}
        manifest = src / "manifest.json"
        if manifest.is_file() and not manifest.is_symlink():
            try:
                loaded = orjson.loads(manifest.read_bytes())
                recorded = loaded if isinstance(loaded, dict) else {}
            except orjson.JSONDecodeError:
                recorded = {}
        _copy_recording(src, ws.path, top=True)
        status = recorded.get("status", "completed")
        if status not in _STATUSES:
            status = "completed"
        usage = empty_usage()
        rec_usage = recorded.get("usage")
        if isinstance(rec_usage, dict):
            for key in USAGE_KEYS:
                set_usage(usage, key, rec_usage.get(key))
            usage["reported"].append({"source": "recorded_manifest", "raw": json_safe(rec_usage)})
        final = _read_text(ws.path / "output.txt")
        transcript = _load_transcript(ws.path / "transcript.json")
        if not transcript:
            transcript = [Turn(1, "user", ws.case.prompt)]
            if final:
                transcript.append(Turn(1, "assistant", final))
        info = {**self.info(), "recorded_agent": recorded.get("agent")}
        error = recorded.get("error") if status != "completed" else None
        if status == "crashed" and not error:
            error = "recorded run crashed"
        return AgentOutcome(status=status, final_text=final, transcript=transcript, usage=usage,
                            error=error, agent_info=info)


def _copy_recording(src: Path, dst: Path, *, top: bool) -> None:
    dst.mkdir(exist_ok=True)
    with os.scandir(src) as it:
        for entry in sorted(it, key=lambda e: e.name):
            if top and entry.name == "manifest.json":
                continue
            st = entry.stat(follow_symlinks=False)
            target = dst / entry.name
            if stat.S_ISDIR(st.st_mode):
                _copy_recording(Path(entry.path), target, top=False)
            elif stat.S_ISREG(st.st_mode) and not target.exists():
                fd = os.open(entry.path, os.O_RDONLY | os.O_NOFOLLOW)
                with os.fdopen(fd, "rb") as fin, open(target, "wb") as fout:
                    shutil.copyfileobj(fin, fout, 1 << 20)
            # symlinks and special files in a recording are not replayed


def _read_text(path: Path) -> str:
    return read_capped(path)[0]


def _load_transcript(path: Path) -> list[Turn]:
    text = _read_text(path)
    if not text:
        return []
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:
        return []
    if isinstance(data, dict):
        data = data.get("turns", [])
    turns: list[Turn] = []
    for item in data if isinstance(data, list) else []:
        if isinstance(item, dict) and isinstance(item.get("text"), str):
            role = "user" if item.get("role") == "user" else "assistant"
            extra = {k: v for k, v in item.items() if k not in ("turn", "role", "text")}
            turns.append(Turn(int(item.get("turn") or 1), role, item["text"], extra))
    return turns
