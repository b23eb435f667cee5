"""The analysis half of :class:`rcaeval.bundle.BundleWriter`: findings with refs that must
resolve to collected evidence (``analysis_patch.json``), the report's ``analysis``, the end of
collection and the final answer. Every method holds the bundle lock (:func:`locked`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from rcaeval.bundle import _contract as C
from rcaeval.bundle._basics import BundleError, _dump, record, write_atomic
from rcaeval.bundle._lock import locked


class AnalysisWriter:
    """Mixed into ``BundleWriter``, which holds the state these methods read and write
    (``root``, ``records``, ``findings``, ``analysis``, ``channels``)."""

    root: Any
    records: dict[str, dict[str, Any]]
    findings: list[dict[str, Any]]
    analysis: dict[str, Any]
    channels: dict[str, dict[str, Any]]

    if TYPE_CHECKING:  # BundleWriter's own
        def flush(self) -> None: ...
        def milestone(self, event: str, **kw: Any) -> None: ...

    # -- analysis ----------------------------------------------------------------------------
    @locked
    def known_ids(self, ref_type: str) -> set[str]:
        return set(self.records[C.REF_TYPES[ref_type]])

    @locked
    def check_refs(self, refs: Iterable[Any]) -> list[dict[str, str]]:
        """Normalise ``refs`` (``{"type", "id"}`` mappings or ``(type, id)`` pairs) and check
        each names evidence collected in this bundle."""
        out, unknown = [], []
        for r in refs:
            pair = (r.get("type"), r.get("id")) if isinstance(r, Mapping) else \
                tuple(r) if isinstance(r, (list, tuple)) else ()
            if len(pair) != 2:
                raise BundleError("ref_type", f"a ref must be {{type, id}} or a (type, id) "
                                  f"pair, got {r!r:.60}")
            rtype, rid = pair
            if rtype not in C.REF_TYPES:
                raise BundleError("ref_type", f"ref type {rtype!r} is not one of "
                                  f"{', '.join(C.REF_TYPES)}")
            if rid not in self.records[C.REF_TYPES[rtype]]:
                unknown.append(f"{rtype}:{rid}")
            out.append({"type": rtype, "id": str(rid)})
        if unknown:
            raise BundleError("ref_resolvable", "refs name evidence this bundle did not collect: "
                              + ", ".join(unknown) + " (collect it first; ids: "
                              + "; ".join(f"{t}: {len(self.known_ids(t))}" for t in C.REF_TYPES)
                              + ")")
        return out

    @locked
    def add_finding(self, claim: str, refs: Iterable[Any], *, role: str = "key",
                    item_id: str | None = None) -> str:
        """One ``analysis_patch.json`` item; its refs must resolve (``check_refs``)."""
        if not isinstance(claim, str) or not claim.strip():
            raise BundleError("patch_item", "a finding needs a non-empty claim")
        if role not in ("key", "supporting", "context", "ruled_out"):
            raise BundleError("patch_item", f"role {role!r} is not key/supporting/context/"
                              "ruled_out")
        norm = self.check_refs(refs)
        if role == "key" and not norm:
            raise BundleError("key_evidence", "a key finding must cite at least one evidence id")
        iid = item_id or f"A{len(self.findings) + 1}"
        self.findings = [f for f in self.findings if f.get("id") != iid]
        self.findings.append({"id": iid, "claim": claim, "role": role, "refs": norm})
        _dump(self.root, C.PATCH, {"items": self.findings})
        return iid

    @locked
    def clear_findings(self) -> None:
        """Drop every finding: ``analysis_patch.json`` is written with no items (a report
        that cites nothing still leaves its patch, so the judge sees what was submitted)."""
        self.findings = []
        _dump(self.root, C.PATCH, {"items": []})

    @locked
    def set_analysis(self, root_cause: str, key_findings: Iterable[str] = (), *,
                     structured: Mapping[str, str] | None = None) -> None:
        """The report's ``analysis``; ``structured`` (``{family, component?}``) is written as
        ``analysis.structured_root_cause``, which the judge decides the diagnosis by
        (docs/judge.md "Structured root causes")."""
        findings = list(key_findings)
        if not isinstance(root_cause, str) or not all(isinstance(f, str) for f in findings):
            raise BundleError("analysis", "the root cause and key findings must be strings")
        analysis = {"root_cause": root_cause, "key_findings": findings}
        if structured:
            analysis["structured_root_cause"] = record(structured, "analysis",
                                                       "structured root cause")
        self.analysis = analysis
        self.flush()

    @locked
    def complete_collection(self) -> None:
        """``evidence_collection.completed`` (the report exists: :meth:`flush` wrote it)."""
        self.flush()
        self.milestone("evidence_collection.completed", detail=", ".join(
            f"{ch}={c['count']}" for ch, c in self.channels.items() if c.get("attempted")))

    @locked
    def final_answer(self, text: str) -> None:
        """``output.txt`` plus ``final_answer.emitted``."""
        if not isinstance(text, str) or not text.strip():
            raise BundleError("final_answer", "the final answer is empty")
        write_atomic(self.root, C.OUTPUT,
                     (text if text.endswith("\n") else text + "\n").encode("utf-8"))
        self.milestone("final_answer.emitted")
