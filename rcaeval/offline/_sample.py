"""Deterministic sample fixtures (docs/offline.md): ``data/offline/fixtures.jsonl`` (every
case type), ``data/offline/novel_e2e.jsonl`` (captures for the novel-incident gate) and
``data/offline/baseline.json`` (the known Top-1 baseline of the fixtures).

Incidents are drawn from ``sample_catalog.yaml`` with a seeded RNG; the simulated system
(``_system.py``) answers them; the real runtime harness checks each answer; the reviewer
labels come from the incident's ground truth, never from the answer. Same seed => the same
bytes. A test fails when data/offline differs from a fresh generation.
"""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from rcaeval._ids import child_path
from rcaeval.harness import HarnessConfig, check
from rcaeval.offline._fixture import Fixture, dump_fixtures, read_fixtures
from rcaeval.offline._score import score_fixtures, write_baseline
from rcaeval.offline._system import Artifact, Incident, respond
from rcaeval.synth import derive_rng

OFFLINE_SEED = 20261130
N_KNOWN = 24
N_NOVEL = 6
N_TOOL_DEGRADED = 5
FILES = ("fixtures.jsonl", "novel_e2e.jsonl", "baseline.json")


@cache
def catalog() -> dict[str, Any]:
    return yaml.safe_load((Path(__file__).parent / "sample_catalog.yaml").read_text("utf-8"))


def _fill(text: str, target: str) -> str:
    ns, _, pod = target.partition("/")
    return text.format(target=target, namespace=ns, pod=pod, node="node-3",
                       host=f"{pod}.{ns}.svc")


class _Builder:
    """Collects one incident's artifacts with stable ids."""

    def __init__(self, rng: random.Random, target: str) -> None:
        self.rng = rng
        self.target = target
        self.arts: list[Artifact] = []

    def add(self, sig: dict[str, Any], family: str, minute: int, *, usable: bool = True,
            origin: str = "current_run", dispositive: bool = True) -> Artifact:
        a = Artifact(
            id=f"ev-{len(self.arts) + 1}", source=sig["source"], group=sig["group"],
            summary=sig["summary"], supports=[family], origin=origin, usable=usable,
            dispositive=sig.get("dispositive") if dispositive else None, minute=minute,
        )
        self.arts.append(a)
        return a

    def family_signals(self, family: str, spec: dict[str, Any], p_keep: float, minute: int,
                       *, at_least_one: bool, signature: bool = True) -> list[Artifact]:
        """Draw the family's signals; ``signature=False`` for coincidental symptoms of another
        family (they never carry its dispositive signature)."""
        sigs = [s for s in spec["signals"] if self.rng.random() < p_keep]
        if at_least_one and not sigs:
            sigs = [self.rng.choice(spec["signals"])]
        return [self.add(s, family, minute + i, usable=self.rng.random() >= 0.1,
                         dispositive=signature) for i, s in enumerate(sigs)]


def _incident(b: _Builder, alert: str, familiar: dict[str, Any]) -> Incident:
    probes = {f: {"probe": _fill(s["probe"]["probe"], b.target),
                  "expected": s["probe"]["expected"]} for f, s in familiar.items()}
    actions = {f: _fill(s["action"], b.target) for f, s in familiar.items()}
    b.rng.shuffle(b.arts)
    for i, a in enumerate(b.arts):  # ids in presentation order
        a.id = f"ev-{i + 1}"
    return Incident(alert, b.target, b.arts, probes=probes, actions=actions)


def _target(rng: random.Random) -> str:
    ns = rng.choice(["payments", "checkout", "search", "ledger", "identity"])
    return f"{ns}/{ns[:3]}-{rng.randrange(16**5):05x}"


def _capture(case: dict[str, Any], incident: Incident, known: list[str],
             relevant: list[Artifact]) -> Fixture:
    result = check(respond(incident, known), HarnessConfig())
    resp = result.response.model_dump(mode="json", exclude_none=True)
    case["relevant_evidence_ids"] = sorted(result.evidence_map.get(a.id, a.id)
                                           for a in relevant)
    case["harness"] = {"status": result.status,
                       "gates": {g.gate_id: g.passed for g in result.gates}}
    case["response"] = resp
    return Fixture.model_validate(case)


def _known_case(seed: int, i: int, family: str, known: list[str]) -> Fixture:
    fam = catalog()["familiar"]
    rng = derive_rng(seed, "known", i)
    b = _Builder(rng, _target(rng))
    truth = b.family_signals(family, fam[family], 0.75, 5, at_least_one=True)
    confounder = rng.choice([f for f in known if f != family])
    b.family_signals(confounder, fam[confounder], 0.45, 8, at_least_one=False,
                     signature=False)
    if rng.random() < 0.3:  # a past incident in the knowledge base
        b.add(rng.choice(fam[confounder]["signals"]), confounder, 0, origin="historical",
              dispositive=False)
    inc = _incident(b, fam[family]["alert"], fam)
    case = {"case_id": f"known-{i + 1:03d}", "case_type": "known", "expected_family": family,
            "expected_outcome": ["diagnosed"], "source": f"sample seed {seed}"}
    return _capture(case, inc, known, [a for a in truth if a.live()])


