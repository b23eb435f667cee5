from __future__ import annotations

import orjson
import polars as pl
import pytest
from harness_kit import CFG, SAMPLES, good, samples

from rcaeval.cli import main
from rcaeval.harness import STATUSES, check, check_batch, summarize


def test_every_sample_ends_in_its_documented_status() -> None:
    for s in samples():
        assert check(s["response"], CFG).status == s["expect_status"], s["capture_id"]
    covered = {s["expect_status"] for s in samples()}
    assert covered == set(STATUSES) - {"disabled"}


def test_batch_frames_from_file() -> None:
    b = check_batch(SAMPLES, CFG)
    n = len(samples())
    assert b.results.height == n and b.invalid.height == 0
    assert b.results["record_id"].to_list() == [s["capture_id"] for s in samples()]
    assert b.results["status"].to_list() == [s["expect_status"] for s in samples()]
    assert b.checks.height == n * (4 + 24)
    assert b.checks.group_by("record").agg(pl.col("max_points").sum())["max_points"].unique() \
        .to_list() == [100.0]
    assert b.repairs.height == b.results["n_repairs"].sum()
    row = b.results.filter(pl.col("record_id") == "s05-insufficient-historical").row(0, named=True)
    assert row["family_in"] == "oom_kill" and row["family_out"] is None
    assert "gate1_high_confidence_support" in row["initial_failed_gates"]


def test_batch_from_frame_and_iterables_agree() -> None:
    resp = [orjson.dumps(s["response"]).decode() for s in samples()]
    ids = [s["capture_id"] for s in samples()]
    by_frame = check_batch(pl.DataFrame({"cid": ids, "response": resp}), CFG, id_column="cid")
    by_list = check_batch([s["response"] for s in samples()], CFG)
    assert by_frame.results["record_id"].to_list() == ids
    assert by_frame.results["analysis_hash"].to_list() == by_list.results["analysis_hash"].to_list()
    assert by_frame.checks.equals(by_list.checks)


def test_batch_frames_do_not_depend_on_how_rows_are_flushed(monkeypatch) -> None:
    # Rows become columns every _FLUSH_RECORDS records; a flush every 2 records (with an
    # invalid record and a repaired one in between) gives exactly the frames of one flush.
    import rcaeval.harness._batch as hb

    items = [s["response"] for s in samples()] + ["{not json"] + [good()]
    whole = check_batch(items, CFG)
    monkeypatch.setattr(hb, "_FLUSH_RECORDS", 2)
    pieces = check_batch(items, CFG)
    assert whole.repairs.height > 0 and whole.invalid.height == 1
    for a, b in zip((whole.results, whole.checks, whole.repairs),
                    (pieces.results, pieces.checks, pieces.repairs), strict=True):
        assert a.schema == b.schema
        assert a.equals(b)


def test_batch_marks_only_bad_records_invalid() -> None:
    b = check_batch([good(), {"alert": 1}, "{broken", [1], good()], CFG)
    assert b.results["status"].to_list() == ["passed", "invalid", "invalid", "invalid", "passed"]
    assert b.invalid["error"].str.contains("alert").to_list()[0]
    assert b.checks["record"].unique().sort().to_list() == [0, 4]


def test_summarize_with_sql() -> None:
    s = summarize(check_batch(SAMPLES, CFG))
    status = {r["status"]: r for r in s["status"].iter_rows(named=True)}
    assert status["insufficient_evidence"]["families_withdrawn"] == 3
    assert sum(r["responses"] for r in status.values()) == len(samples())
    checks = s["checks"]
    assert checks.filter(pl.col("kind") == "gate").height == 4
    assert checks["max_points"].sum() == 100


@pytest.fixture()
def clean_env(monkeypatch):
    for var in ("ENABLE_RCA_OUTPUT_HARNESS", "MAX_RCA_REPAIR_ATTEMPTS", "RCA_HARNESS_PASS_SCORE",
                "RCA_HARNESS_GATE3_OUTCOME"):
        monkeypatch.delenv(var, raising=False)


