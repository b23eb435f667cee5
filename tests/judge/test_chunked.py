"""Judging in chunks (``chunk_size``) gives exactly the results of one pass over every case:
same frame, same eval_* rows, byte-identical judgment.json files (sample data, judged into
temporary stores and output dirs so the shipped data is not touched)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rcaeval._paths import data_dir
from rcaeval.errors import InputError

RECORDED = data_dir() / "recorded"
REGISTRY = data_dir() / "registry"

pytestmark = pytest.mark.skipif(
    not (RECORDED / "EXPECTED.csv").is_file() or not (REGISTRY / "cases").is_dir(),
    reason="sample data not generated yet (data/recorded/EXPECTED.csv, data/registry)",
)

TABLES = {
    "eval_judgment": "* EXCLUDE (judged_at)",
    "eval_bucket": "*",
    "eval_check": "*",
    "eval_fact": "*",
    "eval_case_runs": "*",
    "eval_detector_hit": "*",
}


def _judge(tmp: Path, chunk_size: int | None):
    import rcaeval.store as st
    from rcaeval.judge import judge_audit

    out = tmp / f"out-{chunk_size}"
    store = st.connect(":memory:")
    frame = judge_audit(store, RECORDED, REGISTRY, out_dir=out, workers=1,
                        chunk_size=chunk_size)
    return store, frame, out


def _files(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("judgment.json"))}


@pytest.fixture(scope="module")
def single_and_chunked(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("chunks")
    # 7 does not divide the 80 sample case runs and cuts through runs: chunks of 7, last of 3;
    # detector blocks of DETECTOR_BLOCK_CHUNKS (10) chunks: 70 case runs, then 10.
    runs = [_judge(tmp, None), _judge(tmp, 7)]
    yield runs
    for store, _, _ in runs:
        store.close()


@pytest.mark.slow
def test_chunked_frame_equals_single_pass(single_and_chunked):
    (_, single, _), (_, chunked, _) = single_and_chunked
    assert single.height > 7 * 2
    assert chunked.equals(single)
    keys = list(zip(single["run_id"], single["case_id"], strict=True))
    assert keys == sorted(keys)


@pytest.mark.slow
def test_chunked_store_rows_equal_single_pass(single_and_chunked):
    (s1, _, _), (s2, _, _) = single_and_chunked
    for table, cols in TABLES.items():
        query = f"SELECT {cols} FROM {table} ORDER BY ALL"
        a, b = s1.con.execute(query).fetchall(), s2.con.execute(query).fetchall()
        assert a, table
        assert a == b, table


@pytest.mark.slow
def test_chunked_files_byte_identical(single_and_chunked):
    (_, frame, out1), (_, _, out2) = single_and_chunked
    f1, f2 = _files(out1), _files(out2)
    assert len(f1) == frame.height
    assert f1 == f2


@pytest.mark.slow
def test_one_judged_at_for_all_chunks(single_and_chunked):
    _, (store, _, _) = single_and_chunked
    n = store.con.execute("SELECT count(DISTINCT judged_at) FROM eval_judgment").fetchall()
    assert n == [(1,)]


@pytest.mark.slow
def test_chunked_judge_loaded_validates_every_key_first(single_and_chunked):
    """A bad key in a late chunk fails before any chunk is written."""
    from rcaeval.judge import judge_loaded

    _, (store, frame, _) = single_and_chunked
    keys = list(zip(frame["run_id"], frame["case_id"], strict=True))
    before = store.con.execute("SELECT count(*), max(judged_at) FROM eval_judgment").fetchall()
    with pytest.raises(InputError, match="no case_meta row"):
        judge_loaded(store, [*keys, ("zz-no-such-run", "no-such-case")], chunk_size=3,
                     write_files=False)
    after = store.con.execute("SELECT count(*), max(judged_at) FROM eval_judgment").fetchall()
    assert after == before


@pytest.mark.slow
def test_judge_loaded_without_keys_is_chunked_too(single_and_chunked):
    from rcaeval.judge import judge_loaded

    (_, single, _), (store, _, _) = single_and_chunked
    again = judge_loaded(store, chunk_size=50, write_files=False)
    assert again.equals(single)


@pytest.mark.parametrize("size", [0, -1])
@pytest.mark.slow
def test_bad_chunk_size(size, single_and_chunked):
    from rcaeval.judge import judge_loaded

    _, (store, _, _) = single_and_chunked
    with pytest.raises(InputError, match="chunk_size"):
        judge_loaded(store, chunk_size=size, write_files=False)


@pytest.mark.slow
def test_cli_chunk_size_and_memory_limit(tmp_path, capsys):
    from rcaeval.cli import main

    db = tmp_path / "s.duckdb"
    code = main(["judge", str(RECORDED / "rec-shallow"), "--registry", str(REGISTRY),
                 "--db", str(db), "--out", str(tmp_path / "out"), "--workers", "1",
                 "--chunk-size", "4", "--memory-limit", "512MB", "--threads", "1"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "13 case run(s)" in out
    assert len(list((tmp_path / "out").rglob("judgment.json"))) == 13


def test_cli_rejects_bad_memory_limit(tmp_path, capsys):
    from rcaeval.cli import main

    code = main(["judge", str(RECORDED / "rec-shallow"), "--registry", str(REGISTRY),
                 "--db", str(tmp_path / "s.duckdb"), "--memory-limit", "lots"])
    assert code == 3


def test_cli_bulk_memory_limit_default(tmp_path, monkeypatch):
    from rcaeval.cli._cmd_judge import _bulk_memory_limit
    from rcaeval.judge import BULK_MEMORY_LIMIT
    from rcaeval.store import MEMORY_LIMIT_ENV

    monkeypatch.delenv(MEMORY_LIMIT_ENV, raising=False)
    db = tmp_path / "s.duckdb"
    assert _bulk_memory_limit(db, None) == BULK_MEMORY_LIMIT
    assert _bulk_memory_limit(db, "3GB") == "3GB"
    assert _bulk_memory_limit(Path(":memory:"), None) is None
    monkeypatch.setenv(MEMORY_LIMIT_ENV, "700MB")
    assert _bulk_memory_limit(db, None) == "700MB"


@pytest.mark.slow
def test_a_chunk_reads_only_its_own_raw_rows(single_and_chunked):
    """After judging in chunks, the chunk's raw inputs (j_raw_*) hold exactly the raw rows of
    the last chunk's keys: a pass never works on the whole raw store."""
    from rcaeval.extract._schema import RAW_TABLES
    from rcaeval.judge import judge_loaded

    _, (store, frame, _) = single_and_chunked
    judge_loaded(store, chunk_size=9, write_files=False)
    keys = store.con.execute("SELECT run_id, case_id FROM j_scope ORDER BY ALL").fetchall()
    assert 0 < len(keys) <= 9 < frame.height
    for table in RAW_TABLES:
        if table == "raw_bundle":
            continue
        got = store.con.execute(f"SELECT count(*) FROM j_{table}").fetchone()[0]
        want = store.con.execute(
            f"SELECT count(*) FROM {table} SEMI JOIN j_scope USING (run_id, case_id)"
        ).fetchone()[0]
        assert got == want, table
        outside = store.con.execute(
            f"SELECT count(*) FROM j_{table} ANTI JOIN j_scope USING (run_id, case_id)"
        ).fetchone()[0]
        assert outside == 0, table


