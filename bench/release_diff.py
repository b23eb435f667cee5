"""Differential check of release metrics (not a test): a generated window with random type and
value mutations in every nested column, measured by the checkout on ``PYTHONPATH``, dumped as
one canonical JSON document (every problem, the population, the metrics frame), so that two
checkouts can be compared byte for byte before a change to validation or the window lands.

    .venv/bin/python -m bench.release_diff make --n 3000 --seed 1 --out /tmp/x
    cd /tmp && PYTHONPATH=/path/to/checkout-a python bench/release_diff.py dump /tmp/x > a.json
    cd /tmp && PYTHONPATH=/path/to/checkout-b python bench/release_diff.py dump /tmp/x > b.json
    cmp a.json b.json

(``dump`` by path, from outside a checkout, so that ``rcaeval`` is the one on PYTHONPATH.)

``make`` writes the window two ways (Parquet with JSON text columns, and JSON lines), after
random mutations of every nested column (the capture/2 ``knowledge`` and ``trace`` columns
and ``response.confidence_diagnostics`` among them) and one targeted mutation per rule of
queries/release/validate_trace.sql (``RULE_MUTATIONS``, each on n/500 captures);
``dump`` measures both, over every capture, the first week and two single stages: problems,
population, the metrics frame, the diagnostics and the knowledge provenance.
"""

from __future__ import annotations

import argparse
import copy
import random
import sys
from pathlib import Path
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.parquet as pq

NESTED = ("response", "harness", "labels", "tool_executions", "knowledge_activations",
          "review_ids", "knowledge", "trace")
READ_KEYS = frozenset((
    "outcome", "root_cause", "family", "confidence", "evidence_ids", "novel", "evidence",
    "origin", "usable", "supports", "source", "source_group", "dispositive_signature",
    "hypotheses", "claims", "material", "status", "analysis_hash", "case_type",
    "expected_family", "expected_outcome", "relevant_evidence_ids", "destructive",
    "admissible", "succeeded", "latency_seconds", "id",
    # capture/2: knowledge, trace, response.confidence_diagnostics
    "package_id", "activation_path", "format", "observations", "order", "collector", "plane",
    "probe_template_id", "hypothesis", "evidence_id", "incident_time_relation",
    "supporting_source_groups", "contradicting_source_groups", "plan_step",
    "confidence_diagnostics", "probability", "independent_source_groups", "adjustments",
    "name", "delta", "gates", "gate", "passed"))
"""Keys the release metrics read or validate: most mutations land on them."""
SCALARS = ("capture_id", "captured_at", "stage", "population", "incident_id", "outage_test")


def _random_value(rng: random.Random) -> Any:
    return rng.choice([
        None, True, False, 0, -1, 3, -2.5, 1.5, 1e300, 12345678901234567890, "", "x", "true",
        "5", "high", "current_run", "diagnosed", "oom_kill", "OOM_Kill ", "E01", [], [1],
        ["E01", 2], [None], [{"a": 1}], {}, {"family": 5}, {"x": None}, "null",
        "sha256:" + "0" * 64, "2026-11-03T00:00:00Z",
    ])


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


def _mutate_doc(doc: Any, rng: random.Random) -> Any:
    """One random change somewhere in ``doc``: replace a value (any type), delete a key, or
    add a key with a random value."""
    paths = _paths(doc)
    read = [p for p in paths if any(k in READ_KEYS for k in p if isinstance(k, str))]
    path = rng.choice(read if read and rng.random() < 0.8 else paths)
    if not path:
        return _random_value(rng)
    parent = doc
    for p in path[:-1]:
        parent = parent[p]
    last = path[-1]
    action = rng.random()
    if isinstance(parent, dict) and action < 0.2:
        del parent[last]
    elif isinstance(parent, dict) and action < 0.3:
        parent[rng.choice(["novel", "usable", "supports", "family", "confidence",
                           "latency_seconds", "succeeded", "material", "evidence_ids"])] = (
            _random_value(rng))
    else:
        parent[last] = _random_value(rng)
    return doc


