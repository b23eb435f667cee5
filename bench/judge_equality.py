"""Judge equality harness: the same inputs judged by two code revisions, compared byte for byte.

    .venv/bin/python -m bench.judge_equality --base main            # all inputs, base = main
    .venv/bin/python -m bench.judge_equality --base HEAD~3 --inputs sample faults
    .venv/bin/python -m bench.judge_equality --base-dir /tmp/old-tree --inputs sample \\
        --sample-runs rec-thorough/disk-full-tikv-001                # what the fast suite runs

Not a test: it prints a report and exits 1 when anything differs. The two sides are the
``--base`` revision of this checkout (exported with ``git archive``; or ``--base-dir``, a tree
with ``rcaeval/`` and ``queries/``) and the working tree (``--head-dir``). Each side judges in
its own Python process with ``PYTHONPATH`` set to its tree (bench/_equality_side.py), over the
same input files, which the harness prepares once:

  sample     the recorded sample runs (data/recorded, ``--sample-runs`` to pick some) against
             the sample registry: the golden packets' inputs
  generated  ``--runs`` runs from ``rcaeval.synth.generate_runs`` (seed ``--seed``), judged
             ``--chunk-size`` case runs a pass, so several chunks and detector blocks run
  faults     ``--faults`` recorded bundles mutated as bench/fault_injection.py's ``bundles``
             section does (random bytes, truncation, hostile usage, links out, deep trees,
             sparse and NUL files, FIFOs, odd JSON), seeded
  run        ``rcaeval run`` of the smoke suite with the replay agent: the runner's own
             per-case judging

Every input is judged with ``judge_audit`` and then re-judged with ``rejudge_store`` from
what that stored; each pass's judgment.json files are compared byte for byte, and every row
of every ``eval_*`` table and the returned frame row by row (wall-clock columns and the side's
own directory masked, see bench/_equality_side.py; runner workspace ids, random per case run,
masked too; for the ``run`` input the durations the live run measured).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SIDE = Path(__file__).resolve().parent / "_equality_side.py"
INPUTS = ("sample", "generated", "faults", "run")
EXAMPLES = 3
DIGEST = re.compile(r'judge_sql_digest(\\?"\s*:\s*\\?")([0-9a-f]{16})')
"""``judge_sql_digest`` in a packet, and in a packet held as text in a row (escaped quotes)."""
WORKSPACE = re.compile(r"ws-[0-9a-f]{12}")
"""A runner workspace id: random per case run (rcaeval.runner), so never compared."""
CLOCK = re.compile(r'(\\?"(?:wall_seconds|duration_s)\\?": )-?[0-9.e+-]+')
"""Durations a live run measures (the ``run`` input only: two runs never take equally long;
recorded audits' durations come from their files and are compared)."""


@dataclass
class Compared:
    """One input's pass on both sides: counts and the first few differences."""

    input: str
    name: str
    packets: int = 0
    packets_differing: int = 0
    rows: int = 0
    rows_differing: int = 0
    examples: list[str] = field(default_factory=list)

    @property
    def differences(self) -> int:
        return self.packets_differing + self.rows_differing

    def note(self, text: str) -> None:
        if len(self.examples) < EXAMPLES:
            self.examples.append(text)


def export_revision(rev: str, dest: Path) -> Path:
    """The tree of ``rev`` (this checkout's git) under ``dest``: what judging imports."""
    dest.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev, "rcaeval", "queries",
                              "pyproject.toml"], capture_output=True, check=False)
    if archive.returncode:
        raise SystemExit(f"git archive {rev}: {archive.stderr.decode(errors='replace')}")
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    return dest


def prepare_inputs(work: Path, names: list[str], *, sample_runs: list[str] | None, runs: int,
                   faults: int, seed: int, chunk_size: int) -> list[dict[str, object]]:
    """Write the input files once (both sides read the same ones); the side specs."""
    data = REPO / "data"
    registry = str(data / "registry")
    out: list[dict[str, object]] = []
    if "sample" in names:
        audits = work / "inputs/sample"
        picked = sample_runs or sorted(p.name for p in (data / "recorded").iterdir()
                                       if p.is_dir())
        for run in picked:
            shutil.copytree(data / "recorded" / run, audits / run)
        out.append({"name": "sample", "kind": "audits", "audits": str(audits),
                    "registry": registry})
    if "generated" in names:
        from rcaeval.synth import generate_runs

        base = work / "inputs/generated"
        generate_runs(base, runs, seed)
        out.append({"name": "generated", "kind": "audits", "audits": str(base / "recorded"),
                    "registry": str(base / "registry"), "chunk_size": chunk_size})
    if "faults" in names:
        out.append({"name": "faults", "kind": "audits", "registry": registry,
                    "audits": str(_fault_bundles(work / "inputs/faults", faults, seed))})
    if "run" in names:
        out.append({"name": "run", "kind": "run", "suite": "smoke", "registry": registry,
                    "agent": "replay:thorough"})
    return out