def test_file_store_checkpoints_between_chunks_not_in_commits(tmp_path, monkeypatch):
    """In a file store, a chunk's commit leaves its rows in DuckDB's write-ahead log; the
    judge checkpoints once the chunk's inputs are dropped (before the next chunk), and at the
    end; the connection's checkpoint threshold is the caller's again afterwards."""
    import rcaeval.judge._session as audit
    import rcaeval.store as st
    from rcaeval.judge import judge_audit

    db = tmp_path / "s.duckdb"
    seen: list[tuple[int, str]] = []
    real = audit.checkpoint

    def spy(con):
        seen.append((st.wal_bytes(con),
                     con.execute("SELECT current_setting('checkpoint_threshold')"
                                 ).fetchall()[0][0]))
        real(con)

    monkeypatch.setattr(audit, "checkpoint", spy)
    store = st.connect(db)
    try:
        before = store.con.execute("SELECT current_setting('checkpoint_threshold')"
                                   ).fetchall()[0][0]
        frame = judge_audit(store, RECORDED, REGISTRY, out_dir=tmp_path / "out", workers=1,
                            chunk_size=30)
        assert frame.height == 80
        # 80 case runs in chunks of 30: checkpoints before the 2nd and the 3rd chunk, each
        # finding the previous chunk's commit still in the log, under the raised threshold
        assert len(seen) == 2 and all(size > 0 and t != before for size, t in seen), seen
        # the last chunk's rows are checkpointed too (what judge_audit records after judging,
        # a few rows, may follow in the log)
        assert st.wal_bytes(store.con) < min(size for size, _ in seen) / 4
        assert store.con.execute("SELECT current_setting('checkpoint_threshold')"
                                 ).fetchall()[0][0] == before
        assert store.con.execute("SELECT count(*) FROM eval_judgment").fetchall() == [(80,)]
    finally:
        store.close()