def _write(tmp_path, name: str, lines: list) -> str:
    p = tmp_path / name
    p.write_bytes(b"\n".join(x if isinstance(x, bytes) else orjson.dumps(x) for x in lines))
    return str(p)


def test_cli_exit_0_when_all_pass_or_repaired(tmp_path, capsys, clean_env) -> None:
    ok = [s for s in samples() if s["expect_status"] in ("passed", "repaired")]
    f = _write(tmp_path, "ok.jsonl", ok)
    out = tmp_path / "res.json"
    assert main(["harness", f, "--format", "json", "--out", str(out)]) == 0
    printed = orjson.loads(capsys.readouterr().out)
    assert [r["status"] for r in printed] == [s["expect_status"] for s in ok]
    assert orjson.loads(out.read_bytes()) == printed
    assert printed[0]["response"]["evidence"][0]["id"] == "E01"


def test_cli_exit_4_on_degraded_or_insufficient(tmp_path, capsys, clean_env) -> None:
    checks = tmp_path / "checks.parquet"
    assert main(["harness", str(SAMPLES), "--checks-out", str(checks)]) == 4
    out = capsys.readouterr().out
    assert "insufficient_evidence" in out and "s07-degraded" in out
    assert pl.read_parquet(checks).height == len(samples()) * 28


def test_cli_single_object_and_array(tmp_path, capsys, clean_env) -> None:
    one = tmp_path / "one.json"
    one.write_bytes(orjson.dumps(good(), option=orjson.OPT_INDENT_2))
    assert main(["harness", str(one), "--format", "jsonl"]) == 0
    assert orjson.loads(capsys.readouterr().out)["status"] == "passed"
    arr = tmp_path / "arr.json"
    arr.write_bytes(orjson.dumps([good(), good()]))
    assert main(["harness", str(arr), "--format", "jsonl"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2


def test_cli_malformed_line_is_reported_with_its_number(tmp_path, capsys, clean_env) -> None:
    f = _write(tmp_path, "mixed.jsonl", [good(), b"{not json", good(), {"alert": {}}])
    out = tmp_path / "res.jsonl"
    assert main(["harness", f, "--format", "jsonl", "--out", str(out)]) == 3
    cap = capsys.readouterr()
    assert f"{f}:2: invalid JSON" in cap.err and f"{f}:4:" in cap.err
    rows = [orjson.loads(x) for x in out.read_bytes().splitlines()]
    assert [r["status"] for r in rows] == ["passed", "invalid", "passed", "invalid"]
    assert rows[1]["line"] == 2


def test_cli_unreadable_missing_and_bad_env(tmp_path, capsys, monkeypatch) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"\n\n")
    assert main(["harness", str(empty)]) == 3
    assert main(["harness", str(tmp_path / "missing.jsonl")]) == 6
    monkeypatch.setenv("RCA_HARNESS_PASS_SCORE", "150")
    assert main(["harness", str(SAMPLES)]) == 3
    assert "RCA_HARNESS_PASS_SCORE" in capsys.readouterr().err


def test_cli_options_override_env(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("RCA_HARNESS_PASS_SCORE", "99")
    f = _write(tmp_path, "deg.jsonl", [s for s in samples() if s["expect_status"] == "degraded"])
    assert main(["harness", f]) == 4
    assert main(["harness", f, "--pass-score", "50"]) == 0
    assert main(["harness", f, "--pass-score", "500"]) == 3


def test_parquet_capture_export(tmp_path) -> None:
    p = tmp_path / "capture.parquet"
    pl.DataFrame({
        "capture_id": [s["capture_id"] for s in samples()],
        "response": [orjson.dumps(s["response"]).decode() for s in samples()],
    }).write_parquet(p)
    b = check_batch(p, CFG)
    assert b.results["status"].to_list() == [s["expect_status"] for s in samples()]
    assert b.results["record_id"].to_list()[0] == "s01-pass-oom"