def _obs0(doc: dict[str, Any]) -> dict[str, Any]:
    obs = doc.setdefault("observations", [])
    if not isinstance(obs, list):
        obs = doc["observations"] = []
    if not obs:
        obs.append({"order": 1, "collector": "prometheus", "plane": "metrics",
                    "incident_time_relation": "during"})
    return obs[0]


def _cd(doc: dict[str, Any]) -> dict[str, Any]:
    cd = doc.get("confidence_diagnostics")
    if not isinstance(cd, dict):
        cd = doc["confidence_diagnostics"] = {"probability": 0.5, "adjustments": [],
                                              "gates": []}
    return cd


def _item(cd: dict[str, Any], key: str, value: dict[str, Any]) -> None:
    cd[key] = [value]


RULE_MUTATIONS: tuple[tuple[str, str, Any], ...] = (
    # (column, the rule of queries/release/validate_trace.sql it breaks, the change)
    ("knowledge", "knowledge is not JSON", "{\"package_id\": "),
    ("knowledge", "knowledge must be an object", lambda d: "kp-1"),
    ("knowledge", "package_id non-empty string", lambda d: d.update(package_id=" ")),
    ("knowledge", "activation_path non-empty string", lambda d: d.update(activation_path=3)),
    ("trace", "trace is not JSON", "trace/3"),
    ("trace", "trace must be an object", lambda d: [d]),
    ("trace", "format", lambda d: d.update(format=3)),
    ("trace", "status", lambda d: d.update(status=True)),
    ("trace", "observations a list", lambda d: d.update(observations={"order": 1})),
    ("trace", "observations own order",
     lambda d: d["observations"].append(dict(_obs0(d)))),
    ("trace", "order", lambda d: _obs0(d).update(order="1")),
    ("trace", "collector", lambda d: _obs0(d).update(collector=5)),
    ("trace", "plane", lambda d: _obs0(d).update(plane=None)),
    ("trace", "incident_time_relation", lambda d: _obs0(d).update(incident_time_relation=1)),
    ("trace", "probe_template_id", lambda d: _obs0(d).update(probe_template_id=[])),
    ("trace", "hypothesis", lambda d: _obs0(d).update(hypothesis=5)),
    ("trace", "evidence_id", lambda d: _obs0(d).update(evidence_id={})),
    ("trace", "supporting_source_groups",
     lambda d: _obs0(d).update(supporting_source_groups=["logs", 1])),
    ("trace", "contradicting_source_groups",
     lambda d: _obs0(d).update(contradicting_source_groups="logs")),
    ("trace", "plan_step", lambda d: _obs0(d).update(plan_step=1.0)),
    ("response", "confidence_diagnostics an object",
     lambda d: d.update(confidence_diagnostics="high")),
    ("response", "probability", lambda d: _cd(d).update(probability="0.5")),
    ("response", "independent_source_groups",
     lambda d: _cd(d).update(independent_source_groups="logs")),
    ("response", "adjustments a list", lambda d: _cd(d).update(adjustments={})),
    ("response", "gates a list", lambda d: _cd(d).update(gates=True)),
    ("response", "adjustment name", lambda d: _item(_cd(d), "adjustments",
                                                     {"name": 1, "delta": 0.1})),
    ("response", "adjustment delta", lambda d: _item(_cd(d), "adjustments",
                                                      {"name": "x", "delta": "0.1"})),
    ("response", "gate", lambda d: _item(_cd(d), "gates", {"gate": None, "passed": True})),
    ("response", "gate passed", lambda d: _item(_cd(d), "gates",
                                                 {"gate": "g", "passed": "true"})),
)
"""One mutation per rule of validate_trace.sql (a string: the column's new text, not JSON;
a function: changes the parsed document in place, or returns its replacement)."""


def mutate_rules(rows: list[dict[str, Any]], rng: random.Random, per_rule: int) -> int:
    """Each rule's mutation on ``per_rule`` captures that carry the column, drawn at random."""
    n = 0
    for col, _rule, change in RULE_MUTATIONS:
        for row in rng.sample([r for r in rows if r.get(col)], per_rule):
            if isinstance(change, str):
                row[col] = change
                n += 1
                continue
            try:
                doc = orjson.loads(row[col])
            except orjson.JSONDecodeError:
                continue
            if not isinstance(doc, dict):
                continue
            out = change(doc)
            row[col] = orjson.dumps(doc if out is None else out).decode()
            n += 1
    return n


