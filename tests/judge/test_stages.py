"""The judge manifest (queries/judge/stages.txt) is the one list of what a judging pass runs:
its phases name only SQL files that exist, every SQL file the judge's code reads is named by
the phase and step that runs it, list lines expand from the catalog in order, the digest
hashes exactly the verdict-deciding phases, and adding a stage is one SQL file plus one
manifest line (CONTRIBUTING.md, "Recipe: add a judging stage")."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from judge_kit import healthy_rows, make_db, setup_case

import rcaeval._paths as paths
import rcaeval.judge._manifest as M
from rcaeval._paths import queries_dir
from rcaeval._vocab import BUCKETS, EVIDENCE_METHODS
from rcaeval.extract import RAW_TABLES
from rcaeval.judge import run_judge_sql

REPO = Path(__file__).resolve().parents[2]
PHASES = ["load", "extract", "scope", "detect", "decide", "decide.verdict", "write",
          "write.unloadable", "write.runs", "release", "defined", "shadow"]


def test_manifest_has_the_phases_and_names_existing_files() -> None:
    assert list(M.phases()) == PHASES
    missing = [f for f in M.sql_files() if not (queries_dir() / f).is_file()]
    assert not missing, missing
    for name, lines in M.phases().items():
        plain = [ln.text() for ln in lines if ln.step is None and not ln.fill]
        assert len(plain) == len(set(plain)), f"[{name}]: a stage listed twice"
        steps = [ln.step for ln in lines if ln.step is not None]
        assert len(steps) == len(set(steps)), f"[{name}]: a step listed twice"


def _literal_reads(paths_: list[Path]) -> set[str]:
    """Every queries/ file the given modules name in a string literal ending in .sql."""
    out: set[str] = set()
    for p in paths_:
        out |= set(re.findall(r'"((?:[a-z_]+)/[a-z0-9_]+\.sql)"', p.read_text(encoding="utf-8")))
    return out


def test_every_sql_file_the_judge_reads_is_in_the_manifest() -> None:
    """The judge, extraction and the semantic shadow's writer read no SQL file the manifest
    leaves out (the other direction: the manifest names only what exists, test above)."""
    named = set(M.sql_files())
    judge = _literal_reads(sorted(p for p in (REPO / "rcaeval" / "judge").glob("*.py")
                                  if p.name != "_explain.py"))  # explain reads eval_* rows
    judge -= {"store/current_memory_limit.sql"}  # the out-of-memory message's probe
    assert judge - named == set()
    extract = _literal_reads(sorted((REPO / "rcaeval" / "extract").glob("*.py")))
    assert extract == set(M.step_files("extract", "extract"))
    flow = _literal_reads([REPO / "rcaeval" / "semantic" / "_flow.py"])
    assert flow == set(M.step_files("shadow", "shadow"))


def test_list_lines_expand_from_the_catalog_in_order() -> None:
    decide = M.phase("decide")
    assert [ln.path for ln in decide if (ln.path or "").startswith("buckets/")] == [
        f"buckets/{b}.sql" for b in BUCKETS]
    assert [ln.path for ln in decide if (ln.path or "").startswith("methods/")] == [
        f"methods/{m}.sql" for m in EVIDENCE_METHODS]
    inputs = [ln.fill["chunk_table"] for ln in decide if ln.path == "judge/chunk_input.sql"]
    assert inputs == [t for t in RAW_TABLES if t != "raw_bundle"]
    assert [ln.fill["chunk_table"] for ln in M.phase("release")] == inputs
    paths_ = [ln.path for ln in decide]
    # each union after its list's files, the shared bucket machinery before them
    assert paths_.index("judge/method_union.sql") > paths_.index(
        f"methods/{EVIDENCE_METHODS[-1]}.sql")
    assert paths_.index("judge/bucket_rows.sql") < paths_.index(f"buckets/{BUCKETS[0]}.sql")
    assert paths_.index("judge/bucket_union.sql") > paths_.index(f"buckets/{BUCKETS[-1]}.sql")
    sets = [ln for ln in decide if ln.names is not None]
    assert [(ln.fill["list"], ln.names) for ln in sets] == [
        ("method", EVIDENCE_METHODS), ("bucket", BUCKETS)]


def test_an_unknown_list_or_step_file_is_refused(tmp_path, monkeypatch) -> None:
    copy = _copy_queries(tmp_path, monkeypatch)
    manifest = copy / M.MANIFEST_FILE
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text.replace("methods/{method}.sql", "methods/{methd}.sql"),
                        encoding="utf-8")
    with pytest.raises(M.ManifestError, match=r"unknown list \{methd\}"):
        M.phases()
    manifest.write_text(text, encoding="utf-8")
    with pytest.raises(M.ManifestError, match="does not name judge/write_facts.sql"):
        M.statement("write", "clear", "judge/write_facts.sql")


def _copy_queries(tmp_path: Path, monkeypatch) -> Path:
    copy = tmp_path / "queries"
    shutil.copytree(queries_dir(), copy)
    monkeypatch.setattr(paths, "queries_dir", lambda: copy)
    monkeypatch.setattr(M, "queries_dir", lambda: copy)
    return copy


def test_digest_hashes_exactly_the_deciding_phases(tmp_path, monkeypatch) -> None:
    repo = Path(__file__).resolve().parents[2]
    assert '"_queries/**/*.txt"' in (repo / "pyproject.toml").read_text(encoding="utf-8")
    before = M.sql_digest()
    copy = _copy_queries(tmp_path, monkeypatch)
    manifest = copy / M.MANIFEST_FILE
    # a comment, or a statement that decides nothing (the write phase), leaves it
    manifest.write_text(manifest.read_text(encoding="utf-8") + "\n# a comment\n",
                        encoding="utf-8")
    with (copy / "judge/write_facts.sql").open("a", encoding="utf-8") as fh:
        fh.write("\n-- a comment\n")
    assert M.sql_digest() == before
    # a deciding file or the run order changes it
    with (copy / "buckets/diagnosis.sql").open("a", encoding="utf-8") as fh:
        fh.write("\n-- a comment\n")
    changed = M.sql_digest()
    assert changed != before
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text.replace("facts/trace.sql\nfacts/evidence.sql\n",
                                     "facts/evidence.sql\nfacts/trace.sql\n"), encoding="utf-8")
    assert M.sql_digest() not in (before, changed)


def test_adding_a_stage_is_one_sql_file_and_one_manifest_line(tmp_path, monkeypatch) -> None:
    """CONTRIBUTING.md's recipe, followed literally on a copy of queries/: the new file runs
    in every pass at its place (it reads what the stages above made; the next stages see
    what it made) and the digest changes."""
    before = M.sql_digest()
    copy = _copy_queries(tmp_path, monkeypatch)
    (copy / "judge/check_count.sql").write_text(
        "-- A stage added by the recipe test: the number of check rows per case run.\n"
        "CREATE OR REPLACE TEMP TABLE j_check_count AS\n"
        "SELECT run_id, case_id, count(*) AS n FROM j_check GROUP BY ALL;\n",
        encoding="utf-8")
    manifest = copy / M.MANIFEST_FILE
    text = manifest.read_text(encoding="utf-8")
    anchor = "judge/bucket_union.sql"
    at = text.index("\n", text.index(anchor)) + 1
    manifest.write_text(text[:at] + "judge/check_count.sql\n" + text[at:], encoding="utf-8")
    assert M.sql_digest() != before
    con = make_db()
    setup_case(con, healthy_rows())
    run_judge_sql(con)
    (n,) = con.execute("SELECT n FROM j_check_count").fetchone()
    (total,) = con.execute("SELECT count(*) FROM j_check").fetchone()
    assert n == total > 0


def test_chunk_inputs_hold_the_catalogs_judged_columns() -> None:
    """judge/chunk_input.sql, run for each {chunk_table}, makes j_<table> with exactly the
    catalog's stored columns minus its chunk exclusions (rcaeval.extract.RAW_CATALOG), in
    order, on a fully migrated store."""
    from rcaeval.extract import RAW_CATALOG

    con = make_db()
    setup_case(con, healthy_rows())
    run_judge_sql(con)
    for name in M.LISTS["chunk_table"]:
        table = RAW_CATALOG[name]
        got = [r[0] for r in con.execute(
            "SELECT column_name FROM duckdb_columns() WHERE table_name = ? "
            "ORDER BY column_index", [f"j_{name}"]).fetchall()]
        want = [c for c, _ in table.store_columns if c not in table.chunk_excluded]
        assert got == want, name


def test_eval_judgment_has_one_writer() -> None:
    """Judged chunks and unloadable cases write eval_judgment with the same statement, which
    both write phases name (docs/judge.md, "The manifest")."""
    writers = sorted(str(p.relative_to(queries_dir())) for p in queries_dir().rglob("*.sql")
                     if "INSERT INTO eval_judgment " in p.read_text(encoding="utf-8")
                     and "migrations" not in p.parts)
    assert writers == ["judge/write_judgments.sql"]
    assert "judge/write_judgments.sql" in [ln.path for ln in M.phase("write")]
    assert "judge/write_judgments.sql" in M.step_files("write.unloadable", "unloadable")


def test_eval_runs_has_one_writer() -> None:
    """A runner's run and a run judged from an audit dir get their eval_runs row from the same
    statement: the runner reads it, the judge's [write.runs] names it."""
    writers = sorted(str(p.relative_to(queries_dir())) for p in queries_dir().rglob("*.sql")
                     if "INSERT INTO eval_runs " in p.read_text(encoding="utf-8")
                     and "migrations" not in p.parts)
    assert writers == ["store/insert_run.sql"]
    assert "store/insert_run.sql" in M.step_files("write.runs", "record_runs")
    runner = (REPO / "rcaeval" / "runner" / "_resume.py").read_text(encoding="utf-8")
    assert '"store/insert_run.sql"' in runner


def test_judging_a_runners_audits_keeps_the_runners_run_row(tmp_path) -> None:
    """store/insert_run.sql for a run the store has (a runner's, then judged from its audit
    dir) writes nothing: the row stays the runner's, running, with its start time."""
    import rcaeval.store as st
    from rcaeval._paths import read_query

    store = st.connect(tmp_path / "s.duckdb")
    fields = dict.fromkeys(("suite_id", "suite_version", "agent_spec", "agent_hash", "notes",
                            "agent_name", "sandbox"))
    sql = read_query("store/insert_run.sql")
    store.con.execute(sql, {**fields, "run_id": "r1", "source": "runner", "suite_id": "smoke",
                            "audit_root": "/a", "judge_version": "j1"})
    store.con.execute(sql, {**fields, "run_id": "r1", "source": "judge", "audit_root": "/b",
                            "judge_version": "j2"})
    rows = store.con.execute("SELECT run_id, source, suite_id, audit_root, status, "
                             "started_at IS NOT NULL, judge_version FROM eval_runs").fetchall()
    assert rows == [("r1", "runner", "smoke", "/a", "running", True, "j1")]
    store.close()
