"""The fault-injection sections for ids, input files, MCP requests, registry escapes and damaged
stores (docs/reliability.md); bench/fault_injection.py runs them next to its own.

  ids        hypothesis-generated run/case ids (separators, dots, control characters,
             surrogates, long strings): every id rcaeval._ids accepts stays one component
             under its root; a judge pass over bundles whose manifests carry them
             (n // 10, at most 200) writes every judgment.json under --out, one per bundle
  files      generated non-regular and oversized inputs (FIFOs, devices, directories, symlinks
             to devices, files over a small cap, empty / truncated / duplicate-column Parquet)
             through the harness reader, the registry YAML reader and the fixture reader
  mcp        hypothesis-generated tools/call requests (lone surrogates, huge integers, nested
             parentheses, wrong types) to one live stdio server: each must be answered, every
             error with a message and no pydantic URL
  escapes    registry strings holding control characters written as YAML escapes: never a
             loaded case
  store      randomly truncated or byte-flipped copies of a judged store through `rcaeval
             report` and `explain` (n // 100, at most 20): exit 3 with one message, never 5
"""

from __future__ import annotations

import json
import os
import random
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "data" / "registry"
THOROUGH = REPO / "data" / "recorded" / "rec-thorough"
PANIC = SAMPLE / "cases" / "tikv-panic-restart-001"


def _ids_strategy() -> Any:
    from hypothesis import strategies as st

    alphabet = st.sampled_from(list("ab-_.:/\\\x00\x1b\x7f\x85\u2028 é") + ["\ud800", ".."])
    return st.one_of(
        st.lists(alphabet, min_size=0, max_size=12).map("".join),
        st.text(max_size=30),
        st.integers(150, 260).map(lambda k: "x" * k),
        st.sampled_from(["..", ".", "/abs", "../../x", "a/b", "-x", ".hidden", "ok-1"]),
    )