def mutate(rows: list[dict[str, Any]], rng: random.Random, share: float) -> int:
    n = 0
    for row in rows:
        if rng.random() >= share:
            continue
        n += 1
        for _ in range(rng.choice([1, 1, 1, 2, 3])):
            col = rng.choice(NESTED + NESTED + SCALARS)
            if col in NESTED:
                text = row[col]
                r = rng.random()
                if r < 0.05:
                    row[col] = (text or "")[: max(1, len(text or "") // 2)]  # not JSON
                elif r < 0.08:
                    row[col] = None
                else:
                    try:
                        doc = orjson.loads(text) if text is not None else None
                    except orjson.JSONDecodeError:
                        continue  # already cut short by an earlier mutation
                    row[col] = orjson.dumps(_mutate_doc(copy.deepcopy(doc), rng)).decode()
            else:
                r = rng.random()
                if r < 0.3:
                    row[col] = None
                elif r < 0.5 and col == "capture_id":
                    row[col] = rows[rng.randrange(len(rows))]["capture_id"]  # duplicate
                elif r < 0.7:
                    row[col] = rng.choice(["", " ", "not a time", "2026-13-01", "unknown",
                                           "typedb", "TypeDB", "shadow", "2026-11-05"])
                else:
                    row[col] = str(_random_value(rng))
    return n


def make(n: int, seed: int, out: Path, share: float) -> None:
    from rcaeval.release._sample import SampleSpec, write_sample

    info = write_sample(out, SampleSpec(n=n, seed=seed, days=14, outage_tests=12),
                        name="diff-window")
    table = pq.read_table(info["captures"])
    rows = table.to_pylist()
    rng = random.Random(seed)
    k = mutate(rows, rng, share)
    k += mutate_rules(rows, rng, per_rule=max(1, n // 500))
    schema = pa.schema([(c, pa.string()) for c in table.column_names])
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), info["captures"])
    with (out / "diff-window.jsonl").open("wb") as fh:
        for row in rows:
            obj: dict[str, Any] = {}
            for c, v in row.items():
                if c in NESTED and v is not None:
                    try:
                        obj[c] = orjson.loads(v)
                    except orjson.JSONDecodeError:
                        obj[c] = v
                else:
                    obj[c] = v
            fh.write(orjson.dumps(obj) + b"\n")
    print(f"{len(rows)} captures, {k} mutated, in {out}", file=sys.stderr)


def dump(src: Path) -> None:
    import rcaeval
    from rcaeval.release import measure

    out: dict[str, Any] = {}
    for name in ("diff-window.parquet", "diff-window.jsonl"):
        for window, stage in ((None, None), ("2026-11-01..2026-11-07", None),
                              (None, "staging"), (None, "shadow")):
            m = measure(src / name, window, reviews=src / "diff-window.reviews.jsonl",
                        stage=stage)
            key = f"{name} {window} {stage}"
            out[key] = {
                "problems": [{k: v for k, v in p.items()} for p in m.problems],
                "population": m.population,
                "metrics": m.frame.to_dicts(),
                "diagnostics": m.diagnostics,
                "knowledge": m.knowledge,
            }
    print(f"measured with {Path(rcaeval.__file__).parent}", file=sys.stderr)
    sys.stdout.write(orjson.dumps(out, option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2,
                                  default=str).decode())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    mk = sub.add_parser("make")
    mk.add_argument("--n", type=int, default=3000)
    mk.add_argument("--seed", type=int, default=1)
    mk.add_argument("--share", type=float, default=0.3, help="share of captures mutated")
    mk.add_argument("--out", type=Path, required=True)
    dp = sub.add_parser("dump")
    dp.add_argument("dir", type=Path)
    args = ap.parse_args(argv)
    if args.cmd == "make":
        make(args.n, args.seed, args.out, args.share)
    else:
        dump(args.dir)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
