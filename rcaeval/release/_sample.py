"""A generated capture window (deterministic for a seed): captures of every case type with a
realistic mix of good answers and failures, operator reviews (with re-analyses), TypeDB
outage tests. ``rcaeval release sample`` writes the bundled sample; the benchmark writes
1,000,000 captures with the same code."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.parquet as pq

from rcaeval._ids import check_id, child_path
from rcaeval.release._captures import CAPTURE_COLUMNS, OPTIONAL_COLUMNS
from rcaeval.release._models import REVIEW_SCORES

FAMILIES = ("oom_kill", "disk_full", "bad_config_rollout", "network_partition", "dns_failure",
            "cert_expiry", "cpu_throttling", "db_pool_exhausted", "memory_leak",
            "image_pull_backoff", "node_pressure", "quota_exceeded")
NOVEL_FAMILIES = ("clock_skew", "kernel_conntrack_full", "sidecar_deadlock", "gc_storm",
                  "lease_thrash", "mtu_blackhole")
ALERTS = ("KubePodCrashLooping", "KubePodNotReady", "HighErrorRate", "LatencyP99High",
          "KubeDeploymentReplicasMismatch", "NodeDiskPressure")
SOURCES = ("prometheus", "k8s_events", "logs", "traces", "kubectl_describe")
READ_TOOLS = ("prom_query", "logs_search", "kubectl_get", "kubectl_describe", "traces_search")
CASE_MIX = (("known", 0.50), ("compositional", 0.20), ("novel", 0.15), ("tool_degraded", 0.15))
NESTED = ("response", "harness", "labels", "tool_executions", "knowledge_activations",
          "review_ids", "knowledge", "trace")
PACKAGE_ID = "kp-2026.11.1"
"""The knowledge package the sample window was served by (capture/2 ``knowledge``)."""
SHADOW_PACKAGE_ID = "kp-2026.11.2"
"""The shadow package of the sample's shadow window (``shadow/shadow-window.parquet``)."""
TOOL_COLLECTOR = {"prom_query": ("prometheus", "metrics"), "logs_search": ("loki", "logs"),
                  "kubectl_get": ("kube_api", "k8s_state"),
                  "kubectl_describe": ("kube_api", "k8s_events"),
                  "traces_search": ("tempo", "traces")}
SNAPSHOT_MIX = (("approved", 0.6), ("pending", 0.3), ("shadow", 0.05), ("rejected", 0.05))


@dataclass(frozen=True)
class SampleSpec:
    n: int = 6000
    seed: int = 12
    start: datetime = datetime(2026, 11, 1, tzinfo=UTC)
    days: int = 14
    stage: str = "staging"
    review_share: float = 0.15
    outage_tests: int = 12


def _h(*parts: Any) -> str:
    return "sha256:" + hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()


def _pick_case(rng: random.Random) -> str:
    x = rng.random()
    for name, share in CASE_MIX:
        if x < share:
            return name
        x -= share
    return CASE_MIX[-1][0]


def _evidence(rng: random.Random, family: str, n: int, others: list[str]) -> list[dict]:
    out = []
    sources = rng.sample(SOURCES, k=min(n, len(SOURCES)))
    for i, src in enumerate(sources, start=1):
        supports = [family] if i <= 2 or rng.random() < 0.5 else [rng.choice(others)]
        out.append({"id": f"E{i:02d}", "source": src, "origin": "current_run",
                    "usable": True, "target_verified": i == 1,
                    "supports": supports, "summary": f"{src} observation {i}"})
    return out


