"""Item: agent-reported usage numbers are untrusted (rcaeval._usage). Out-of-range values are
stored as NULL with a per-case note, in `rcaeval run` and in `rcaeval judge`; nothing crashes."""

from __future__ import annotations

import json
import shutil

import duckdb
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst
from reliability_kit import (
    CASES,
    THOROUGH,
    hostile_args,
    make_registry,
    query,
    rcaeval,
    run_args,
)

from rcaeval._usage import MAX_TOKENS, USAGE_KEYS, bound, check, json_safe
from rcaeval.runner._agents import add_usage, empty_usage, final_usage, set_usage


def test_run_stores_null_and_a_note_for_out_of_range_usage(tmp_path):
    reg = make_registry(tmp_path / "reg", CASES)
    r = rcaeval(*run_args(tmp_path, reg, "--run-id", "u1",
                          *hostile_args("usage_huge", [CASES[0]])), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rows = {row[0]: row[1:] for row in query(
        tmp_path / "s.duckdb", "SELECT case_id, c.status, input_tokens, output_tokens, "
        "cache_read_tokens, cost_usd, error, j.verdict FROM eval_case_runs c "
        "LEFT JOIN eval_judgment j USING (run_id, case_id)")}
    status, inp, out, cache, cost, error, verdict = rows[CASES[0]]
    assert (status, verdict) == ("judged", "pass")
    assert (inp, out, cost) == (None, None, None)
    assert cache >= 10 and cache % 5 == 0  # valid numbers are still summed over the turns
    assert "usage recorded as NULL" in error and "input_tokens is out of range" in error
    assert "output_tokens total is out of range" in error and "cost_usd is negative" in error
    for cid in CASES[1:]:
        assert rows[cid][0] == "judged" and rows[cid][-1] == "pass" and rows[cid][-2] is None
    assert query(tmp_path / "s.duckdb", "SELECT status FROM eval_runs") == [("completed",)]
    assert (tmp_path / "audits" / "u1" / "report.txt").is_file()
    manifest = orjson.loads((tmp_path / "audits" / "u1" / CASES[0] / "manifest.json")
                            .read_bytes())
    assert manifest["usage"]["input_tokens"] is None and manifest["usage"]["reported"]


def test_judge_stores_null_and_a_note_for_a_hostile_manifest(tmp_path):
    audits = tmp_path / "audits" / "hand"
    for i, (cid, usage) in enumerate([
            (CASES[0], {"input_tokens": 1e300, "output_tokens": 12, "cost_usd": "free"}),
            (CASES[1], {"input_tokens": 2**64, "output_tokens": -1, "cost_usd": 1e10}),
            (CASES[2], {"input_tokens": 100, "output_tokens": 7.5, "cost_usd": 0.25})]):
        shutil.copytree(THOROUGH / cid, audits / cid)
        m = orjson.loads((audits / cid / "manifest.json").read_bytes())
        m["usage"] = usage
        m["run_id"] = "hand"
        (audits / cid / "manifest.json").write_text(json.dumps(m))
        assert i >= 0
    db = tmp_path / "s.duckdb"
    r = rcaeval("judge", str(tmp_path / "audits"), "--db", str(db), "--no-progress",
                cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rows = {row[0]: row[1:] for row in query(
        db, "SELECT case_id, input_tokens, output_tokens, cost_usd, error FROM eval_case_runs")}
    assert len(rows) == 3 and len(query(db, "SELECT * FROM eval_judgment")) == 3
    inp, out, cost, err = rows[CASES[0]]
    assert (inp, out, cost) == (None, 12, None)
    assert "input_tokens is out of range" in err and "cost_usd is not a number" in err
    inp, out, cost, err = rows[CASES[1]]
    assert (inp, out, cost) == (None, None, None)
    assert "output_tokens is negative" in err
    inp, out, cost, err = rows[CASES[2]]
    assert (inp, out, cost) == (100, None, 0.25) and "output_tokens is not a whole number" in err


@pytest.mark.parametrize("value", [float("inf"), float("nan"), -1, 2**63, 1e300, "7", True,
                                   [1], MAX_TOKENS + 1, 1.5])
def test_invalid_token_values_are_rejected(value):
    assert check("input_tokens", value)[1] is not None
    usage = empty_usage()
    add_usage(usage, "input_tokens", 10)
    add_usage(usage, "input_tokens", value)
    add_usage(usage, "input_tokens", 10)
    assert final_usage(usage)["input_tokens"] is None and usage["notes"]
    orjson.dumps(json_safe(usage))


def test_json_safe_makes_anything_serialisable():
    deep: list = []
    cur = deep
    for _ in range(500):
        cur.append([])
        cur = cur[0]
    doc = json_safe({"big": 2**200, "nan": float("nan"), "deep": deep, 1: object()})
    orjson.dumps(doc)
    assert doc["big"] == "an integer of 61 digits"


_CON = duckdb.connect(":memory:")
_NUMBERS = (hst.integers(-(2**80), 2**80) | hst.floats(allow_nan=True, allow_infinity=True)
            | hst.none() | hst.text(max_size=5) | hst.booleans())


@settings(max_examples=100, deadline=None)
@given(hst.lists(hst.dictionaries(hst.sampled_from(USAGE_KEYS), _NUMBERS), max_size=6))
def test_any_usage_reports_total_to_bounded_values_duckdb_stores(turns):
    """Property: whatever an agent reports, turn after turn, every total is NULL or a
    non-negative number within its bound that DuckDB casts as the store does (BIGINT tokens,
    DOUBLE cost), and anything that is not is explained in a note."""
    usage = empty_usage()
    for report in turns:
        for key, value in report.items():
            (set_usage if key == "cost_usd" else add_usage)(usage, key, value)
    totals = final_usage(usage)
    con = _CON
    for key, value in totals.items():
        if key not in USAGE_KEYS:
            continue
        if value is None:
            reported = [r[key] for r in turns if key in r and r[key] is not None]
            assert not reported or usage["notes"], (key, reported)
            continue
        assert 0 <= value <= bound(key), (key, value)
        cast = "DOUBLE" if key == "cost_usd" else "BIGINT"
        assert con.execute(f"SELECT CAST(? AS {cast})", [value]).fetchone()[0] == value
    orjson.dumps(json_safe({**usage, "reported": turns}))