def section_ids(n: int, tmp: Path, seed: int, tally: Any, run_given: Any) -> Any:
    import rcaeval.store as st
    from rcaeval._ids import child_path, id_problem
    from rcaeval.errors import InputError
    from rcaeval.judge import judge_audit

    root = tmp / "root"
    root.mkdir()
    generated: list[str] = []

    def body(value: str) -> None:
        tally.inputs += 1
        generated.append(value)
        try:
            ok = id_problem(value) is None
            try:
                path = child_path(root, value)
            except InputError:
                if ok:
                    tally.fail("crashes", f"accepted id {value!r} refused by child_path")
                return
            if not ok:
                tally.fail("accepted", f"child_path took the unsafe id {value!r}")
            elif path.resolve().parent != root.resolve():
                tally.fail("outside_reads", f"{value!r} resolves outside its root")
        except Exception as exc:  # noqa: BLE001 - counted
            tally.fail("crashes", repr(exc))

    run_given(_ids_strategy(), n, body, seed)
    rng = random.Random(seed)
    audits, out = tmp / "audits", tmp / "work" / "out"
    bundles = []
    for i, value in enumerate(rng.sample(generated, min(len(generated), max(4, n // 10), 200))):
        case = audits / f"r{i:04d}" / "cpu-hotspot-region-001"
        shutil.copytree(THOROUGH / "cpu-hotspot-region-001", case)
        m = orjson.loads((case / "manifest.json").read_bytes())
        m[rng.choice(["run_id", "case_id"])] = value
        (case / "manifest.json").write_text(json.dumps(m))
        bundles.append(case)
    with st.connect(tmp / "ids.duckdb") as s:
        try:
            judge_audit(s, audits, SAMPLE, out_dir=out, workers=1)
        except Exception as exc:  # noqa: BLE001 - counted
            tally.fail("crashes", repr(exc))
            return tally
        # one judgment per bundle dir: an id that is unsafe, unknown to the registry or
        # colliding still gets its own (invalid) judgment
        judged = s.con.execute("SELECT count(*) FROM eval_judgment").fetchone()[0]
    if judged != len(bundles):
        tally.fail("lost" if judged < len(bundles) else "duplicated",
                   f"{judged} judgments for {len(bundles)} bundles")
    written = [p for p in tmp.rglob("judgment.json")]
    outside = [p for p in written if not p.resolve().is_relative_to(out.resolve())]
    if outside:
        tally.fail("outside_reads", f"judgment.json written outside --out: {outside[:3]}")
    if len(written) != len(bundles):
        tally.fail("lost", f"{len(written)} judgment.json files for {len(bundles)} bundles")
    return tally


def _special(kind: str, path: Path, rng: random.Random) -> Path:
    """A hostile input file of ``kind`` at ``path`` (returns the path to read)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        return Path(rng.choice(["/dev/zero", "/dev/urandom", "/dev/null"]))
    elif kind == "dir":
        path.mkdir()
    elif kind == "devlink":
        path.symlink_to(rng.choice(["/dev/zero", "/dev/urandom"]))
    elif kind == "dangling":
        path.symlink_to(path.parent / "nowhere")
    elif kind == "big":
        with open(path, "wb") as fh:
            fh.truncate(rng.randint(2, 50) * 1024**3)
    elif kind in ("empty_parquet", "dup_parquet", "trunc_parquet"):
        path = path.with_suffix(".parquet")
        if kind == "dup_parquet":
            table = pa.Table.from_arrays([pa.array(["{}"]), pa.array(["{}"])],
                                         names=["response", "response"])
        else:
            table = pa.table({"response": pa.array([] if kind == "empty_parquet" else ["{}"],
                                                   pa.string())})
        pq.write_table(table, path)
        if kind == "trunc_parquet":
            data = path.read_bytes()
            path.write_bytes(data[: rng.randrange(len(data))])
    return path


FILE_KINDS = ("fifo", "device", "dir", "devlink", "dangling", "big", "empty_parquet",
              "dup_parquet", "trunc_parquet")


def section_files(n: int, tmp: Path, seed: int, tally: Any) -> Any:
    from rcaeval.errors import RcaevalError
    from rcaeval.harness import read_responses
    from rcaeval.offline._fixture import read_fixtures
    from rcaeval.registry._yamlsrc import parse_yaml

    rng = random.Random(seed)
    readers = {
        "harness": lambda p: read_responses(p),
        "registry": lambda p: parse_yaml(p, p.name),
        "fixtures": lambda p: read_fixtures(p),
    }
    for i in range(n):
        tally.inputs += 1
        kind, reader = rng.choice(FILE_KINDS), rng.choice(sorted(readers))
        path = _special(kind, tmp / f"in{i}.jsonl", rng)
        started = time.monotonic()
        try:
            result = readers[reader](path)
        except RcaevalError:
            result = None
        except Exception as exc:  # noqa: BLE001 - counted
            tally.fail("crashes", f"{reader} on {kind}: {exc!r}")
            result = None
        # accepted: the reader returned usable data (records or fixtures without errors)
        if reader == "registry":
            accepted = result is not None and result[0] is not None
        elif reader == "harness":
            accepted = result is not None and any(r.error is None for r in result)
        else:
            accepted = result is not None and not result.errors
        if accepted and kind != "trunc_parquet":
            tally.fail("accepted", f"{reader} accepted {kind}")
        if time.monotonic() - started > 10:
            tally.fail("hangs", f"{reader} on {kind} took over 10 s")
        if kind in ("fifo", "dir", "devlink", "dangling", "big") or path.suffix == ".parquet":
            if path.is_dir() and not path.is_symlink():
                path.rmdir()
            elif os.path.lexists(path) and not str(path).startswith("/dev/"):
                path.unlink()
    return tally


def _mcp_args() -> Any:
    from hypothesis import strategies as st

    text = st.one_of(st.text(max_size=20), st.sampled_from(["\ud800", "x\udfff", "\x00", "é"]),
                     st.integers(1, 6000).map(lambda k: "(" * k))
    value = st.one_of(text, st.integers(-(2**100), 2**100), st.none(), st.booleans(),
                      st.floats(allow_nan=False), st.lists(text, max_size=3))
    tools = st.sampled_from(["search_logs", "query_metrics", "list_events", "list_metrics",
                             "get_slow_queries", "get_component_health", "get_ticket"])
    keys = st.sampled_from(["pattern", "limit", "cursor", "name", "labels", "start", "end",
                            "component", "max_points", "kind", "min_latency_ms"])
    return st.tuples(tools, st.dictionaries(keys, value, max_size=4))


def section_mcp(n: int, tmp: Path, seed: int, tally: Any, run_given: Any) -> Any:
    proc = subprocess.Popen(
        [sys.executable, "-m", "rcaeval.tools", "serve", "--case-dir", str(PANIC),
         "--bundle-dir", str(tmp / "b")], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    buf = b""

    def send(obj: Any) -> None:
        line = json.dumps(obj)  # json keeps lone surrogates as \ud800 escapes
        proc.stdin.write(line.encode() + b"\n")
        proc.stdin.flush()

    def answer(msg_id: int, bound: float = 30.0) -> dict[str, Any] | None:
        nonlocal buf
        deadline = time.monotonic() + bound
        while True:
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                msg = json.loads(line)
                if msg.get("id") == msg_id:
                    return msg
            left = deadline - time.monotonic()
            ready, _, _ = select.select([proc.stdout], [], [], max(left, 0))
            if not ready:
                return None
            chunk = os.read(proc.stdout.fileno(), 1 << 16)
            if not chunk:
                return None
            buf += chunk

    send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "fi", "version": "1"}}})
    answer(0)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    counter = [0]

    def body(call: tuple[str, dict[str, Any]]) -> None:
        tally.inputs += 1
        counter[0] += 1
        send({"jsonrpc": "2.0", "id": counter[0], "method": "tools/call",
              "params": {"name": call[0], "arguments": call[1]}})
        msg = answer(counter[0])
        if msg is None:
            tally.fail("hangs", f"no answer to {call!r}"[:300])
            return
        if "error" in msg:
            if not msg["error"].get("message"):
                tally.fail("crashes", f"a JSON-RPC error without a message: {msg}")
            return
        result = msg.get("result") or {}
        if result.get("isError"):
            text = "".join(c.get("text", "") for c in result.get("content", []))
            if len(text.split(": ", 1)[-1].strip()) < 5 or "pydantic.dev" in text:
                tally.fail("crashes", f"a tool error without a clean message: {text!r}")

    try:
        run_given(_mcp_args(), n, body, seed)
    finally:
        proc.kill()
        proc.wait()
    return tally


def section_escapes(n: int, tmp: Path, seed: int, tally: Any, run_given: Any) -> Any:
    from hypothesis import strategies as st

    from rcaeval.registry._loader import load_case_dir

    cid = "cpu-hotspot-region-001"
    root = tmp / "reg"
    shutil.copytree(SAMPLE / "cases" / cid, root / "cases" / cid)
    case_yaml = root / "cases" / cid / "case.yaml"
    original = case_yaml.read_text()
    keys = ["cluster_id", "product", "region"]
    escape = st.sampled_from(["\\0", "\\x1b[2J", "\\x07", "\\x7f", "\\x85", "\\x9b", "\\ud800",
                              "\\e", "\\a", "\\b", "\\v", "\\f", "\\u0000", "\\U0000001b"])

    def body(pick: tuple[str, str, str]) -> None:
        tally.inputs += 1
        key, esc, text = pick
        lines = original.split("\n")
        hits = [i for i, ln in enumerate(lines) if ln.strip().startswith(f"{key}:")]
        if not hits:
            return
        i = hits[0]
        safe = text.replace("\\", "").replace('"', "")
        lines[i] = lines[i].split(f"{key}:")[0] + f'{key}: "{safe}{esc}{safe}"'
        case_yaml.write_text("\n".join(lines))
        try:
            merged, problems = load_case_dir(root, case_yaml.parent)
        except Exception as exc:  # noqa: BLE001 - counted
            tally.fail("crashes", repr(exc))
            return
        if merged is not None:
            tally.fail("accepted", f"a case loaded with {key}: {esc}")
        elif not all(p.file and p.code and p.message for p in problems):
            tally.fail("crashes", f"problem without file/code/message: {problems}")

    run_given(st.tuples(st.sampled_from(keys), escape, st.text(max_size=8)), n, body, seed)
    return tally


def section_store(n: int, tmp: Path, seed: int, tally: Any) -> Any:
    import rcaeval.store as st
    from rcaeval.judge import judge_audit

    trials = min(20, max(2, n // 100))
    rng = random.Random(seed)
    clean = tmp / "clean.duckdb"
    with st.connect(clean) as s:
        judge_audit(s, THOROUGH, SAMPLE, write_files=False, workers=1)
    data = clean.read_bytes()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RCAEVAL_")}
    for i in range(trials):
        tally.inputs += 1
        blob = bytearray(data)
        if rng.random() < 0.5:
            blob = blob[: rng.randrange(4096, len(blob))]
        else:
            for _ in range(rng.randint(1, 200)):
                blob[rng.randrange(len(blob))] = rng.randrange(256)
        db = tmp / f"d{i}.duckdb"
        db.write_bytes(bytes(blob))
        for args in (["report", THOROUGH.name], ["explain", THOROUGH.name,
                                                  "cpu-hotspot-region-001"]):
            try:
                r = subprocess.run([sys.executable, "-m", "rcaeval", *args, "--db", str(db)],
                                   capture_output=True, text=True, timeout=300, env=env,
                                   cwd=tmp)
            except subprocess.TimeoutExpired:
                tally.fail("hangs", f"{args[0]} on a damaged store")
                continue
            if r.returncode == 5 or "Traceback" in r.stderr:
                tally.fail("crashes", f"{args[0]}: exit {r.returncode}: {r.stderr[-300:]}")
        db.unlink()
        for extra in tmp.glob(f"d{i}.duckdb*"):
            extra.unlink()
    return tally


INPUT_SECTIONS: dict[str, str] = {
    "ids": "run and case ids",
    "files": "input files",
    "mcp": "MCP requests",
    "escapes": "registry escapes",
    "store": "damaged stores",
}
"""Section name -> its row title in the table."""


def run_input_section(name: str, n: int, tmp: Path, seed: int, tally_cls: Any,
                      run_given: Any) -> Any:
    tally = tally_cls(INPUT_SECTIONS[name])
    fn = globals()[f"section_{name}"]
    if name in ("ids", "mcp", "escapes"):
        return fn(n, tmp, seed, tally, run_given)
    return fn(n, tmp, seed, tally)
