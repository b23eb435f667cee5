"""Running a proof: the three reference agents through the real runner (``run_suite``), the
incident tools over MCP (``tools: mcp``) and the agent sandbox, into a store of its own."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
import yaml

from rcaeval.errors import InputError, NotFoundError
from rcaeval.prove._plan import ROLES, CasePlan, plan_case
from rcaeval.prove._verdict import CaseProof, RoleResult, prove_row

if TYPE_CHECKING:
    from rcaeval.store import Store

PROOF_SUITE = "proof"
AGENT_MODULE = "rcaeval.prove.agent"


@dataclass
class ProofReport:
    """What :func:`prove` found: one :class:`CaseProof` per case, in order."""

    rows: list[CaseProof]
    wall_s: float
    run_ids: dict[str, str] = field(default_factory=dict)
    out: Path | None = None

    @property
    def ok(self) -> bool:
        """No case unproven (exempt cases do not count against it)."""
        return all(r.status != "unproven" for r in self.rows)

    def counts(self) -> dict[str, int]:
        out = {"proven": 0, "unproven": 0, "exempt": 0}
        for r in self.rows:
            out[r.status] += 1
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "counts": self.counts(), "wall_s": round(self.wall_s, 3),
                "run_ids": self.run_ids, "cases": [r.to_dict() for r in self.rows]}


def agent_spec(role: str, plans: Path) -> str:
    """The ``command:`` spec of one reference agent (``plans`` is bound read-only into the
    sandbox, like ``--sandbox-bind PLANS:ro``)."""
    return f"command:{{python}} -m {AGENT_MODULE} --role {role} --plans {plans}"


def select(registry: Path | str | None, suite: str | None, case_ids: Sequence[str]
           ) -> tuple[Path, list[str], Any]:
    """The registry root, the case ids to prove and the suite spec (None without --suite).
    Unknown suite or case: :class:`NotFoundError`; a case that does not load:
    :class:`RegistryError` (an input error)."""
    from rcaeval.registry import load_suite, resolve_registry_dir

    root = resolve_registry_dir(registry)
    spec = load_suite(root, suite) if suite else None
    known = sorted(p.name for p in (root / "cases").iterdir()
                   if (p / "case.yaml").is_file()) if (root / "cases").is_dir() else []
    if case_ids:
        for cid in case_ids:
            if cid not in known:
                raise NotFoundError(f"case {cid!r} not found in {root / 'cases'}")
            if spec is not None and cid not in spec.case_ids:
                raise NotFoundError(f"case {cid!r} is not in suite {suite!r}")
        ids = list(dict.fromkeys(case_ids))
    else:
        ids = spec.case_ids if spec is not None else known
    if not ids:
        raise InputError(f"no case to prove in {root}")
    return root, ids, spec


def _overlay(root: Path, ids: list[str], spec: Any, tmp: Path) -> Path:
    """A registry whose one suite holds exactly the cases to prove (``tools: mcp``), sharing
    the real registry's cases and grammar through symlinks."""
    reg = tmp / "registry"
    (reg / "suites").mkdir(parents=True)
    os.symlink((root / "cases").resolve(), reg / "cases")
    if (root / "grammar.yaml").is_file():
        os.symlink((root / "grammar.yaml").resolve(), reg / "grammar.yaml")
    execution = spec.execution.model_dump(mode="json") if spec is not None else {}
    execution["tools"] = "mcp"
    doc = {"suite_id": PROOF_SUITE, "version": spec.version if spec is not None else "proof",
           "description": "case proofs (rcaeval case prove)", "execution": execution,
           "cases": [{"id": cid, "baseline_eligible": False} for cid in ids]}
    (reg / "suites" / f"{PROOF_SUITE}.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    return reg


def _results(store: Store, summary: Any) -> dict[str, RoleResult]:
    packets: dict[str, dict[str, Any]] = {}
    df = store.judgments(run_id=summary.run_id)
    for row in df.iter_rows(named=True):
        packets[row["case_id"]] = orjson.loads(row["judgment_json"])
    return {c.case_id: RoleResult.from_packet(c.status, packets.get(c.case_id), c.error)
            for c in summary.cases}


def prove(registry: Path | str | None = None, *, suite: str | None = None,
          case_ids: Sequence[str] = (), out: Path | str | None = None,
          jobs: int | None = None, timeout_s: float | None = None,
          sandbox: str | None = None, progress: bool = False) -> ProofReport:
    """Prove cases: run the oracle, lazy and wrong reference agents on each (docs/registry.md,
    "Prove it") and return the table. ``out`` keeps the proof's store
    (``proof.duckdb``), audits and plans (default: a temporary dir, removed)."""
    import rcaeval.store as st
    from rcaeval.registry import RegistryError, load_case
    from rcaeval.runner import run_suite

    started = time.monotonic()
    root, ids, spec = select(registry, suite, case_ids)
    cases, plans, problems = {}, {}, []
    for cid in ids:
        try:
            cases[cid] = load_case(root, cid)
        except RegistryError as exc:
            problems += exc.problems
            continue
        plans[cid] = plan_case(cases[cid])
    if problems:
        raise RegistryError(problems, root=str(root))
    keep = out is not None
    tmp = Path(out) if keep else Path(tempfile.mkdtemp(prefix="rcaeval-prove-"))
    tmp.mkdir(parents=True, exist_ok=True)
    run_ids: dict[str, str] = {}
    try:
        plan_dir = (tmp / "plans").resolve()
        plan_dir.mkdir(exist_ok=True)
        for cid, plan in plans.items():
            (plan_dir / f"{cid}.json").write_bytes(orjson.dumps(plan.agent_plan()))
        todo = [cid for cid in ids if not plans[cid].exempt]
        results: dict[str, dict[str, RoleResult]] = {cid: {} for cid in ids}
        if todo:
            if keep and (tmp / "registry").exists():
                shutil.rmtree(tmp / "registry")
            reg = _overlay(root, todo, spec, tmp)
            store = st.connect(tmp / "proof.duckdb")
            stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
            try:
                for role in ROLES:
                    run_cases = [c for c in todo if role != "wrong" or plans[c].wrong]
                    if role == "lazy":
                        run_cases = [c for c in run_cases if plans[c].lazy_channel]
                    if not run_cases:
                        continue
                    summary = run_suite(
                        store, PROOF_SUITE, agent_spec(role, plan_dir), registry_root=reg,
                        audit_root=tmp / "audits", jobs=jobs, case_timeout_s=timeout_s,
                        run_id=f"proof-{role}-{stamp}-{os.urandom(3).hex()}",
                        case_ids=run_cases, progress=progress, reports=False,
                        expose_case_ids=True, agent_name=f"proof-{role}", tools="mcp",
                        sandbox=sandbox, sandbox_binds=[f"{plan_dir}:ro"])
                    run_ids[role] = summary.run_id
                    for cid, res in _results(store, summary).items():
                        results[cid][role] = res
            finally:
                store.close()
        rows = [prove_row(plans[cid], cases[cid], results[cid]) for cid in ids]
    finally:
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)
    return ProofReport(rows, time.monotonic() - started, run_ids, tmp if keep else None)


def case_plans(registry: Path | str | None = None, *, suite: str | None = None,
               case_ids: Sequence[str] = ()) -> list[CasePlan]:
    """The proof plans of the selected cases, without running anything."""
    from rcaeval.registry import load_case

    root, ids, _ = select(registry, suite, case_ids)
    return [plan_case(load_case(root, cid)) for cid in ids]