def _capture(rng: random.Random, i: int, spec: SampleSpec, case: str, incident: str,
             attempt: int) -> dict[str, Any]:
    truth = rng.choice(NOVEL_FAMILIES if case == "novel" else FAMILIES)
    others = [f for f in FAMILIES if f != truth]
    hyps = [truth, *rng.sample(others, k=2)]
    family: str | None = truth
    confidence, outcome, novel = "medium", "diagnosed", False
    expected_outcome = "diagnose"
    if case == "known":
        confidence = "high" if rng.random() < 0.4 else "medium"
        if rng.random() < 0.03:            # wrong family (the harness kept it at medium)
            family, confidence = others[0], "medium"
            hyps = [family, truth, others[1]]
        if rng.random() < 0.008:           # a false novel flag
            novel = True
    elif case == "compositional":
        rng.shuffle(hyps)
        family = hyps[0]
        if rng.random() < 0.01:
            novel = True
    elif case == "novel":
        expected_outcome = "novel"
        novel = rng.random() < 0.9
        family, confidence, outcome = None, "none", "provisional"
        hyps = rng.sample(others, k=3)
        if rng.random() < 0.78:            # the real mechanism is ranked in the top 3
            hyps[rng.randrange(3)] = truth
    else:  # tool_degraded: data missing, the right answer is to abstain
        expected_outcome = "abstain"
        if rng.random() < 0.92:
            family, confidence, outcome = None, "none", "insufficient_evidence"
        else:
            confidence, outcome = "medium", "diagnosed"
    ev = _evidence(rng, truth, rng.randint(2, 4), others)
    rc_ids = [e["id"] for e in ev if truth in e["supports"]] if family else []
    groundless = case == "known" and rng.random() < 0.0004
    status = "passed"
    if groundless:   # the harness was disabled and an unsupported high-confidence cause shipped
        confidence, status = "high", "disabled"
        ev = ev[:1]
        rc_ids = ["E01"]
    claims = ([{"id": "C01", "text": f"{family} explains the alert", "material": True,
                "family": family, "evidence_ids": rc_ids[:2]}] if family else [])
    cited = sorted(set(rc_ids) | {x for c in claims for x in c["evidence_ids"]})
    relevant = None
    if cited and rng.random() < 0.5:
        relevant = [x for x in cited if rng.random() > 0.03] or cited[:1]
    at = spec.start + timedelta(seconds=rng.uniform(0, spec.days * 86400))
    response = {
        "alert": {"type": rng.choice(ALERTS), "target": f"ns-{i % 40}/svc-{i % 300}"},
        "hypotheses": [{"family": h, "mechanism": f"{h} explains the symptom"} for h in hyps],
        "root_cause": {"family": family, "confidence": confidence,
                       "claim": f"{family} caused the alert" if family else "",
                       "evidence_ids": rc_ids},
        "evidence": ev, "claims": claims, "outcome": outcome, "novel": novel,
        "investigation_plan": [{"probe": f"check {hyps[0]}", "expected_observation": "signal",
                                "discriminates": hyps[:2]}],
    }
    acts = [{"knowledge_id": f"kp-{rng.choice(hyps)}", "admissible": True,
             "latency_seconds": round(rng.lognormvariate(1.0, 0.7), 3), "succeeded": True}
            for _ in range(rng.randint(0, 3))]
    tools = [{"tool": t, "destructive": False,
              "probe_template_id": f"probe-{hyps[0]}" if k == 0 else None, "ok": True}
             for k, t in enumerate(rng.sample(READ_TOOLS, k=rng.randint(1, 4)))]
    labelled = rng.random() < 0.9
    return {
        "capture_id": f"cap-{spec.seed}-{i:07d}",
        "captured_at": at.isoformat().replace("+00:00", "Z"),
        "stage": spec.stage,
        "population": f"cluster-{i % 3}",
        "incident_id": incident,
        "response": response,
        "harness": {"status": status, "analysis_hash": _h(incident, attempt, spec.seed),
                    "score": round(rng.uniform(72, 98), 1)},
        "labels": ({"case_type": case, "expected_family": truth,
                    "expected_outcome": expected_outcome, "relevant_evidence_ids": relevant}
                   if labelled else None),
        "tool_executions": tools,
        "knowledge_activations": acts,
        "outage_test": None,
        "review_ids": [],
        "_truth": truth, "_case": case, "_attempt": attempt,
    }


