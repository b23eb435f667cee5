"""The stage manifest (queries/judge/stages.txt) is the judge's run order: it names only SQL
files that exist and only the Python steps the pipeline has, expands the registered bucket and
method lists in their order, ships in the wheel, and is part of the judge's SQL digest."""

from __future__ import annotations

from pathlib import Path

import rcaeval.judge._pipeline as P
from rcaeval._paths import queries_dir
from rcaeval._vocab import BUCKETS, EVIDENCE_METHODS


def test_manifest_names_existing_files_and_known_steps() -> None:
    st = P.stages()
    names = [*st["judge"], *st["score"]]
    steps = [n[1:] for n in names if n.startswith("!")]
    files = [n for n in names if not n.startswith("!")]
    assert sorted(steps) == sorted(P.STEPS)
    missing = [f for f in files if not (queries_dir() / f).is_file()]
    assert not missing, missing
    assert len(files) == len(set(files)), "a stage listed twice"


def test_manifest_expands_the_registered_lists_in_order() -> None:
    judge = P.stages()["judge"]
    assert [n for n in judge if n.startswith("buckets/")] == [
        f"buckets/{b}.sql" for b in BUCKETS]
    assert [n for n in judge if n.startswith("methods/")] == [
        f"methods/{m}.sql" for m in EVIDENCE_METHODS]
    # each list's union comes after its files, the shared bucket machinery before them
    assert judge.index("!method_union") > judge.index(f"methods/{EVIDENCE_METHODS[-1]}.sql")
    assert judge.index("judge/bucket_rows.sql") < judge.index(f"buckets/{BUCKETS[0]}.sql")
    assert judge.index("!bucket_union") > judge.index(f"buckets/{BUCKETS[-1]}.sql")
    assert P.stages()["score"][0] == "judge/scores.sql"


def test_manifest_ships_in_the_wheel_and_changes_the_digest(tmp_path, monkeypatch) -> None:
    repo = Path(__file__).resolve().parents[2]
    assert '"_queries/**/*.txt"' in (repo / "pyproject.toml").read_text(encoding="utf-8")
    before = P.sql_digest()
    copy = tmp_path / "queries"
    import shutil

    shutil.copytree(queries_dir(), copy)
    manifest = copy / P.STAGES_FILE
    manifest.write_text(manifest.read_text(encoding="utf-8") + "\n# reordered\n",
                        encoding="utf-8")
    monkeypatch.setattr(P, "queries_dir", lambda: copy)
    assert P.sql_digest() != before
