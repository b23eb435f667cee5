"""A manifest line whose file only defines TEMP views and macros runs once per connection,
not once per chunk (queries/judge/stages.txt [defined]): views bind when read, so later
passes read their own chunk's tables through the same definitions. j_defined, a TEMP table,
records such lines in the same transaction as the definitions, so a rolled-back definition is
made again."""

from __future__ import annotations

from collections import Counter

import pytest
from judge_kit import CASE, RUN, healthy_rows, make_db, setup_case

import rcaeval.judge._manifest as M
from rcaeval.judge import run_judge_sql


def _runs(con, passes: int) -> tuple[Counter, list]:
    ran: Counter = Counter()
    frames = []

    def count(phase, line, file, wall, cpu):
        if file is None:
            ran[line] += 1

    with M.timed_lines(count):
        for _ in range(passes):
            frames.append(run_judge_sql(con))
    return ran, frames


def _rows(frames) -> list:
    return [frames.judgments.drop("judged_at", strict=False).rows(),
            frames.checks.rows(), frames.facts.rows(), frames.buckets.rows()]


def test_definitions_run_once_per_connection_and_judge_the_same() -> None:
    con = make_db()
    setup_case(con, healthy_rows())
    ran, frames = _runs(con, 3)
    definitions = [ln.text() for ln in M.phase("decide") if M._definitions(ln)]
    assert "facts/base.sql" in definitions and "facts/evidence.sql" in definitions
    assert all(ran[d] == 1 for d in definitions), {d: ran[d] for d in definitions}
    tables = [ln.text() for ln in M.phase("decide") if ln.step is None
              and not M._definitions(ln)]
    assert "judge/stage1_facts.sql" in tables
    assert all(ran[t] == 3 for t in tables), {t: ran[t] for t in tables}
    assert _rows(frames[0]) == _rows(frames[1]) == _rows(frames[2])
    listed = {r[0].split(" ")[0] for r in con.execute("SELECT line FROM j_defined").fetchall()}
    assert set(definitions) | {"judge/scores.sql", "judge/verdict.sql"} == listed


def test_a_later_pass_reads_its_own_chunk_through_the_same_views() -> None:
    """The second pass judges other data (a run without metrics) through the views the first
    defined: its rows are that data's, as on a fresh connection."""
    def bad_rows() -> dict:
        rows = healthy_rows("run-2")
        rows["raw_file"] = [r for r in rows["raw_file"] if not r["file"].endswith("metrics.json")]
        rows["raw_metric_point"] = []
        rows["raw_json"] = [r for r in rows["raw_json"] if not r["file"].endswith("metrics.json")]
        return rows

    fresh = make_db()
    setup_case(fresh, bad_rows())
    alone = _rows(run_judge_sql(fresh))
    con = make_db()
    setup_case(con, healthy_rows())
    setup_case(con, bad_rows())
    first = _rows(run_judge_sql(con, [(RUN, CASE)]))
    second = _rows(run_judge_sql(con, [("run-2", CASE)]))
    assert second == alone
    assert [r[2:] for r in second[0]] != [r[2:] for r in first[0]]  # not the healthy verdict


def test_a_rolled_back_definition_is_made_again() -> None:
    con = make_db()
    setup_case(con, healthy_rows())
    con.execute("BEGIN TRANSACTION")
    inside = _rows(run_judge_sql(con))
    con.execute("ROLLBACK")
    assert con.execute("SELECT count(*) FROM duckdb_views() WHERE view_name = 'fact_rows'"
                       ).fetchone()[0] == 0
    ran, frames = _runs(con, 1)
    assert ran["facts/base.sql"] == 1
    assert _rows(frames[0]) == inside


def test_an_edited_definition_file_is_a_new_definition(monkeypatch) -> None:
    con = make_db()
    setup_case(con, healthy_rows())
    run_judge_sql(con)
    line = next(ln for ln in M.phase("decide") if ln.path == "facts/derived.sql")
    before = M._definition_key(line)
    edited = M._line_sql(line) + "\n-- edited\n"
    monkeypatch.setattr(M, "_line_sql", lambda ln: edited if ln == line else
                        (M.read_statement(ln.path, **ln.fill) if ln.fill
                         else M.read_query(ln.path)))
    assert M._definition_key(line) != before
    ran, _ = _runs(con, 1)
    assert ran["facts/derived.sql"] == 1 and ran["facts/base.sql"] == 0


@pytest.mark.parametrize(("text", "only"), [
    ("CREATE OR REPLACE TEMP VIEW v AS SELECT 1;", True),
    ("-- a comment\nCREATE OR REPLACE TEMP VIEW v AS SELECT 1;\n"
     "CREATE OR REPLACE TEMP MACRO m(x) AS x + 1;", True),
    ("create or replace temporary view v as select 1", True),
    ("CREATE OR REPLACE TEMP VIEW v AS SELECT 1;\n"
     "CREATE OR REPLACE TEMP TABLE t AS SELECT 1;", False),
    ("CREATE OR REPLACE TEMP VIEW v AS SELECT 1;\nINSERT INTO t VALUES (1);", False),
    ("CREATE TEMP VIEW v AS SELECT 1;", False),   # fails the second time: runs every pass
    ("CREATE OR REPLACE VIEW v AS SELECT 1;", False),  # a persistent view: not this rule's
    ("SET VARIABLE x = 1;", False),
    ("-- only a comment", False),
])
def test_what_counts_as_definitions_only(text: str, only: bool) -> None:
    assert M._defines_only(text) is only


def test_the_kit_judges_one_run() -> None:
    con = make_db()
    setup_case(con, healthy_rows())
    assert run_judge_sql(con).judgments["run_id"].to_list() == [RUN]
