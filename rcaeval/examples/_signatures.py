"""Signature rules of the example agents: a failing alert or gate check, or a log line, that
names a well-known mechanism (a hot read or write region, a stalled GC safe point, PD leader
changes, a monitoring scrape gap). Deterministic and deliberately simple - a template, not an
SRE.

A signature of a mechanism the agent cannot confirm from the data alone (``provisional``) is
answered as a hypothesis with a confidence and the next steps that would confirm it, the way
an on-call engineer reports an unfamiliar incident.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

INSTANCE_RE = re.compile(r"\b((?:tikv|tidb|pd)-\d+)\b")


@dataclass(frozen=True)
class Signature:
    kind: str
    pattern: re.Pattern[str]
    cause: str
    """The root cause; ``{inst}`` is the implicated instance, ``{detail}`` what the first
    failing alert (or matching log line) said."""
    actions: tuple[str, ...]
    provisional: bool = False
    next_steps: tuple[str, ...] = ()
    component: str | None = None
    """Where the mechanism lives: the implicated instance is the one of this component with
    the most matching log lines."""


SIGNATURES: tuple[Signature, ...] = (
    Signature(
        "read_hotspot",
        re.compile(r"hot read region|unified[- ]read[- ]pool is full", re.I),
        "The root cause is a CPU hotspot on {inst}: a hot read region saturated its unified "
        "read pool ({detail}), so reads to that region queued and latency rose.",
        ("Split or scatter the hot read region and spread its reads (follower read).",
         "Check the workload for the hot key range behind the region."), component="tikv"),
    Signature(
        "write_hotspot",
        re.compile(r"hot write region|write hotspot|raftstore is busy", re.I),
        "The root cause is a write hotspot on {inst}: inserts concentrate on one hot write "
        "region ({detail}), so its raftstore is busy and writes queue.",
        ("Scatter the writes: use AUTO_RANDOM or SHARD_ROW_ID_BITS instead of an "
         "auto-increment key, and pre-split the table.",
         "Recommend splitting the hot write region now to relieve the store."),
        component="tikv"),
    Signature(
        "gc_buildup",
        re.compile(r"safe ?point is far behind|gc safe ?point", re.I),
        "Provisional hypothesis (medium confidence): MVCC versions built up because the GC "
        "safe point is stuck behind ({detail}), so reads scan many old versions.",
        ("Recommend restoring GC: find what holds the safe point back and reset "
         "tidb_gc_life_time to its default.",),
        provisional=True,
        next_steps=("Confirm that the GC safe point advances once the blocker is removed.",
                    "Check whether the slow statements' scanned-key counts drop with it.")),
    Signature(
        "leader_storm",
        re.compile(r"pd leader changed|lost leadership|leader election", re.I),
        "Provisional hypothesis (medium confidence): a PD leader election storm on {inst}: "
        "the PD leader kept changing ({detail}), so requests waiting on PD stalled.",
        ("Recommend stabilising the PD members' network before moving the leader.",),
        provisional=True,
        next_steps=("Verify the network between the PD members (packet drops, probes).",
                    "Check the PD leader-change counter once the network is stable."),
        component="pd"),
    Signature(
        "scrape_gap",
        re.compile(r"missed \d+ consecutive scrapes|scrape (?:gap|failure|timeout)", re.I),
        "Provisional hypothesis (medium confidence): a false alarm caused by a monitoring "
        "scrape gap ({detail}); the cluster stayed healthy.",
        ("Recommend giving the Prometheus replica more memory and running it as an HA "
         "replica pair.",
         "Add for: 5m and an absent() guard to the alert rule so a scrape gap pages as a "
         "monitoring problem."),
        provisional=True,
        next_steps=("Confirm the Prometheus restart in its pod events and WAL replay log.",
                    "Check that the cluster's own heartbeats continued through the gap.")),
)


@dataclass
class Match:
    signature: Signature
    detail: str
    instance: str
    logs: list[dict[str, Any]]


def match_signature(alerts: list[dict[str, Any]], logs: list[dict[str, Any]]) -> Match | None:
    """The first signature (in :data:`SIGNATURES` order) that a failing or warning alert
    check, or a log line, shows."""
    firing = [a for a in alerts if a.get("status") in ("fail", "warn")]
    for sig in SIGNATURES:
        hits = [a for a in firing if sig.pattern.search(str(a.get("detail") or ""))]
        lines = [e for e in logs if sig.pattern.search(str(e.get("message") or ""))]
        if not hits and not lines:
            continue
        detail = str(hits[0]["detail"]) if hits else str(lines[0]["message"])[:160]
        inst = (hits[0].get("instance") if hits else None) or _busiest(lines, sig.component)
        if not inst:
            m = INSTANCE_RE.search(detail)
            inst = m.group(1) if m else "the cluster"
        return Match(sig, detail.replace('"', "'"), str(inst), lines)
    return None


def _busiest(lines: list[dict[str, Any]], component: str | None) -> str | None:
    """The instance with the most lines, preferring ``component``'s instances."""
    counts: dict[str, int] = {}
    for e in lines:
        counts[str(e.get("instance"))] = counts.get(str(e.get("instance")), 0) + 1
    own = {i: n for i, n in counts.items() if component and i.startswith(component + "-")}
    pool = own or counts
    return max(pool, key=lambda i: (pool[i], i)) if pool else None
