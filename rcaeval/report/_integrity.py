"""What a run's evidence integrity checks found, for ``explain`` and the reports (docs/judge.md,
"Sealed evidence"; queries/report/evidence_integrity.sql)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rcaeval._paths import read_query

if TYPE_CHECKING:
    from rcaeval.store import Store


def integrity_of(store: Store, run_id: str) -> dict[str, dict[str, Any]]:
    """``{case_id: counts}`` of run ``run_id`` (cases without evidence records are absent)."""
    cur = store.con.execute(read_query("report/evidence_integrity.sql"), {"run_id": run_id})
    cols = [d[0] for d in cur.description]
    return {row[0]: dict(zip(cols, row, strict=True)) for row in cur.fetchall()}


def describe(row: dict[str, Any] | None) -> list[str]:
    """One summary line, then one line per problem record (the first five)."""
    if not row:
        return ["no evidence records to check"]
    n, match, contra = row["n"], row["n_match"], row["n_contradict"]
    incident = f"incident data: {match} match, {contra} contradict"
    if row["sealed_run"]:
        head = f"sealed by the hosted tools: {row['n_sealed']}/{n} records sealed"
        if row["n_unsealed"]:
            head += f", {row['n_unsealed']} never returned by the tools"
        if row["n_altered"]:
            head += f", {row['n_altered']} edited after they were returned"
        head += f"; {incident}"
    else:
        head = (f"not sealed (no hosted tool server: --tools files or a bundle of its own): "
                f"cross-checked against the incident data only; {n} records, {incident}")
    return [head, *[str(p) for p in row["problems"] or []]]


def run_summary(rows: dict[str, dict[str, Any]], n_cases: int) -> str:
    """report.txt's ``evidence`` line: cases sealed, cross-checked only, with problems."""
    sealed = sum(1 for r in rows.values() if r["sealed_run"])
    bad = sum(1 for r in rows.values()
              if r["n_contradict"] or r["n_altered"] or r["n_unsealed"])
    return (f"{sealed} of {n_cases} cases sealed by the hosted tools, {len(rows) - sealed} "
            f"cross-checked against the incident data only; {bad} with evidence not as the "
            "tools returned it or contradicting the incident data")
