"""Evidence numbering and the claim ledger.

:func:`normalize` gives evidence artifacts stable ``E01``, ``E02``, … ids in the order given
(an original id is kept as ``source_ref``), numbers claims ``C01``, … and rewrites every
evidence reference to the new ids. :class:`View` is the read-only index the gates and the
scoring rules share: which artifacts are live (usable current-run), and for every claim which
of its references are live, historical, unusable or dangling.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rcaeval.harness._contract import Action, EvidenceArtifact, RcaResponse
from rcaeval.harness._patterns import disruptive_match

ROOT_CLAIM_ID = "RC"

def looks_disruptive(text: str) -> bool:
    """The text reads as a change to the system (rcaeval/harness/patterns.yaml: a leading
    disruptive verb, a destructive verb used as a verb anywhere, a mutating command in shell,
    kubectl-style or SQL form, scaling to zero, a forced failover, ... in English or
    Chinese)."""
    return disruptive_match(text) is not None


def is_disruptive(action: Action) -> bool:
    """Declared disruptive, or the text reads as disruptive (a ``false`` declaration is
    respected only when the text does not contradict it: an agent cannot label ``DROP TABLE
    x`` or ``restart the pod`` as harmless)."""
    return bool(action.disruptive) or looks_disruptive(action.text)


def read_only_verification(action: Action) -> bool:
    """The action carries a read-only verification, and that verification is itself read-only
    ("delete the pod and watch it come back" is not)."""
    v = action.read_only_verification
    return bool(v) and not looks_disruptive(v)  # type: ignore[arg-type]


def guarded(action: Action) -> bool:
    """All three guardrails of gate 3 are present."""
    return read_only_verification(action) and bool(action.impact_rollback) \
        and action.operator_approval


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
        if art.id is None or art.id == assigned:
            # positional only for an artifact the agent did not name (or named so itself):
            # "E02" must not stand in for an artifact whose own id is "b"
            fallback.setdefault(assigned, assigned)
        art.id = assigned
    for key, value in fallback.items():
        ref_map.setdefault(key, value)
    # An unresolved reference that looks like an assigned id ("E02" when the second artifact
    # is the agent's "b") must stay unresolved after renumbering, not silently become E02.
    clash = {evidence_id(i) for i in range(len(response.evidence))}.difference(ref_map)
    for i, claim in enumerate(response.claims):
        claim.id = claim_id(i)
        claim.evidence_ids = _rewrite(claim.evidence_ids, ref_map, clash)
    response.root_cause.evidence_ids = _rewrite(response.root_cause.evidence_ids, ref_map,
                                                clash)
    return ref_map


UNRESOLVED = "unresolved:"


def _rewrite(refs: list[str], ref_map: dict[str, str], clash: set[str]) -> list[str]:
    """Map and de-duplicate references, keeping first-seen order (linear: dict keys)."""
    return list(dict.fromkeys(
        ref_map.get(ref, UNRESOLVED + ref if ref in clash else ref) for ref in refs))


def duplicate_ids(response: RcaResponse) -> list[str]:
    """Original evidence ids given to more than one artifact (each resolves to the first)."""
    seen: set[str] = set()
    dup: dict[str, None] = {}
    for art in response.evidence:
        key = art.source_ref or art.id
        if key is None:
            continue
        if key in seen:
            dup[key] = None
        seen.add(key)
    return list(dup)


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
        claim about the same family (or about no family), and not declared (``supports``)
        for other families only. Sorted, unique."""
        fam = self.family
        if fam is None:
            return []
        ids: set[str] = set()
        for e in self.ledger:
            if e.claim_id == ROOT_CLAIM_ID or (
                e.material and (e.family is None or e.family == fam)
            ):
                ids.update(e.live_ids)
        return sorted(i for i in ids if self.artifacts[i].supports_family(fam))

    def groups(self, ids: list[str]) -> list[str]:
        return sorted({self.artifacts[i].group() for i in ids})

    def dispositive(self, ids: list[str]) -> list[str]:
        """Artifacts among ``ids`` whose dispositive signature decides the *named* family: the
        artifact must list it in ``supports`` (a signature decides one family, not any)."""
        fam = self.family
        return [i for i in ids if self.artifacts[i].dispositive_signature
                and fam is not None and fam in self.artifacts[i].supports]

    def on_alert_target(self, art: EvidenceArtifact) -> bool:
        """``target_verified``, and not observed on a different object than the alert's."""
        if not art.target_verified:
            return False
        want = self.response.alert.target
        return art.target is None or want is None or art.target.casefold() == want.casefold()

    def target_verified_live(self) -> list[str]:
        return sorted(i for i in self.live if self.on_alert_target(self.artifacts[i]))

    def hypothesis_families(self) -> list[str]:
        return [h.family for h in self.response.hypotheses]