def _confidence_diagnostics(xr: random.Random, cap: dict[str, Any]) -> dict[str, Any]:
    """The ranker's breakdown for a response that names a family: a probability that runs
    higher for right answers than wrong ones (so the reliability curve has a shape)."""
    resp = cap["response"]
    rc = resp["root_cause"]
    cited = [e for e in resp["evidence"] if e["id"] in rc["evidence_ids"]]
    groups = sorted({e["source"] for e in cited})
    right = rc["family"] == cap["_truth"]
    lo, hi = (0.75, 0.98) if rc["confidence"] == "high" else (0.45, 0.85)
    p = round(xr.uniform(lo, hi) if right else xr.uniform(0.3, 0.75), 3)
    base = round(xr.uniform(0.3, 0.6), 3)
    adj = [{"name": "two_source_groups", "delta": 0.15 if len(groups) >= 2 else 0.0,
            "reason": f"{len(groups)} independent source group(s)"},
           {"name": "target_verified", "delta": 0.05 if any(e["target_verified"] for e in cited)
            else 0.0, "reason": "observed on the alert's target"}]
    return {"base_score": base, "adjustments": adj,
            "final_score": round(base + sum(a["delta"] for a in adj), 3), "probability": p,
            "independent_source_groups": groups,
            "gates": [{"gate": "two_source_groups_or_dispositive", "passed": len(groups) >= 2},
                      {"gate": "current_run_evidence", "passed": bool(cited)}],
            "self_check": {"adjusted_from": None, "calibrated_probability": p}}


def _trace(xr: random.Random, cap: dict[str, Any]) -> dict[str, Any]:
    """A trace-v3 snapshot: one observation per tool execution, in order."""
    resp = cap["response"]
    hyps = [h["family"] for h in resp["hypotheses"]]
    ev = resp["evidence"]
    obs = []
    for k, tool in enumerate(cap["tool_executions"]):
        collector, plane = TOOL_COLLECTOR[tool["tool"]]
        hyp = hyps[0] if k == 0 else xr.choice(hyps)
        e = ev[k] if k < len(ev) else None
        supports = e is not None and hyp in e["supports"]
        obs.append({
            "order": k + 1, "collector": collector, "plane": plane,
            "probe_template_id": tool["probe_template_id"], "hypothesis": hyp,
            "evidence_id": e["id"] if e is not None else None,
            "incident_time_relation": xr.choices(("during", "before", "after", "unknown"),
                                                 (0.8, 0.1, 0.07, 0.03))[0],
            "supporting_source_groups": [collector] if supports else [],
            "contradicting_source_groups": [collector] if not supports and xr.random() < 0.5
            else [],
            "plan_step": 1 if k == 0 else None})
    status = xr.choices([s for s, _ in SNAPSHOT_MIX], [w for _, w in SNAPSHOT_MIX])[0]
    return {"format": "trace/3", "status": status, "observations": obs}


def _extend(cap: dict[str, Any], spec: SampleSpec, i: int) -> None:
    """The capture/2 fields, drawn from a generator of their own (seeded by the capture), so
    the capture/1 fields -- and every gate metric of the sample -- stay as they were."""
    xr = random.Random(f"{spec.seed}:{i}:capture/2")
    path = "fallback_cache" if cap["outage_test"] else "runtime_snapshot"
    cap["knowledge"] = {"package_id": PACKAGE_ID, "activation_path": path}
    cap["trace"] = _trace(xr, cap)
    # about 10% of the responses come from an older agent without the confidence breakdown
    if cap["response"]["root_cause"]["family"] and xr.random() < 0.9:
        cap["response"]["confidence_diagnostics"] = _confidence_diagnostics(xr, cap)


