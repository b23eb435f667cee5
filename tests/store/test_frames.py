from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import polars as pl
import pyarrow as pa
import pytest

import rcaeval.store as st
from rcaeval.errors import InputError, NotFoundError


def _checks(run_id: str, case_id: str, passed: bool) -> pl.DataFrame:
    rows = [
        ("diagnosis", "root_cause_family", "hard"),
        ("contract", "time_window_match", "check"),
        ("workflow", "guardrails_loaded", "check"),
        ("critical_evidence", "panic_in_logs", "check"),
        ("contract", "cluster_match", "check"),
    ]
    return pl.DataFrame(
        {
            "run_id": [run_id] * len(rows),
            "case_id": [case_id] * len(rows),
            "bucket": [r[0] for r in rows],
            "check_id": [r[1] for r in rows],
            "kind": [r[2] for r in rows],
            "passed": [passed] * len(rows),
            "reason": ["because"] * len(rows),
            "evidence_line": [7] * len(rows),
        }
    )


def test_frames_are_polars_with_table_columns(store: st.Store) -> None:
    for method, table in (
        (store.runs, "eval_runs"),
        (store.case_runs, "eval_case_runs"),
        (store.judgments, "eval_judgment"),
        (store.buckets, "eval_bucket"),
        (store.checks, "eval_check"),
        (store.trajectory, "eval_trajectory"),
    ):
        frame = method()
        assert isinstance(frame, pl.DataFrame)
        assert frame.columns == [c for c, _ in store.columns(table)]
    assert {"run_id", "case_id", "verdict", "subtype", "score", "judgment_json"} <= set(
        store.judgments().columns
    )
    assert store.judgments().schema["judged_at"] == pl.Datetime("us", "UTC")
    assert store.checks().schema["passed"] == pl.Boolean


def test_frames_filter_and_order(store: st.Store) -> None:
    store.write_frame("eval_check", _checks("r2", "c1", True))
    store.write_frame("eval_check", _checks("r1", "c2", False))
    store.write_frame("eval_check", _checks("r1", "c1", True))
    allc = store.checks()
    assert allc.height == 15
    assert allc.select("run_id", "case_id").unique(maintain_order=True).rows() == [
        ("r1", "c1"),
        ("r1", "c2"),
        ("r2", "c1"),
    ]
    one = store.checks(run_id="r1", case_id="c1")
    # buckets in report order, then check id
    assert one.select("bucket", "check_id").rows() == [
        ("contract", "cluster_match"),
        ("contract", "time_window_match"),
        ("workflow", "guardrails_loaded"),
        ("critical_evidence", "panic_in_logs"),
        ("diagnosis", "root_cause_family"),
    ]
    assert store.checks(bucket="contract").height == 6
    assert store.checks(run_id=["r2", "nope"]).height == 5
    assert store.checks(run_id="r1", bucket=["diagnosis", "workflow"]).height == 4
    assert store.checks(run_id="missing").height == 0

    store.write_frame(
        "eval_bucket",
        pl.DataFrame(
            {
                "run_id": ["r1"] * 3,
                "case_id": ["c1"] * 3,
                "bucket": ["zz_custom", "diagnosis", "contract"],
                "status": ["pass", "fail", "pass"],
            }
        ),
    )
    assert store.buckets(run_id="r1")["bucket"].to_list() == ["contract", "diagnosis", "zz_custom"]


def test_judgments_and_runs_frames(store: st.Store) -> None:
    store.write_frame(
        "eval_judgment",
        pl.DataFrame(
            {
                "run_id": ["r1", "r1", "r0"],
                "case_id": ["b", "a", "z"],
                "verdict": ["pass", "fail", "invalid"],
                "score": [88.0, 40.0, 0.0],
                "judged_at": [datetime(2026, 10, 3, 14, tzinfo=UTC)] * 3,
            }
        ),
    )
    j = store.judgments()
    assert j.select("run_id", "case_id").rows() == [("r0", "z"), ("r1", "a"), ("r1", "b")]
    assert store.judgments(case_id="a")["verdict"].to_list() == ["fail"]
    assert store.judgments(run_id="r1", case_id=["b"])["score"].to_list() == [88.0]


def test_write_frame_missing_columns_get_defaults(store: st.Store) -> None:
    n = store.write_frame(
        "eval_case_runs", pl.DataFrame({"run_id": ["r1"], "case_id": ["c1"], "status": ["judged"]})
    )
    assert n == 1
    row = store.case_runs(run_id="r1").to_dicts()[0]
    assert row["attempts"] == 0  # the table's DEFAULT
    assert row["error"] is None and row["cost_usd"] is None


def test_write_frame_unknown_columns_rejected(store: st.Store) -> None:
    frame = pl.DataFrame({"run_id": ["r1"], "case_id": ["c"], "verdict": ["pass"], "oops": [1]})
    with pytest.raises(InputError, match="columns not in the table: oops"):
        store.write_frame("eval_judgment", frame)
    assert store.judgments().height == 0
    with pytest.raises(NotFoundError, match="no_such"):
        store.write_frame("no_such", frame)
    with pytest.raises(InputError, match="replace_keys"):
        store.write_frame("eval_judgment", frame.drop("oops"), replace_keys=["bucket"])
    with pytest.raises(InputError, match="polars DataFrame or a pyarrow Table"):
        store.write_frame("eval_judgment", [{"run_id": "r"}])  # type: ignore[arg-type]
    with pytest.raises(InputError, match="migration runner"):
        store.write_frame("schema_migrations", pl.DataFrame({"version": [99]}))