def _fault_bundles(root: Path, n: int, seed: int) -> Path:
    from bench.fault_injection import CASES, THOROUGH, _mutate_bundle

    rng = random.Random(seed)
    secret = root / "secret.json"
    audits = root / "audits"
    audits.mkdir(parents=True)
    secret.write_text('{"evidence_id": "planted-secret"}', encoding="utf-8")
    for i in range(n):
        cid = CASES[i % len(CASES)]
        case = audits / f"fz{i // len(CASES):05d}" / cid
        shutil.copytree(THOROUGH / cid, case)
        _mutate_bundle(case, rng, secret)
    return audits


def run_side(tree: Path, side: Path, inputs: list[dict[str, object]]) -> subprocess.Popen[str]:
    """Start one side: a Python process importing rcaeval from ``tree``."""
    side.mkdir(parents=True, exist_ok=True)
    spec = side / "spec.json"
    spec.write_text(json.dumps({"side": str(side), "inputs": inputs}), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RCAEVAL_")}
    env["PYTHONPATH"] = str(tree)
    env["RCAEVAL_DATA"] = str(REPO / "data")
    return subprocess.Popen([sys.executable, str(SIDE), str(spec)], cwd=tree, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _files(root: Path) -> dict[str, Path]:
    return {str(p.relative_to(root)): p for p in sorted(root.rglob("*")) if p.is_file()}


def _masked(text: str, mask: bool, clock: bool = False) -> str:
    text = WORKSPACE.sub("ws-<random>", text)
    if clock:
        text = CLOCK.sub(r"\1<clock>", text)
    return DIGEST.sub(r"judge_sql_digest\1<digest>", text) if mask else text


def compare_pass(input_name: str, name: str, a: Path, b: Path, *,
                 mask_digest: bool = False, clock: bool = False) -> Compared:
    """Packets byte for byte, table rows and frame rows as multisets of lines. With
    ``mask_digest`` the value of ``judge_sql_digest`` (wherever it stands) is not compared:
    for a change that moves the judge's SQL without changing what it decides."""
    c = Compared(input_name, name)
    pa, pb = _files(a / "packets"), _files(b / "packets")
    for rel in sorted(set(pa) | set(pb)):
        c.packets += 1
        if rel not in pa or rel not in pb:
            c.packets_differing += 1
            c.note(f"packet {rel}: only in {'head' if rel in pb else 'base'}")
        elif _packet(pa[rel], mask_digest, clock) != _packet(pb[rel], mask_digest, clock):
            c.packets_differing += 1
            c.note(f"packet {rel}: {_first_difference(pa[rel], pb[rel])}")
    ta = {**_files(a / "tables"), "frame": a / "frame.jsonl"}
    tb = {**_files(b / "tables"), "frame": b / "frame.jsonl"}
    for rel in sorted(set(ta) | set(tb)):
        la = _lines(ta.get(rel), mask_digest, clock)
        lb = _lines(tb.get(rel), mask_digest, clock)
        c.rows += max(sum(la.values()), sum(lb.values()))
        only_a, only_b = la - lb, lb - la
        n = max(sum(only_a.values()), sum(only_b.values()))
        if rel in ta and rel in tb and not n:
            continue
        c.rows_differing += n or 1
        table = rel.removesuffix(".jsonl")
        if rel not in ta or rel not in tb:
            c.note(f"{table}: only in {'head' if rel in tb else 'base'}")
        for line in list(only_a)[:1]:
            c.note(f"{table} base row: {line[:300]}")
        for line in list(only_b)[:1]:
            c.note(f"{table} head row: {line[:300]}")
    return c


def _packet(path: Path, mask: bool, clock: bool) -> bytes:
    return _masked(path.read_bytes().decode("utf-8"), mask, clock).encode("utf-8")


def _lines(path: Path | None, mask: bool, clock: bool) -> Counter[str]:
    if path is None or not path.is_file():
        return Counter()
    return Counter(_masked(path.read_text(encoding="utf-8"), mask, clock).splitlines())


def digests(side: Path) -> list[str]:
    """The distinct ``judge_sql_digest`` values of one side's packets."""
    found = {m.group(2) for p in side.rglob("judgment.json")
             for m in DIGEST.finditer(p.read_text(encoding="utf-8", errors="replace"))}
    return sorted(found)


def _first_difference(a: Path, b: Path) -> str:
    la, lb = a.read_text(encoding="utf-8", errors="replace").splitlines(), \
        b.read_text(encoding="utf-8", errors="replace").splitlines()
    for i, (x, y) in enumerate(zip(la, lb, strict=False), 1):
        if x != y:
            return f"line {i}: base {x.strip()[:120]!r} head {y.strip()[:120]!r}"
    return f"base {len(la)} lines, head {len(lb)} lines"


def compare(base: Path, head: Path, inputs: list[dict[str, object]], *,
            mask_digest: bool = False) -> list[Compared]:
    out = []
    for item in inputs:
        name = str(item["name"])
        passes = sorted({p.name for side in (base, head) for p in (side / name).iterdir()
                         if p.is_dir() and p.name in ("judge", "rejudge", "run")})
        out.extend(compare_pass(name, p, base / name / p, head / name / p,
                                mask_digest=mask_digest, clock=item.get("kind") == "run")
                   for p in passes)
    return out


def report(results: list[Compared], base_label: str, head_label: str, *,
           digest_line: str = "") -> str:
    lines = [f"judge equality: base {base_label}  vs  head {head_label}",
             *([digest_line] if digest_line else []),
             f"{'input':<10} {'pass':<8} {'packets':>8} {'differ':>7} {'eval rows':>10} "
             f"{'differ':>7}"]
    for c in results:
        lines.append(f"{c.input:<10} {c.name:<8} {c.packets:>8} {c.packets_differing:>7} "
                     f"{c.rows:>10} {c.rows_differing:>7}")
        lines.extend(f"    {e}" for e in c.examples)
    total = sum(c.differences for c in results)
    lines.append(f"differences: {total} (packets {sum(c.packets for c in results)}, "
                 f"eval rows {sum(c.rows for c in results)} compared)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="HEAD", help="git revision of the base side")
    ap.add_argument("--base-dir", type=Path, help="a tree (rcaeval/, queries/) as the base")
    ap.add_argument("--head-dir", type=Path, default=REPO, help="the head side's tree")
    ap.add_argument("--inputs", nargs="+", choices=INPUTS, default=list(INPUTS))
    ap.add_argument("--sample-runs", nargs="+",
                    help="recorded runs (RUN or RUN/CASE) of data/recorded to judge")
    ap.add_argument("--runs", type=int, default=600, help="generated runs")
    ap.add_argument("--faults", type=int, default=24, help="fault-injected bundles")
    ap.add_argument("--chunk-size", type=int, default=50, help="chunk size for generated")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--work", type=Path, help="keep inputs and both sides' output here")
    ap.add_argument("--json", type=Path, help="also write the comparison as JSON")
    ap.add_argument("--mask-digest", action="store_true",
                    help="do not compare judge_sql_digest values (the SQL moved, see report)")
    args = ap.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="rcaeval-equality-"))
    try:
        base_tree = args.base_dir or export_revision(args.base, work / "base-tree")
        base_label = str(args.base_dir) if args.base_dir else args.base
        inputs = prepare_inputs(work, args.inputs, sample_runs=args.sample_runs,
                                runs=args.runs, faults=args.faults, seed=args.seed,
                                chunk_size=args.chunk_size)
        procs = {"base": run_side(base_tree, work / "base", inputs),
                 "head": run_side(args.head_dir, work / "head", inputs)}
        for label, proc in procs.items():
            _, err = proc.communicate()
            if proc.returncode:
                print(f"{label} side failed (exit {proc.returncode}):\n{err[-4000:]}",
                      file=sys.stderr)
                return 2
        results = compare(work / "base", work / "head", inputs, mask_digest=args.mask_digest)
        da, db = digests(work / "base"), digests(work / "head")
        line = (f"judge_sql_digest: base {','.join(da)} head {','.join(db)} "
                + ("(same)" if da == db else
                   "(differs: masked)" if args.mask_digest else "(differs)"))
        print(report(results, base_label, f"{args.head_dir} (working tree)", digest_line=line))
        if args.json:
            args.json.write_text(json.dumps([vars(c) for c in results], indent=2) + "\n",
                                 encoding="utf-8")
        return 1 if any(c.differences for c in results) else 0
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