def _compositional_case(seed: int, i: int, chain: list[str], known: list[str]) -> Fixture:
    fam = catalog()["familiar"]
    rng = derive_rng(seed, "compositional", i)
    b = _Builder(rng, _target(rng))
    root = b.family_signals(chain[0], fam[chain[0]], 0.6, 0, at_least_one=True)
    for k, effect in enumerate(chain[1:], start=1):  # downstream effects: louder, later
        b.family_signals(effect, fam[effect], 0.9, 10 * k, at_least_one=True)
    inc = _incident(b, fam[chain[-1]]["alert"], fam)
    case = {"case_id": f"compositional-{i + 1:03d}", "case_type": "compositional",
            "expected_family": chain[0], "causal_chain": list(chain),
            "expected_outcome": ["diagnosed", "provisional"], "source": f"sample seed {seed}"}
    return _capture(case, inc, known, [a for a in root if a.live()])


def _novel_case(seed: int, i: int, mech: str, known: list[str], *,
                taught: bool = False, tag: str = "novel") -> Fixture:
    cat = catalog()
    spec = cat["novel"][mech]
    rng = derive_rng(seed, tag, i)
    b = _Builder(rng, _target(rng))
    truth = b.family_signals(mech, spec, 0.8, 0, at_least_one=True)
    if taught:  # incident-derived knowledge: the reviewed signature is now dispositive
        truth[0].dispositive = f"{mech} signature (incident-derived)"
    lookalike = rng.choice(known)  # generic symptoms that resemble a familiar family
    b.family_signals(lookalike, cat["familiar"][lookalike], 0.5, 3, at_least_one=False,
                     signature=False)
    inc = _incident(b, spec["alert"], cat["familiar"])
    inc.probes[f"novel:{mech}"] = {"probe": _fill(spec["probe"]["probe"], b.target),
                                   "expected": spec["probe"]["expected"]}
    system_known = [*known, mech] if taught else known
    case: dict[str, Any] = {
        "case_id": f"{tag}-{i + 1:03d}", "case_type": "known" if taught else "novel",
        "expected_family": mech,
        "expected_outcome": ["diagnosed"] if taught else ["provisional", "insufficient_evidence"],
        "familiar_families": sorted(system_known if taught else known),
        "source": f"sample seed {seed}",
    }
    return _capture(case, inc, system_known, [a for a in truth if a.live()])


def _tool_degraded_case(seed: int, i: int, family: str, known: list[str]) -> Fixture:
    fam = catalog()["familiar"]
    rng = derive_rng(seed, "tool_degraded", i)
    b = _Builder(rng, _target(rng))
    truth = b.family_signals(family, fam[family], 0.9, 5, at_least_one=True)
    down = rng.choice(truth)  # the tool that serves this signal is down
    down.usable = False
    down.summary = f"{down.source} query failed: HTTP 503"
    down.dispositive = None
    inc = _incident(b, fam[family]["alert"], fam)
    inc.tool_errors = [{"tool": down.source, "message": "HTTP 503 Service Unavailable"}]
    live = [a for a in truth if a.live()]
    expected = ["diagnosed", "provisional"] if live else ["insufficient_evidence"]
    case = {"case_id": f"tool-degraded-{i + 1:03d}", "case_type": "tool_degraded",
            "expected_family": family, "expected_outcome": expected,
            "missing_sources": [down.source], "source": f"sample seed {seed}"}
    return _capture(case, inc, known, live)


def sample_fixtures(seed: int = OFFLINE_SEED) -> tuple[list[Fixture], list[Fixture]]:
    """(fixtures.jsonl rows, novel_e2e.jsonl rows) for ``seed``."""
    cat = catalog()
    known = list(cat["familiar"])
    novel = list(cat["novel"])
    rows = [_known_case(seed, i, known[i % len(known)], known) for i in range(N_KNOWN)]
    rows += [_compositional_case(seed, i, c, known) for i, c in enumerate(cat["chains"])]
    rows += [_novel_case(seed, i, novel[i % len(novel)], known) for i in range(N_NOVEL)]
    rows += [_tool_degraded_case(seed, i, known[(3 * i) % len(known)], known)
             for i in range(N_TOOL_DEGRADED)]
    gate = [_novel_case(seed, i, m, known, taught=True, tag="derived")
            for i, m in enumerate(novel)]
    return rows, gate


def generate_offline_sample(out_dir: str | Path, seed: int = OFFLINE_SEED) -> dict[str, Any]:
    """Write fixtures.jsonl, novel_e2e.jsonl and baseline.json under ``out_dir``; return
    a summary (counts, known Top-1). A file there that is a symlink leading outside
    ``out_dir`` is refused before anything is written (:func:`rcaeval._ids.child_path`)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    fixtures, novel, baseline = (child_path(out, name, what="--out") for name in (
        "fixtures.jsonl", "novel_e2e.jsonl", "baseline.json"))
    rows, gate = sample_fixtures(seed)
    fixtures.write_bytes(dump_fixtures(rows))
    novel.write_bytes(dump_fixtures(gate))
    score = score_fixtures(read_fixtures(fixtures))
    base = write_baseline(score, baseline)
    return {"fixtures": len(rows), "novel_e2e": len(gate),
            "known_top1": base["known_top1"], "seed": seed}
