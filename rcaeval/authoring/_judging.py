"""Judging answer texts against registry cases with the judge itself.

Each answer becomes a small run bundle (its ``output.txt``, plus a report so the bundle
resolves, or a copy of a given bundle with the answer in place of its ``output.txt``). The
bundles are extracted and judged by :func:`rcaeval.judge.judge_loaded` on an in-memory store,
one pass for every answer, exactly as ``rcaeval judge`` judges a run: the detectors run in
``queries/facts/detector_match.sql`` with their scope, negation and grammar, and with the
case's other detectors beside them. Nothing here decides anything; it reads the judge's rows.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from rcaeval._paths import read_query
from rcaeval._vocab import BUCKETS
from rcaeval.errors import InputError

MINIMAL_REPORT = b"{}\n"
"""The report of a bundle made from an answer alone: it makes the bundle resolve, so every
bucket is evaluated (and diagnosis judges the answer); it claims no evidence."""


@dataclass(frozen=True)
class Answer:
    """One answer to judge: ``key`` names it (it becomes the run id), ``bundle`` optionally
    supplies the rest of a run bundle (the answer replaces its ``output.txt``)."""

    key: str
    case_id: str
    text: str
    bundle: Path | None = None


@dataclass
class DetectorDecision:
    """A detector's decision on one answer: ``fires``, the judge's ``detail`` (why), and every
    sentence it matched with the rule that decided it (``scope_rule``, ``decided_by``)."""

    detector_id: str
    fires: bool
    detail: str
    excerpt: str | None = None
    hits: list[dict[str, Any]] = field(default_factory=list)

    def rule(self) -> str:
        """The deciding rule in one line: the firing sentence's scope rule, or why the first
        matched sentence did not count, or the judge's detail when nothing matched."""
        firing = [h for h in self.hits if h["fires"]]
        if firing:
            h = firing[0]
            return f"{h['scope_rule']}; {h['decided_by']}"
        if self.hits:
            h = self.hits[0]
            return f"{h['scope_rule']}; {h['decided_by']}"
        return self.detail

    def to_dict(self) -> dict[str, Any]:
        return {"detector_id": self.detector_id, "fires": self.fires, "detail": self.detail,
                "rule": self.rule(), "excerpt": self.excerpt, "hits": self.hits}


@dataclass
class AnswerJudgment:
    """What the judge made of one answer."""

    key: str
    case_id: str
    verdict: str
    verdict_reason: str | None
    detectors: dict[str, DetectorDecision] = field(default_factory=dict)
    checks: list[dict[str, Any]] = field(default_factory=list)
    buckets: list[dict[str, Any]] = field(default_factory=list)

    def bucket(self, name: str) -> dict[str, Any] | None:
        return next((b for b in self.buckets if b["bucket"] == name), None)

    def bucket_checks(self, name: str) -> list[dict[str, Any]]:
        return [c for c in self.checks if c["bucket"] == name]


def _write_bundle(base: Path, answer: Answer) -> None:
    case_dir = base / answer.key / answer.case_id
    if answer.bundle is not None:
        src = Path(answer.bundle)
        if not src.is_dir():
            raise InputError("bundle dir not found", file=str(src))
        from rcaeval.authoring._newcase import refuse_special_files

        refuse_special_files(src, field="--bundle", follow=False)  # copying a FIFO fails
        shutil.copytree(src, case_dir, symlinks=True)
        (case_dir / "output.txt").unlink(missing_ok=True)
    else:
        (case_dir / "evidences").mkdir(parents=True)
        (case_dir / "evidences" / "workspace_evidence_report.json").write_bytes(MINIMAL_REPORT)
    (case_dir / "output.txt").write_text(answer.text, encoding="utf-8")


def _rows(con: duckdb.DuckDBPyConnection, rel: str,
          params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    cur = con.execute(read_query(rel), dict(params or {}))
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def judge_answers(cases: Mapping[str, Any], answers: Sequence[Answer]) -> dict[str, AnswerJudgment]:
    """Judge every answer against its case (``cases``: case id -> :class:`MergedCase`) in one
    judge pass on an in-memory store; returns one :class:`AnswerJudgment` per answer key."""
    if not answers:
        return {}
    keys = [a.key for a in answers]
    if len(set(keys)) != len(keys):
        raise ValueError("answer keys must be unique")
    import rcaeval.store as st
    from rcaeval.extract import CaseRef
    from rcaeval.judge import CaseRules, Judging

    rules = {
        cid: CaseRules(case_id=cid, case_doc=m.case.model_dump(mode="json"),
                       judge_doc=m.judge.model_dump(mode="json"), rules_hash=m.rules_hash)
        for cid, m in cases.items()
    }
    with tempfile.TemporaryDirectory(prefix="rcaeval-answers-") as tmp:
        base = Path(tmp)
        for answer in answers:
            _write_bundle(base, answer)
        refs = [CaseRef(a.key, a.case_id, base / a.key / a.case_id) for a in answers]
        store = st.connect(":memory:")
        try:
            session = Judging(store, write_files=False, chunk_size=None)
            session.judge([(r.run_id, r.case_id) for r in refs], rules, refs=refs, workers=1)
            return _collect(session.con, answers)
        finally:
            store.close()


def _collect(db: duckdb.DuckDBPyConnection, answers: Sequence[Answer]) -> dict[str, AnswerJudgment]:
    order = {"buckets": list(BUCKETS)}
    buckets = _rows(db, "authoring/buckets.sql", order)
    out: dict[str, AnswerJudgment] = {}
    for a in answers:
        first = next((b for b in buckets if b["run_id"] == a.key), None)
        out[a.key] = AnswerJudgment(
            key=a.key, case_id=a.case_id,
            verdict=first["verdict"] if first else "invalid",
            verdict_reason=first["verdict_reason"] if first else None)
    for b in buckets:
        out[b["run_id"]].buckets.append(
            {k: b[k] for k in ("bucket", "status", "score", "max_score", "reason")})
    for f in _rows(db, "authoring/detector_facts.sql"):
        out[f["run_id"]].detectors[f["detector_id"]] = DetectorDecision(
            detector_id=f["detector_id"], fires=bool(f["value"]), detail=f["detail"] or "",
            excerpt=f["evidence_excerpt"])
    for h in _rows(db, "authoring/detector_hits.sql"):
        dec = out[h["run_id"]].detectors.get(h["detector_id"])
        if dec is not None:
            dec.hits.append({k: h[k] for k in ("file", "line_no", "section", "text", "fires",
                                               "scope_rule", "decided_by")})
    for c in _rows(db, "authoring/checks.sql", order):
        out[c["run_id"]].checks.append(
            {k: c[k] for k in ("bucket", "check_id", "kind", "required", "weight", "passed",
                               "reason")})
    return out
