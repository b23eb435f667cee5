"""The fault-injection suite behind docs/reliability.md (not a test; CI runs a small count
through tests/reliability/test_rel_fault_injection.py).

    .venv/bin/python -m bench.fault_injection --n 500 --hostile-rounds 1 --kills 5  # documented
    .venv/bin/python -m bench.fault_injection --n 8 --json --only registry harness usage bundles
                                                        # what the fast suite runs

Sections (each tries ``--n`` inputs unless noted):
  registry   hypothesis-corrupted case.yaml / judge.yaml (bytes inserted, replaced, deleted,
             truncated; control characters, anchors, tabs) through the registry loader
  harness    hypothesis-generated JSON through the RCA output harness
  usage      hypothesis-generated usage reports (numbers of every size, NaN, strings, ...)
             through the runner's usage totals
  bundles    hand-made audit dirs (mutated recorded bundles: random bytes, hostile usage in
             manifest.json, symlinks and hard links out, deep trees, sparse 2 GiB files, NUL
             floods, FIFOs) judged in one `judge_audit` pass
  hostile    every hostile agent mode (tests/reliability/agents/hostile_agent.py) through a
             real run next to a well-behaved case (``--hostile-rounds`` rounds)
  kill       ``--kills`` trials: `rcaeval run` SIGKILLed at a random moment, then
             ``--resume``d; the result must equal a clean run

Counted per section: inputs tried, crashes (an exception that is not a documented input
error), hangs (an input that ran past its bound), lost judgments (a case without its verdict),
duplicated judgments, stranded runs (a run not in a terminal status), outside reads (a secret
planted outside a bundle found in the store), differing verdicts (a well-behaved case judged
differently than in a clean run).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import orjson

from bench.fault_injection_inputs import INPUT_SECTIONS, run_input_section

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "data" / "registry"
THOROUGH = REPO / "data" / "recorded" / "rec-thorough"
HOSTILE = REPO / "tests" / "reliability" / "agents" / "hostile_agent.py"
SECRET = "TOPSECRET-7f3a"
CASES = ["cpu-hotspot-region-001", "kill-query-chain-001", "tikv-panic-restart-001",
         "disk-full-tikv-001"]


@dataclass
class Tally:
    section: str
    inputs: int = 0
    crashes: int = 0
    hangs: int = 0
    lost: int = 0
    duplicated: int = 0
    stranded: int = 0
    outside_reads: int = 0
    differing: int = 0
    accepted: int = 0
    seconds: float = 0.0
    first_failure: str = ""

    def fail(self, kind: str, detail: str) -> None:
        setattr(self, kind, getattr(self, kind) + 1)
        if not self.first_failure:
            self.first_failure = f"{kind}: {detail[:300]}"


# -- registry YAML ---------------------------------------------------------------------------

def _corruptions(original: bytes) -> Any:
    from hypothesis import strategies as st

    @st.composite
    def corrupt(draw: Any) -> bytes:
        data = bytearray(original)
        for _ in range(draw(st.integers(1, 5))):
            kind = draw(st.sampled_from(["insert", "replace", "delete", "truncate"]))
            pos = draw(st.integers(0, len(data)))
            if kind == "insert":
                data[pos:pos] = draw(st.binary(min_size=1, max_size=8) | st.sampled_from(
                    [b"\x00", b"\x1b", b"\x85", b"\xff", b"&a ", b"*a", b": [", b"\t", b"{",
                     b"- ", b"!!python/object ", b"\xef\xbf\xbe", b"<<: *a\n", b"\r"]))
            elif kind == "replace" and pos < len(data):
                data[pos] = draw(st.integers(0, 255))
            elif kind == "delete":
                del data[pos:pos + draw(st.integers(1, 30))]
            else:
                del data[pos:]
        return bytes(data)

    return corrupt()


def _run_given(strategy: Any, n: int, body: Callable[..., None], seed: int) -> None:
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    test = settings(max_examples=n, deadline=None, database=None,
                    phases=[Phase.generate], suppress_health_check=list(HealthCheck))(
        hseed(seed)(given(strategy)(body)))
    test()


def section_registry(n: int, tmp: Path, seed: int) -> Tally:
    from hypothesis import strategies as st

    from rcaeval.registry._loader import load_case_dir

    t = Tally("registry YAML")
    cid = CASES[0]
    case_text = (SAMPLE / "cases" / cid / "case.yaml").read_bytes()
    judge_text = (SAMPLE / "cases" / cid / "judge.yaml").read_bytes()
    root = tmp / "reg"
    shutil.copytree(SAMPLE / "cases" / cid, root / "cases" / cid)
    case_dir = root / "cases" / cid

    def body(pair: tuple[bytes, bytes]) -> None:
        t.inputs += 1
        (case_dir / "case.yaml").write_bytes(pair[0])
        (case_dir / "judge.yaml").write_bytes(pair[1])
        started = time.monotonic()
        try:
            merged, problems = load_case_dir(root, case_dir)
            if merged is None and not all(p.file and p.code and p.message for p in problems):
                t.fail("crashes", f"problem without file/code/message: {problems}")
        except Exception as exc:  # noqa: BLE001 - counted
            t.fail("crashes", repr(exc))
        if time.monotonic() - started > 10:
            t.fail("hangs", "registry load took over 10 s")

    _run_given(st.tuples(_corruptions(case_text), _corruptions(judge_text)), n, body, seed)
    return t


# -- harness input ---------------------------------------------------------------------------

def _json_values() -> Any:
    from hypothesis import strategies as st

    scalars = (st.none() | st.booleans() | st.integers(-(2**70), 2**70)
               | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=30))
    return st.recursive(scalars, lambda kids: st.lists(kids, max_size=5)
                        | st.dictionaries(st.text(max_size=12), kids, max_size=6), max_leaves=30)


def section_harness(n: int, tmp: Path, seed: int) -> Tally:
    from hypothesis import strategies as st

    from rcaeval.errors import InputError
    from rcaeval.harness import check

    t = Tally("harness input")
    samples = REPO / "data" / "harness" / "samples.jsonl"
    base = orjson.loads(samples.read_bytes().split(b"\n", 1)[0]) if samples.exists() else {}
    keys = sorted(base) if isinstance(base, dict) else []
    strategy = st.one_of(_json_values(), st.builds(
        lambda k, v: {**base, k: v} if keys else v, st.sampled_from(keys or ["x"]),
        _json_values()))

    def body(value: Any) -> None:
        t.inputs += 1
        try:
            check(value)
        except InputError:
            pass
        except Exception as exc:  # noqa: BLE001 - counted
            t.fail("crashes", repr(exc))

    _run_given(strategy, n, body, seed)
    return t


# -- usage reports ---------------------------------------------------------------------------

def section_usage(n: int, tmp: Path, seed: int) -> Tally:
    from hypothesis import strategies as st

    from rcaeval._usage import USAGE_KEYS, bound, json_safe
    from rcaeval.runner._agents import add_usage, empty_usage, final_usage, set_usage

    t = Tally("usage reports")
    numbers = (st.integers(-(2**80), 2**80) | st.floats(allow_nan=True, allow_infinity=True)
               | st.none() | st.text(max_size=5) | st.booleans())
    reports = st.lists(st.dictionaries(st.sampled_from(USAGE_KEYS), numbers), max_size=6)

    def body(turns: list[dict[str, Any]]) -> None:
        t.inputs += 1
        try:
            usage = empty_usage()
            for report in turns:
                for key, value in report.items():
                    (set_usage if key == "cost_usd" else add_usage)(usage, key, value)
            for key, value in final_usage(usage).items():
                if value is not None and not (0 <= value <= bound(key)):
                    t.fail("crashes", f"{key} total {value!r} escaped the bound")
            orjson.dumps(json_safe({**usage, "reported": turns}))
        except Exception as exc:  # noqa: BLE001 - counted
            t.fail("crashes", repr(exc))

    _run_given(reports, n, body, seed)
    return t


# -- hand-made bundles -----------------------------------------------------------------------

def _mutate_bundle(case: Path, rng: random.Random, secret: Path) -> str:
    kind = rng.choice(["bytes", "truncate", "usage", "symlink", "hardlink", "deep", "sparse",
                       "nul", "fifo", "json", "manifest"])
    files = sorted(p for p in case.rglob("*") if p.is_file())
    target = rng.choice(files) if files else case / "output.txt"
    if kind == "bytes":
        data = bytearray(target.read_bytes())
        for _ in range(rng.randint(1, 20)):
            if data:
                data[rng.randrange(len(data))] = rng.randrange(256)
        target.write_bytes(bytes(data))
    elif kind == "truncate":
        target.write_bytes(target.read_bytes()[: rng.randint(0, 50)])
    elif kind in ("usage", "manifest"):
        m = orjson.loads((case / "manifest.json").read_bytes())
        values = [1e300, -1, 2**64, "x", None, 1.5, 10**15 + 1, True, [], {"a": 1}]
        m["usage"] = {k: rng.choice(values) for k in ("input_tokens", "output_tokens",
                                                      "cache_read_tokens", "cost_usd")}
        if kind == "manifest":
            m[rng.choice(list(m) or ["x"])] = rng.choice(values)
        import json
        (case / "manifest.json").write_text(json.dumps(m))
    elif kind == "symlink":
        (case / "evidences").mkdir(exist_ok=True)
        os.symlink(secret, case / "evidences" / f"s{rng.randrange(99)}.json")
    elif kind == "hardlink":
        (case / "evidences").mkdir(exist_ok=True)
        os.link(secret, case / "evidences" / f"h{rng.randrange(99)}.json")
    elif kind == "deep":
        d = case / "evidences"
        for _ in range(rng.randint(50, 300)):
            d = d / "d"
        d.mkdir(parents=True, exist_ok=True)
        (d / "x.json").write_text("{}")
    elif kind == "sparse":
        with open(case / "output.txt", "wb") as fh:
            fh.truncate(2 * 1024**3)
    elif kind == "nul":
        (case / "output.txt").write_bytes(b"\0" * rng.randint(1, 5_000_000))
    elif kind == "fifo":
        (case / "logs").mkdir(exist_ok=True)
        os.mkfifo(case / "logs" / "pipe.log")
    else:
        (case / "evidences").mkdir(exist_ok=True)
        (case / "evidences" / "r.json").write_bytes(orjson.dumps(
            {"evidence_id": rng.random(), "x": [rng.random()] * rng.randint(0, 100)}))
    return kind


def section_bundles(n: int, tmp: Path, seed: int) -> Tally:
    import rcaeval.store as st
    from rcaeval.judge import judge_audit

    t = Tally("bundle files")
    rng = random.Random(seed)
    secret = tmp / "secret.json"
    secret.write_text(orjson.dumps({"evidence_id": SECRET, "text": SECRET}).decode())
    audits = tmp / "audits"
    run_ids = []
    for i in range(n):
        cid = CASES[i % len(CASES)]
        run_id = f"fz{i // len(CASES):05d}"
        case = audits / run_id / cid
        shutil.copytree(THOROUGH / cid, case)
        _mutate_bundle(case, rng, secret)
        run_ids.append((run_id, cid))
        t.inputs += 1
    started = time.monotonic()
    with st.connect(tmp / "bundles.duckdb") as s:
        try:
            judge_audit(s, audits, SAMPLE, out_dir=tmp / "out", workers=1)
        except Exception as exc:  # noqa: BLE001 - counted
            t.fail("crashes", repr(exc))
            return t
        # A bundle is identified by its directory: a manifest.json whose run_id was mutated
        # into another string labels the judgment with that run id, which is not a loss.
        counts = {Path(d).resolve(): k for d, k in s.con.execute(
            "SELECT b.case_dir, count(j.case_id) FROM raw_bundle b LEFT JOIN eval_judgment j "
            "USING (run_id, case_id) GROUP BY ALL").fetchall()}
        for key in run_ids:
            got = counts.get((audits / key[0] / key[1]).resolve(), 0)
            if got == 0:
                t.fail("lost", f"no judgment for {key}")
            elif got > 1:
                t.fail("duplicated", f"{got} judgments for {key}")
        leaks = s.con.execute(
            "SELECT count(*) FROM raw_json WHERE contains(value_text, $s)", {"s": SECRET}
        ).fetchone()[0]
        if leaks:
            t.fail("outside_reads", f"{leaks} raw_json values hold the planted secret")
    if time.monotonic() - started > max(120, n):
        t.fail("hangs", "judging the bundles took too long")
    return t


# -- hostile agents and kill-and-resume --------------------------------------------------------

HOSTILE_MODES = {
    "usage_huge": {}, "big_output": {}, "nul_stdout": {"HOSTILE_SIZE": str(40 * 10**6)},
    "deep_tree": {}, "wide_dir": {}, "symlink_runner": {}, "daemon": {},
    "symlink_workspace": {}, "delete_workspace": {},
}


def _registry(tmp: Path, cases: list[str]) -> Path:
    import yaml

    root = tmp / "registry"
    if not root.exists():
        (root / "suites").mkdir(parents=True)
        for cid in cases:
            shutil.copytree(SAMPLE / "cases" / cid, root / "cases" / cid)
        suite = {"suite_id": "fi", "version": "1", "execution": {"jobs": 2},
                 "cases": [{"id": c, "status": "active"} for c in cases]}
        (root / "suites" / "fi.yaml").write_text(yaml.safe_dump(suite, sort_keys=False))
    return root


def _clean_verdicts() -> dict[str, str]:
    """What a clean run of the thorough recording is judged: the shipped
    data/recorded/EXPECTED.csv (not a judgment.json in the recording, which a manual
    `rcaeval judge data/recorded/...` may have left there, judged against another registry)."""
    import csv

    with open(THOROUGH.parent / "EXPECTED.csv", newline="", encoding="utf-8") as fh:
        expected = {r["case_id"]: r["expected_verdict"] for r in csv.DictReader(fh)
                    if r["run_id"] == THOROUGH.name}
    return {cid: expected[cid] for cid in CASES}


def _check_run(t: Tally, db: Path, run_id: str, expect: dict[str, str]) -> None:
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    try:
        status = con.execute("SELECT status FROM eval_runs WHERE run_id = ?", [run_id]).fetchone()
        if status is None or status[0] not in ("completed", "interrupted", "failed"):
            t.fail("stranded", f"run {run_id} is {status}")
        rows = con.execute("SELECT c.case_id, c.status, count(j.case_id), any_value(j.verdict) "
                           "FROM eval_case_runs c LEFT JOIN eval_judgment j USING "
                           "(run_id, case_id) WHERE run_id = ? GROUP BY ALL", [run_id]).fetchall()
    finally:
        con.close()
    for cid, status, n, verdict in rows:
        if status in ("pending", "running"):
            t.fail("stranded", f"{run_id}/{cid} is {status}")
        if status in ("judged", "timed_out") and n == 0:
            t.fail("lost", f"{run_id}/{cid} has no judgment")
        if n > 1:
            t.fail("duplicated", f"{run_id}/{cid} has {n} judgments")
        if cid in expect and verdict != expect[cid]:
            t.fail("differing", f"{run_id}/{cid}: {verdict} != {expect[cid]}")


def _cli(args: list[str], tmp: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RCAEVAL_")}
    return subprocess.run([sys.executable, "-m", "rcaeval", *args], capture_output=True,
                          text=True, timeout=timeout, env=env, cwd=tmp)


def section_hostile(rounds: int, tmp: Path, seed: int) -> Tally:
    t = Tally("hostile agents")
    reg = _registry(tmp, CASES[:2])
    clean = _clean_verdicts()
    spec = f"command:{shlex.quote(sys.executable)} {shlex.quote(str(HOSTILE))}"
    for r in range(rounds):
        for mode, extra in HOSTILE_MODES.items():
            t.inputs += 1
            run_id = f"h{r}-{mode}"
            env_args = [a for k, v in {"REC_DIR": str(THOROUGH), "HOSTILE_MODE": mode,
                                       "HOSTILE_CASES": CASES[0],
                                       "HOSTILE_PID_FILE": str(tmp / f"{run_id}.pid"),
                                       "HOSTILE_TARGET": str(tmp / "target"), **extra}.items()
                        for a in ("--agent-env", f"{k}={v}")]
            (tmp / "target").mkdir(exist_ok=True)
            try:
                res = _cli(["run", "--suite", "fi", "--registry", str(reg), "--db",
                            str(tmp / "hostile.duckdb"), "--audit-root", str(tmp / "ha"),
                            "--run-id", run_id, "--no-progress", "--agent", spec,
                            "--expose-case-ids", "--timeout", "120",
                            # the hostile agents replay host recordings the sandbox hides;
                            # sandbox leaks are tested in tests/runner/test_runner_sandbox.py
                            "--sandbox", "none", *env_args], tmp, 600)
            except subprocess.TimeoutExpired:
                t.fail("hangs", f"{mode}: the run did not end in 600 s")
                continue
            if res.returncode != 0:
                t.fail("crashes", f"{mode}: exit {res.returncode}: {res.stderr[-300:]}")
            _check_run(t, tmp / "hostile.duckdb", run_id, {CASES[1]: clean[CASES[1]]})
            pid_file = tmp / f"{run_id}.pid"
            if pid_file.exists():
                from rcaeval.runner._proc import pid_running

                if pid_running(int(pid_file.read_text())):
                    t.fail("crashes", f"{mode}: the agent's daemon outlived the run")
            if any((tmp / "target").iterdir()):
                t.fail("outside_reads", f"{mode}: the runner wrote through an agent symlink")
    return t


def section_kill(kills: int, tmp: Path, seed: int) -> Tally:
    t = Tally("kill and resume")
    rng = random.Random(seed)
    reg = _registry(tmp, CASES)
    clean = _clean_verdicts()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RCAEVAL_")}
    for i in range(kills):
        t.inputs += 1
        run_id, db = f"k{i}", tmp / f"kill{i % 4}.duckdb"
        base = ["run", "--suite", "fi", "--registry", str(reg), "--db", str(db),
                "--audit-root", str(tmp / "ka"), "--workspace-root", str(tmp / "kw"),
                "--agent", "replay:thorough", "--no-progress", "--jobs", "2"]
        proc = subprocess.Popen([sys.executable, "-m", "rcaeval", *base, "--run-id", run_id],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                                cwd=tmp, start_new_session=True)
        try:
            proc.wait(timeout=rng.uniform(0.3, 6.0))  # a random kill point
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        import duckdb

        with contextlib.closing(duckdb.connect(str(db))) as con:
            recorded = con.execute("SELECT count(*) FROM eval_runs WHERE run_id = ?",
                                   [run_id]).fetchone()[0] if "eval_runs" in {
                r[0] for r in con.execute("SELECT table_name FROM information_schema.tables"
                                          ).fetchall()} else 0
        if not recorded:  # killed before the run was recorded: nothing to resume, start it
            args = [*base, "--run-id", run_id]
            if (tmp / "ka" / run_id).exists():
                shutil.rmtree(tmp / "ka" / run_id)
        else:
            args = [*base, "--resume", run_id]
        try:
            res = _cli(args, tmp, 600)
        except subprocess.TimeoutExpired:
            t.fail("hangs", f"trial {i}: resume did not end")
            continue
        if res.returncode != 0:
            t.fail("crashes", f"trial {i}: exit {res.returncode}: {res.stderr[-300:]}")
        _check_run(t, db, run_id, clean)
    return t


SECTIONS = ("registry", "harness", "usage", "bundles", *INPUT_SECTIONS, "hostile", "kill")


def run(n: int, hostile_rounds: int, kills: int, seed: int, only: list[str] | None = None,
        progress: Callable[[str], None] = lambda _m: None) -> list[Tally]:
    out = []
    with tempfile.TemporaryDirectory(prefix="rcaeval-fi-") as d:
        tmp = Path(d)
        for name in only or SECTIONS:
            sub = tmp / name
            sub.mkdir()
            count = {"hostile": hostile_rounds, "kill": kills}.get(name, n)
            progress(f"{name}: {count}")
            started = time.monotonic()
            tally = (run_input_section(name, count, sub, seed, Tally, _run_given)
                     if name in INPUT_SECTIONS else globals()[f"section_{name}"](count, sub, seed))
            tally.seconds = round(time.monotonic() - started, 1)
            out.append(tally)
    return out


def table(tallies: list[Tally]) -> str:
    cols = ("inputs", "crashes", "hangs", "lost", "duplicated", "stranded", "outside_reads",
            "differing", "accepted", "seconds")
    head = ("| section | inputs tried | crashes | hangs | lost judgments | duplicated "
            "judgments | stranded runs | outside reads | differing verdicts | wrongly accepted "
            "| seconds |")
    lines = [head, "|---|" + "---:|" * len(cols)]
    for t in tallies:
        lines.append(f"| {t.section} | " + " | ".join(str(getattr(t, c)) for c in cols) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=100, help="inputs per generated section")
    p.add_argument("--hostile-rounds", type=int, default=None,
                   help="rounds over every hostile agent mode (default: 1 + n // 500)")
    p.add_argument("--kills", type=int, default=None,
                   help="kill-and-resume trials (default: max(3, n // 20))")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--only", nargs="*", choices=SECTIONS)
    p.add_argument("--json", action="store_true", help="print the tallies as JSON lines")
    a = p.parse_args(argv)
    rounds = a.hostile_rounds if a.hostile_rounds is not None else 1 + a.n // 500
    kills = a.kills if a.kills is not None else max(3, a.n // 20)
    tallies = run(a.n, rounds, kills, a.seed, a.only,
                  progress=lambda m: print(m, file=sys.stderr, flush=True))
    if a.json:
        for tally in tallies:
            print(orjson.dumps(asdict(tally)).decode())
    else:
        print(table(tallies))
        for tally in tallies:
            if tally.first_failure:
                print(f"{tally.section}: {tally.first_failure}")
    bad = any(t.crashes or t.hangs or t.lost or t.duplicated or t.stranded or t.outside_reads
              or t.differing or t.accepted for t in tallies)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
