"""Evidence numbering and the claim ledger.

:func:`normalize` gives evidence artifacts stable ``E01``, ``E02``, … ids in the order given
(an original id is kept as ``source_ref``), numbers claims ``C01``, … and rewrites every
evidence reference to the new ids. :class:`View` is the read-only index the gates and the
scoring rules share: which artifacts are live (usable current-run), and for every claim which
of its references are live, historical, unusable or dangling.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rcaeval.harness._contract import Action, EvidenceArtifact, RcaResponse

ROOT_CLAIM_ID = "RC"

# An action whose text starts with one of these verbs changes the system (seed 003, gate 3).
_DISRUPTIVE_RE = re.compile(
    r"^\W*(?:(?:sudo|kubectl|oc|helm|systemctl|docker)\s+(?:rollout\s+)?)?"
    r"(?:restart|delete|kill|drain|evict|cordon|scale|roll\s*back|rollback|fail\s*over|failover|"
    r"reboot|terminate|truncate|drop|purge|flush|reset|redeploy|recreate|uninstall|remove|"
    r"force|shut\s*down|shutdown|stop|wipe|patch|apply|upgrade|downgrade|uncordon)\b",
    re.IGNORECASE,
)


def looks_disruptive(text: str) -> bool:
    return bool(_DISRUPTIVE_RE.search(text))


def is_disruptive(action: Action) -> bool:
    """Declared disruptive, or the text starts with a disruptive verb (a ``false`` declaration
    does not override the verb: an agent cannot label ``restart the pod`` as harmless)."""
    return bool(action.disruptive) or looks_disruptive(action.text)


def evidence_id(index: int) -> str:
    return f"E{index + 1:02d}"


def claim_id(index: int) -> str:
    return f"C{index + 1:02d}"


def normalize(response: RcaResponse) -> dict[str, str]:
    """Number evidence and claims in place; return the reference map (given id → ``Enn``)."""
    ref_map: dict[str, str] = {}
    fallback: dict[str, str] = {}
    for i, art in enumerate(response.evidence):
        assigned = evidence_id(i)
        if art.id and art.id != assigned and art.source_ref is None:
            art.source_ref = art.id
        if art.id:
            ref_map.setdefault(art.id, assigned)
        if art.source_ref:
            fallback.setdefault(art.source_ref, assigned)
        fallback.setdefault(assigned, assigned)
        art.id = assigned
    for key, value in fallback.items():
        ref_map.setdefault(key, value)
    for i, claim in enumerate(response.claims):
        claim.id = claim_id(i)
        claim.evidence_ids = _rewrite(claim.evidence_ids, ref_map)
    response.root_cause.evidence_ids = _rewrite(response.root_cause.evidence_ids, ref_map)
    return ref_map


def _rewrite(refs: list[str], ref_map: dict[str, str]) -> list[str]:
    out: list[str] = []
    for ref in refs:
        new = ref_map.get(ref, ref)
        if new not in out:
            out.append(new)
    return out


@dataclass(slots=True)
class LedgerEntry:
    """One row of the claim ledger: a claim, its evidence, and which of it counts."""

    claim_id: str
    text: str
    material: bool
    family: str | None
    evidence_ids: list[str]
    live_ids: list[str] = field(default_factory=list)
    historical_ids: list[str] = field(default_factory=list)
    unusable_ids: list[str] = field(default_factory=list)
    dangling_ids: list[str] = field(default_factory=list)

    @property
    def traced(self) -> bool:
        """Traces to at least one usable current-run artifact."""
        return bool(self.live_ids)

    def as_dict(self) -> dict[str, object]:
        return {
            "claim_id": self.claim_id, "text": self.text, "material": self.material,
            "family": self.family, "evidence_ids": list(self.evidence_ids),
            "live_ids": list(self.live_ids), "historical_ids": list(self.historical_ids),
            "unusable_ids": list(self.unusable_ids), "dangling_ids": list(self.dangling_ids),
            "traced": self.traced,
        }


class View:
    """A read-only index over a normalized response (rebuilt after every repair)."""

    __slots__ = ("response", "artifacts", "live", "ledger", "family", "generic_state")

    def __init__(self, response: RcaResponse) -> None:
        self.response = response
        self.artifacts: dict[str, EvidenceArtifact] = {
            a.id: a for a in response.evidence if a.id is not None
        }
        self.live: set[str] = {
            i for i, a in self.artifacts.items() if a.usable and a.origin == "current_run"
        }
        rc = response.root_cause
        self.family: str | None = rc.family
        self.generic_state = response.alert.is_generic_state()
        self.ledger: list[LedgerEntry] = []
        if rc.family is not None:
            self.ledger.append(self._entry(ROOT_CLAIM_ID, rc.claim or f"root cause: {rc.family}",
                                           True, rc.family, rc.evidence_ids))
        for c in response.claims:
            self.ledger.append(
                self._entry(c.id or "", c.text, c.material, c.family, c.evidence_ids)
            )

    def _entry(self, cid: str, text: str, material: bool, family: str | None,
               refs: list[str]) -> LedgerEntry:
        e = LedgerEntry(cid, text, material, family, list(refs))
        for ref in refs:
            art = self.artifacts.get(ref)
            if art is None:
                e.dangling_ids.append(ref)
            elif not art.usable:
                e.unusable_ids.append(ref)
            elif art.origin == "historical":
                e.historical_ids.append(ref)
            else:
                e.live_ids.append(ref)
        return e

    def material_entries(self) -> list[LedgerEntry]:
        return [e for e in self.ledger if e.material]

    def supporting_live(self) -> list[str]:
        """Live evidence behind the named cause: cited by the root cause, or by a material
        claim about the same family (or about no family). Sorted, unique."""
        if self.family is None:
            return []
        ids: set[str] = set()
        for e in self.ledger:
            if e.claim_id == ROOT_CLAIM_ID or (
                e.material and (e.family is None or e.family == self.family)
            ):
                ids.update(e.live_ids)
        return sorted(ids)

    def groups(self, ids: list[str]) -> list[str]:
        return sorted({self.artifacts[i].group() for i in ids})

    def dispositive(self, ids: list[str]) -> list[str]:
        return [i for i in ids if self.artifacts[i].dispositive_signature]

    def target_verified_live(self) -> list[str]:
        return sorted(i for i in self.live if self.artifacts[i].target_verified)

    def hypothesis_families(self) -> list[str]:
        return [h.family for h in self.response.hypotheses]