def _review(rng: random.Random, cap: dict[str, Any]) -> dict[str, Any]:
    good = cap["response"]["root_cause"]["family"] == cap["_truth"] or cap["_case"] in (
        "novel", "tool_degraded")
    outcome = rng.choices(("resolved", "mitigated", "unresolved", "false_positive"),
                          (0.5, 0.2, 0.2, 0.1))[0]
    scores = {s: max(0, min(5, (4 if good else 2) + rng.choice((-1, 0, 0, 1))))
              for s in REVIEW_SCORES}
    at = datetime.fromisoformat(cap["captured_at"].replace("Z", "+00:00")) + timedelta(
        hours=rng.uniform(1, 48))
    return {
        "review_id": f"rev-{cap['capture_id']}", "analysis_hash":
        cap["harness"]["analysis_hash"], "incident_id": cap["incident_id"],
        "capture_id": cap["capture_id"], "reviewer": f"oncall-{rng.randrange(8)}",
        "reviewed_at": at.isoformat().replace("+00:00", "Z"), "case_type": cap["_case"],
        "expected_family": cap["_truth"], "scores": scores,
        "hard_gate_assessment": "pass" if good else "fail",
        "resolution_outcome": outcome,
        "action_that_worked": (f"remediate {cap['_truth']}"
                               if outcome != "false_positive" else None),
        "notes": "" if good else "named the wrong family",
    }


