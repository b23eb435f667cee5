"""Loading the judge's inputs into DuckDB: rule tables and ``case_meta`` rows."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

import duckdb
import pyarrow as pa

from rcaeval.errors import InputError
from rcaeval.judge._manifest import statement
from rcaeval.judge._rules import RULE_TABLES
from rcaeval.store import registered, transaction

CASE_META_SCHEMA = pa.schema([
    ("run_id", pa.string()), ("case_id", pa.string()), ("case_type", pa.string()),
    ("cluster_id", pa.string()), ("window_start", pa.timestamp("us", tz="UTC")),
    ("window_end", pa.timestamp("us", tz="UTC")), ("tolerance_s", pa.int32()),
    ("rules_hash", pa.string()), ("scoring_profile", pa.string()),
])


def _insert(con: duckdb.DuckDBPyConnection, table: str, data: pa.Table) -> None:
    name = f"__rcaeval_in_{table}"
    con.register(name, data)
    try:
        cols = ", ".join(data.column_names)
        con.execute(statement("load", "rules", "judge_io/rule_rows_insert.sql", table=table,
                                   columns=cols,
                                   view=name))
    finally:
        con.unregister(name)


def _patterns(tables: Mapping[str, pa.Table]) -> list[tuple[str, str, str, str]]:
    """Every regex of the rule tables as (pattern, case_id, field, what)."""
    out = []
    for row in tables["rule_detector"].to_pylist():
        field = f"detectors.{row['detector_id']}"
        grammar = [v for _, v in (row.get("grammar_regexes") or [])]
        for pattern in [row["any_regex"], *row["all_regexes"], row["neg_pre_regex"],
                        row["neg_post_regex"], *grammar]:
            if pattern:
                out.append((pattern, row["case_id"], field, f"detector {row['detector_id']!r}"))
    for row in tables["rule_condition"].to_pylist():
        field = f"judge.{row['bucket']}.{row['check_id']}"
        for pattern in (row["path_regex"], row["path_prefix_regex"]):
            if pattern:
                out.append((pattern, row["case_id"], field, f"path {row['path']!r}"))
    return out


def validate_rule_regexes(con: duckdb.DuckDBPyConnection, tables: Mapping[str, pa.Table]) -> None:
    """Compile every regex of the rule tables with DuckDB's RE2 (one query for all of them;
    on failure, one per pattern to name the culprit in an :class:`InputError`)."""
    patterns = _patterns(tables)
    if not patterns:
        return
    distinct = sorted({p[0] for p in patterns})
    con.register("__rcaeval_patterns", pa.table({"p": pa.array(distinct, pa.string())}))
    try:
        con.execute(statement("load", "rules", "judge_io/rule_regexes_compile.sql",
                              single=True)).fetchall()
        return
    except duckdb.Error:
        pass
    finally:
        con.unregister("__rcaeval_patterns")
    probe = statement("load", "rules", "registry/re2_compile.sql", single=True)
    for pattern, case_id, field, what in patterns:
        try:
            con.execute(probe, {"pattern": pattern}).fetchall()
        except duckdb.Error as exc:
            raise InputError(f"{what}: not a valid RE2 pattern: {exc}",
                             file=f"cases/{case_id}/judge.yaml", field=field) from exc


def load_rules(
    con: duckdb.DuckDBPyConnection, tables: Mapping[str, pa.Table], *, validate: bool = True
) -> None:
    """Replace the rule rows of every ``(case_id, rules_hash)`` in ``tables`` (the output of
    :func:`rcaeval.judge.flatten_rules`, or several concatenated) in one transaction."""
    if validate:
        validate_rule_regexes(con, tables)
    keys = tables["rule_bucket_param"].select(["case_id", "rules_hash"])
    with registered(con, {"__rcaeval_rule_keys": keys}), transaction(con):
        for table in RULE_TABLES:
            con.execute(statement("load", "rules", "judge_io/rule_rows_delete.sql",
                                  table=table))
            if tables[table].num_rows:
                _insert(con, table, tables[table])


def concat_rule_tables(parts: Iterable[Mapping[str, pa.Table]]) -> dict[str, pa.Table]:
    """Concatenate several :func:`flatten_rules` outputs table by table."""
    parts = list(parts)
    if not parts:
        from rcaeval.judge._rules import SCHEMAS

        return {t: SCHEMAS[t].empty_table() for t in RULE_TABLES}
    return {t: pa.concat_tables([p[t] for p in parts]) for t in RULE_TABLES}


def _ts(value: Any) -> datetime | None:
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        dt = value
    else:
        text = str(value).strip()
        if text.endswith("Z"):
            text = text[:-1] + "+00:00"
        try:
            dt = datetime.fromisoformat(text)
        except ValueError as exc:
            raise InputError(f"not an ISO-8601 timestamp: {value!r}") from exc
    return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt.astimezone(UTC)


def case_fields(case_doc: Mapping[str, Any]) -> dict[str, Any]:
    """The case fields the judge needs, from a case.yaml-shaped dict (``case_type``,
    ``environment.cluster_id``, ``time_window.{start,end,tolerance_s}``) or an already flat
    one (``cluster_id``, ``window_start``, ``window_end``, ``tolerance_s``)."""
    env = case_doc.get("environment") or {}
    tw = case_doc.get("time_window") or {}
    return {
        "case_type": case_doc.get("case_type"),
        "cluster_id": case_doc.get("cluster_id", env.get("cluster_id")),
        "window_start": _ts(case_doc.get("window_start", tw.get("start"))),
        "window_end": _ts(case_doc.get("window_end", tw.get("end"))),
        "tolerance_s": int(case_doc.get("tolerance_s", tw.get("tolerance_s")) or 0),
    }


def case_meta_table(rows: Iterable[Mapping[str, Any]]) -> pa.Table:
    """``case_meta`` rows: each mapping has run_id, case_id, rules_hash, scoring_profile and
    the :func:`case_fields` keys."""
    return pa.Table.from_pylist([dict(r) for r in rows], schema=CASE_META_SCHEMA)


def load_case_meta(con: duckdb.DuckDBPyConnection, table: pa.Table) -> None:
    """Upsert ``case_meta`` rows (by run_id, case_id)."""
    with registered(con, {"__rcaeval_case_meta": table}), transaction(con):
        con.execute(statement("load", "case_meta", "judge/upsert_case_meta.sql"))