def test_write_frame_replace_keys_is_idempotent(store: st.Store) -> None:
    store.write_frame("eval_check", _checks("r1", "other", True))
    first = _checks("r1", "c1", False)
    for _ in range(3):
        store.write_frame("eval_check", first, replace_keys=["run_id", "case_id"])
    assert store.checks(case_id="c1").height == 5
    assert store.checks().height == 10
    # re-judging with fewer checks and new results replaces the case's rows entirely
    again = _checks("r1", "c1", True).head(2)
    store.write_frame("eval_check", again, replace_keys=["run_id", "case_id"])
    c1 = store.checks(case_id="c1")
    assert c1.height == 2 and c1["passed"].all()
    assert store.checks(case_id="other").height == 5  # untouched


def test_write_frame_without_replace_conflict_writes_nothing(store: st.Store) -> None:
    store.write_frame("eval_check", _checks("r1", "c1", True))
    mixed = pl.concat([_checks("r1", "c2", True), _checks("r1", "c1", False)])
    with pytest.raises(InputError, match="nothing written"):
        store.write_frame("eval_check", mixed)
    assert store.checks(case_id="c2").height == 0
    assert store.checks(case_id="c1")["passed"].all()


def test_write_frame_type_error_quotes_its_statement_at_line_1(store: st.Store) -> None:
    frame = pl.DataFrame({"run_id": ["r1"], "case_id": ["c1"], "attempts": ["zz"]})
    with pytest.raises(InputError, match="nothing written: Conversion Error") as err:
        store.write_frame("eval_case_runs", frame)
    # queries/store/frame_insert.sql runs without its header comment: DuckDB's context line
    # (shortened around the failing column) is the statement's first
    assert '\nLINE 1: ... ("run_id", "case_id", "attempts") SELECT "run_id", ' in str(err.value)
    assert store.case_runs().height == 0


def test_read_statement_drops_the_header_and_fills_placeholders_once() -> None:
    from rcaeval._paths import read_query, read_statement

    assert read_query("store/frame_insert.sql").startswith("-- ")
    text = read_statement("store/frame_insert.sql", table='"{view}"', columns='"a", "b"',
                          view='"v"')
    assert text == 'INSERT INTO "{view}" ("a", "b") SELECT "a", "b" FROM "v"'


def test_write_frame_replace_keys_match_null_keys(store: st.Store) -> None:
    frame = pl.DataFrame({"run_id": ["r1"], "case_id": ["c1"], "file": ["f"], "status": ["ok"]})
    frame = frame.with_columns(pl.lit(None, dtype=pl.String).alias("kind"))
    store.write_frame("raw_file", frame, replace_keys=["run_id", "kind"])
    store.write_frame("raw_file", frame, replace_keys=["run_id", "kind"])
    assert store.table("raw_file").height == 1


def test_write_frame_accepts_arrow_and_maps(store: st.Store) -> None:
    table = pa.table(
        {
            "run_id": ["r1", "r1"],
            "case_id": ["c1", "c1"],
            "series_idx": pa.array([0, 1], type=pa.int32()),
            "labels": pa.array(
                [[("instance", "tikv-2")], None], type=pa.map_(pa.string(), pa.string())
            ),
            "ts": pa.array(
                [datetime(2026, 10, 3, 14, 5, tzinfo=UTC), None], type=pa.timestamp("us", "UTC")
            ),
            "value": [1.0, 2.0],
        }
    )
    assert store.write_frame("raw_metric_point", table) == 2
    got = store.table("raw_metric_point")
    assert got.schema["labels"] == pl.Map(pl.String, pl.String)
    assert got["labels"].to_list() == [{"instance": "tikv-2"}, None]
    assert got["ts"].to_list() == [datetime(2026, 10, 3, 14, 5, tzinfo=UTC), None]
    # a polars struct column (what a dict literal becomes) is cast to the MAP column
    store.write_frame(
        "raw_metric_point",
        pl.DataFrame(
            {"run_id": ["r2"], "case_id": ["c"], "series_idx": [0], "labels": [{"a": "b"}]}
        ),
    )
    m = store.sql("SELECT labels['a'] AS a FROM raw_metric_point WHERE run_id = ?", ["r2"])[
        "a"
    ].item()
    assert m == "b"


def test_sql_params_and_tables(store: st.Store) -> None:
    assert store.sql("SELECT ? + 1 AS x", [41])["x"].item() == 42
    assert store.sql("SELECT $a AS a", {"a": "z"})["a"].item() == "z"
    assert "schema_migrations" in store.tables()
    assert store.tables() == sorted(store.tables())
    store.sql("CREATE VIEW v AS SELECT 1 AS x")
    assert "v" not in store.tables()  # views are not tables
    counts = store.row_counts()
    assert counts["schema_migrations"] == store.migrations().height  # numbers may have gaps
    assert set(counts) == set(store.tables())


def test_filler_covers_every_table(store: st.Store, fill: Callable[..., pa.Table]) -> None:
    for t in store.tables():
        if t != "schema_migrations":
            fill(store, t)
            assert store.table(t).height == 3