def _generate(spec: SampleSpec) -> Iterator[tuple[dict[str, Any], dict[str, Any] | None]]:
    """``(capture with its _truth/_case keys, review or None)``, in order."""
    rng = random.Random(spec.seed)
    outage_every = max(1, spec.n // max(1, spec.outage_tests))
    prev: dict[str, Any] | None = None
    for i in range(spec.n):
        if prev is not None and rng.random() < 0.05:
            case, incident, attempt = prev["_case"], prev["incident_id"], prev["_attempt"] + 1
        else:
            case, incident, attempt = _pick_case(rng), f"inc-{spec.seed}-{i:07d}", 1
        cap = _capture(rng, i, spec, case, incident, attempt)
        if spec.outage_tests and i % outage_every == outage_every // 2:
            cap["outage_test"] = "typedb"
            cap["knowledge_activations"] = [{"knowledge_id": "kp-cached", "admissible": True,
                                             "latency_seconds": 0.4, "succeeded": True}]
        _extend(cap, spec, i)
        review = _review(rng, cap) if rng.random() < spec.review_share else None
        if review is not None:
            cap["review_ids"] = [review["review_id"]]
        prev = cap
        yield cap, review


def _public(cap: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in cap.items() if not k.startswith("_")}


def generate(spec: SampleSpec) -> Iterator[tuple[dict[str, Any], dict[str, Any] | None]]:
    """Yield ``(capture, review or None)``; deterministic for ``spec``. About 5% of incidents
    are analysed twice (a re-analysis: same incident, new analysis_hash)."""
    for cap, review in _generate(spec):
        yield _public(cap), review


def _shadow(cap: dict[str, Any], spec: SampleSpec, i: int) -> dict[str, Any]:
    """The same incident analysed by the shadow knowledge package: it fixes most wrong known
    families and the groundless high-confidence cause, ranks a few more novel mechanisms in
    the top 3, and breaks a handful of right answers."""
    xr = random.Random(f"{spec.seed}:{i}:shadow")
    s = orjson.loads(orjson.dumps(cap))
    s["capture_id"] = s["capture_id"].replace("cap-", "shd-", 1)
    s["stage"] = "shadow"
    s["review_ids"] = []
    s["harness"]["analysis_hash"] = _h(s["incident_id"], s["_attempt"], spec.seed, "shadow")
    s["knowledge"] = {**s["knowledge"], "package_id": SHADOW_PACKAGE_ID}
    resp, truth = s["response"], s["_truth"]
    rc = resp["root_cause"]
    if s["harness"]["status"] == "disabled":
        s["harness"]["status"], rc["confidence"] = "passed", "medium"
    if s["_case"] == "known" and rc["family"] not in (None, truth) and xr.random() < 0.6:
        rc["family"], rc["claim"] = truth, f"{truth} caused the alert"
        for c in resp["claims"]:
            c["family"], c["text"] = truth, f"{truth} explains the alert"
    elif s["_case"] == "known" and rc["family"] == truth and xr.random() < 0.004:
        wrong = next(f for f in FAMILIES if f != truth)
        rc["family"], rc["confidence"] = wrong, "medium"
    if s["_case"] == "novel":
        fams = [h["family"] for h in resp["hypotheses"]]
        if truth not in fams[:3] and xr.random() < 0.3:
            resp["hypotheses"][2]["family"] = truth
    if rc["family"] and "confidence_diagnostics" in resp:
        resp["confidence_diagnostics"] = _confidence_diagnostics(xr, s)
    return _public(s)


def generate_shadow(spec: SampleSpec) -> Iterator[dict[str, Any]]:
    """The shadow window of :func:`generate`'s: one capture per capture, same incidents and
    labels, served by :data:`SHADOW_PACKAGE_ID` (stage shadow, no reviews)."""
    for i, (cap, _review) in enumerate(_generate(spec)):
        yield _shadow(cap, spec, i)


_COLUMNS = CAPTURE_COLUMNS + OPTIONAL_COLUMNS
_SCHEMA = pa.schema([(c, pa.string()) for c in _COLUMNS])


def _batch(rows: list[dict[str, Any]]) -> pa.RecordBatch:
    cols = {c: [orjson.dumps(r[c]).decode() if c in NESTED and r[c] is not None else r[c]
                for r in rows] for c in _COLUMNS}
    return pa.RecordBatch.from_pydict(cols, schema=_SCHEMA)


def _write_parquet(path: Path, caps: Iterator[dict[str, Any]], batch: int) -> int:
    n = 0
    rows: list[dict[str, Any]] = []
    with pq.ParquetWriter(path, _SCHEMA, compression="zstd") as writer:
        for cap in caps:
            rows.append(cap)
            if len(rows) >= batch:
                writer.write_batch(_batch(rows))
                n += len(rows)
                rows.clear()
        if rows:
            writer.write_batch(_batch(rows))
            n += len(rows)
    return n


def write_shadow(out_dir: Path, spec: SampleSpec = SampleSpec(), *,
                 batch: int = 50_000) -> dict[str, Any]:
    """Write the shadow window of the sample (``generate_shadow``) to
    ``<out_dir>/shadow/shadow-window.parquet`` (a directory of its own, so ``--captures
    <out_dir>`` never mixes the two windows)."""
    (out_dir / "shadow").mkdir(parents=True, exist_ok=True)
    path = child_path(out_dir, "shadow", "shadow-window.parquet", what="out")
    return {"captures": str(path), "n_captures": _write_parquet(path, generate_shadow(spec),
                                                                  batch)}


def write_sample(out_dir: Path, spec: SampleSpec = SampleSpec(), *,
                 name: str = "sample-window", batch: int = 50_000) -> dict[str, Any]:
    """Write ``<name>.parquet`` (nested columns as JSON text, zstd) and ``reviews.jsonl`` into
    ``out_dir``. Returns counts. ``name`` is one plain file-name part (no path separator, not
    hidden); a file there that is a symlink leading outside ``out_dir`` is refused."""
    check_id(name, field="--name")
    out_dir.mkdir(parents=True, exist_ok=True)
    cap_path = child_path(out_dir, f"{name}.parquet", what="--name")
    rev_path = child_path(out_dir, "reviews.jsonl" if name == "sample-window"
                          else f"{name}.reviews.jsonl", what="--name")
    n_caps = n_revs = 0
    rows: list[dict[str, Any]] = []
    with pq.ParquetWriter(cap_path, _SCHEMA, compression="zstd") as writer, \
            rev_path.open("wb") as rfh:
        for cap, review in generate(spec):
            rows.append(cap)
            if review is not None:
                rfh.write(orjson.dumps(review) + b"\n")
                n_revs += 1
            if len(rows) >= batch:
                writer.write_batch(_batch(rows))
                n_caps += len(rows)
                rows.clear()
        if rows:
            writer.write_batch(_batch(rows))
            n_caps += len(rows)
    return {"captures": str(cap_path), "reviews": str(rev_path), "n_captures": n_caps,
            "n_reviews": n_revs}
