"""One side of bench/judge_equality.py: judge prepared inputs with the rcaeval found on
``sys.path`` (the harness sets PYTHONPATH to one code revision's tree) and dump what came out.

    python bench/_equality_side.py SPEC.json

SPEC: ``{"side": DIR, "inputs": [{"name", "kind", "audits", "registry", "chunk_size"}]}``.
Per input it writes, under ``DIR/<name>/<pass>/``, the judgment.json files (``packets/``), one
JSON-lines file per ``eval_*`` table (every row, ``ORDER BY ALL``) and the returned frame.
Passes: ``judge`` (``judge_audit`` over the audits), ``rejudge`` (``rejudge_store`` over what
the first pass stored) and, for ``kind: run``, the runner's own judging (``rcaeval run``).

Only the public API that every revision being compared has is used here (``rcaeval.store.
connect``, ``rcaeval.judge.judge_audit`` / ``rejudge_store``, the ``rcaeval`` CLI), so this
file runs unchanged against an older tree. Values that are not judgments are masked: the
wall-clock columns in :data:`VOLATILE` and the side's own directory in any text.
"""

from __future__ import annotations

import datetime as dt
import json
import sys
from pathlib import Path
from typing import Any

VOLATILE = frozenset({"judged_at", "started_at", "finished_at", "created_at", "recorded_at"})
"""Columns holding when something happened (the clock, not the judgment)."""

_SQL = Path(__file__).resolve().parent / "sql"


def _value(v: Any, side: str) -> Any:
    if isinstance(v, str):
        return v.replace(side, "<side>")
    if isinstance(v, (dt.datetime, dt.date, dt.time, dt.timedelta)):
        return str(v)
    if isinstance(v, (list, tuple)):
        return [_value(x, side) for x in v]
    if isinstance(v, dict):
        return {str(k): _value(x, side) for k, x in v.items()}
    if isinstance(v, bytes):
        return v.hex()
    if isinstance(v, float) and v != v:
        return "NaN"
    return v


def dump(con: Any, frame: Any, dest: Path, side: str) -> None:
    """Every ``eval_*`` table of ``con`` as ``dest/tables/<table>.jsonl`` and ``frame`` (the
    judging call's return) as ``dest/frame.jsonl``."""
    tables = dest / "tables"
    tables.mkdir(parents=True, exist_ok=True)
    names = [r[0] for r in con.execute((_SQL / "equality_tables.sql").read_text()).fetchall()]
    select = (_SQL / "equality_rows.sql").read_text()
    for name in names:
        cur = con.execute(select.replace("{table}", '"' + name.replace('"', '""') + '"'))
        cols = [d[0] for d in cur.description]
        with (tables / f"{name}.jsonl").open("w", encoding="utf-8") as fh:
            for row in cur.fetchall():
                rec = {c: ("<volatile>" if c in VOLATILE and v is not None else _value(v, side))
                       for c, v in zip(cols, row, strict=True)}
                fh.write(json.dumps(rec, sort_keys=True, ensure_ascii=False) + "\n")
    with (dest / "frame.jsonl").open("w", encoding="utf-8") as fh:
        for rec in frame.sort(["run_id", "case_id"]).iter_rows(named=True):
            rec = {c: ("<volatile>" if c in VOLATILE and v is not None else _value(v, side))
                   for c, v in rec.items()}
            fh.write(json.dumps(rec, sort_keys=True, ensure_ascii=False, default=str) + "\n")


def _judge(item: dict[str, Any], root: Path, side: str) -> None:
    import rcaeval.store as st
    from rcaeval.judge import judge_audit, rejudge_store

    db = root / "store.duckdb"
    with st.connect(db) as s:
        frame = judge_audit(s, item["audits"], item["registry"], out_dir=root / "judge/packets",
                            workers=1, chunk_size=item.get("chunk_size", 1000))
        dump(s.con, frame, root / "judge", side)
        frame = rejudge_store(s, item["registry"], out_dir=root / "rejudge/packets",
                              chunk_size=item.get("chunk_size", 1000))
        dump(s.con, frame, root / "rejudge", side)


def _run(item: dict[str, Any], root: Path, side: str) -> None:
    """``rcaeval run`` with a replay agent: the runner judges each case as it finishes."""
    import subprocess

    import rcaeval.store as st

    db = root / "store.duckdb"
    audits = root / "audits"
    cmd = [sys.executable, "-m", "rcaeval", "run", "--suite", item["suite"], "--registry",
           item["registry"], "--db", str(db), "--audit-root", str(audits), "--agent",
           item["agent"], "--run-id", "equality", "--no-progress", "--jobs", "1"]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode not in (0, 4):
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr[-2000:]}")
    packets = root / "run/packets"
    for p in sorted(audits.rglob("judgment.json")):
        dest = packets / p.parent.relative_to(audits)
        dest.mkdir(parents=True, exist_ok=True)
        (dest / "judgment.json").write_bytes(p.read_bytes())
    with st.connect(db) as s:
        frame = s.con.sql((_SQL / "equality_frame.sql").read_text()).pl()
        dump(s.con, frame, root / "run", side)


def main(argv: list[str]) -> int:
    spec = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    side = spec["side"]
    for item in spec["inputs"]:
        root = Path(side) / item["name"]
        root.mkdir(parents=True, exist_ok=True)
        (_run if item["kind"] == "run" else _judge)(item, root, side)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
