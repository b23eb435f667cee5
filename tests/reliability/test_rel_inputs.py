"""Bad input is a clear exit 3 naming file and field, never a traceback, a hang or a silent
acceptance (docs/reliability.md, "Bounded reads" and "Bad input"): devices, FIFOs and empty
or malformed Parquet to the harness, a damaged store, output paths that are directories,
control characters written as YAML escapes, unsafe incident data, duplicate suite ids,
invalid enumerated values in `db import`."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import duckdb
import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from reliability_kit import CASES, REPO, THOROUGH, cli_env, make_registry, rcaeval

from rcaeval.errors import InputError
from rcaeval.harness import check

SAMPLES = REPO / "data" / "harness" / "samples.jsonl"


def _ok(r, *needles: str) -> None:
    assert r.returncode == 3, (r.returncode, r.stderr[-1500:])
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr
    text = " ".join((r.stdout + r.stderr).split())
    for n in needles:
        assert n in text, (n, text[-1500:])


def test_harness_refuses_devices_fifos_and_empty_or_duplicate_parquet(tmp_path):
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    _ok(rcaeval("harness", "/dev/zero", cwd=tmp_path, timeout=60), "/dev/zero",
        "character device")
    _ok(rcaeval("harness", str(fifo), cwd=tmp_path, timeout=60), "is a FIFO")
    pq.write_table(pa.table({"response": pa.array([], pa.string())}), tmp_path / "e.parquet")
    _ok(rcaeval("harness", str(tmp_path / "e.parquet"), cwd=tmp_path), "holds no responses")
    dup = pa.Table.from_arrays([pa.array(["{}"]), pa.array(["{}"])],
                               names=["response", "response"])
    pq.write_table(dup, tmp_path / "d.parquet")
    _ok(rcaeval("harness", str(tmp_path / "d.parquet"), cwd=tmp_path),
        "d.parquet [response]", "more than once")


def test_check_names_a_field_holding_a_lone_surrogate():
    base = orjson.loads(SAMPLES.read_bytes().split(b"\n", 1)[0])["response"]
    for where in ("extra_note", "root_cause.family"):
        doc = orjson.loads(orjson.dumps(base))
        if where == "extra_note":
            doc["extra_note"] = "x\ud800"
        else:
            doc["root_cause"]["family"] = "oom\udfff"
        with pytest.raises(InputError) as info:
            check(doc)
        assert info.value.field == where


@pytest.fixture(scope="module")
def judged_store(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("store")
    shutil.copytree(THOROUGH, tmp / "audits" / THOROUGH.name)
    r = rcaeval("judge", str(tmp / "audits"), "--db", str(tmp / "s.duckdb"), "--no-progress",
                "--no-files", cwd=tmp)
    assert r.returncode == 0, r.stderr
    return tmp


@pytest.mark.parametrize("keep", [0.95])
def test_a_truncated_store_is_one_clear_message_from_every_command(judged_store, tmp_path,
                                                                   keep):
    db = tmp_path / "broken.duckdb"
    data = (judged_store / "s.duckdb").read_bytes()
    db.write_bytes(data[: int(len(data) * keep)])
    reg = make_registry(tmp_path / "reg", CASES[:1])
    for args in (["report", THOROUGH.name], ["explain", THOROUGH.name, CASES[0]],
                 ["judge", str(judged_store / "audits"), "--no-files", "--no-progress"],
                 ["run", "--suite", "mini", "--registry", str(reg), "--agent",
                  "replay:thorough", "--no-progress", "--audit-root", str(tmp_path / "a")]):
        r = rcaeval(*args, "--db", str(db), cwd=tmp_path)
        if r.returncode != 3:  # the damage may sit in blocks a command never reads
            assert r.returncode in (0, 7), (args, r.returncode, r.stderr[-1500:])
            continue
        _ok(r, str(db))
        assert ("damaged" in r.stderr or "cannot open the store" in r.stderr), r.stderr


def test_offline_score_refuses_a_directory_as_cases_out(tmp_path):
    fixtures = REPO / "data" / "offline" / "fixtures.jsonl"
    _ok(rcaeval("offline", "score", "--fixtures", str(fixtures), "--cases-out",
                str(tmp_path), cwd=tmp_path), "[--cases-out]", "is a directory")
    _ok(rcaeval("offline", "score", "--fixtures", "/dev/zero", cwd=tmp_path, timeout=60),
        "character device")


def _validate(reg: Path, tmp: Path):
    # a wide terminal: the problem table must not wrap the messages the tests look for
    return rcaeval("validate", "--registry", str(reg), cwd=tmp, env=cli_env(COLUMNS="400"))


@pytest.mark.parametrize("escape", ["\\0", "\\x1b[2J", "\\x85", "\\x7f"])
def test_control_characters_written_as_yaml_escapes_are_refused(tmp_path, escape):
    reg = make_registry(tmp_path / "reg", CASES[:1])
    path = reg / "cases" / CASES[0] / "case.yaml"
    lines = path.read_text().split("\n")
    i = next(i for i, ln in enumerate(lines) if ln.strip().startswith("cluster_id:"))
    lines[i] = lines[i].split("cluster_id:")[0] + f'cluster_id: "prod{escape}x"'
    path.write_text("\n".join(lines))
    _ok(_validate(reg, tmp_path), "cluster_id", "control character")
    if escape != "\\0":
        return
    r = rcaeval("run", "--suite", "mini", "--registry", str(reg), "--db",
                str(tmp_path / "s.duckdb"), "--agent", "replay:thorough", "--no-progress",
                "--audit-root", str(tmp_path / "a"), cwd=tmp_path)
    assert r.returncode in (3, 7) and "Traceback" not in r.stderr, r.stderr[-1500:]


@pytest.mark.parametrize("hazard", ["symlink", "hardlink", "dot", "fifo"])
def test_unsafe_incident_data_is_refused_by_validate(tmp_path, hazard):
    reg = make_registry(tmp_path / "reg", CASES[:1])
    case = reg / "cases" / CASES[0]
    if hazard == "symlink":
        (case / "incident" / "j.json").symlink_to("../judge.yaml")
        needle = "is a symlink"
    elif hazard == "hardlink":
        os.link(case / "judge.yaml", case / "incident" / "notes.txt")
        needle = "is a hard link"
    elif hazard == "fifo":
        os.mkfifo(case / "incident" / "p.log")
        needle = "not a regular file"
    else:
        text = (case / "case.yaml").read_text()
        lines = [ln for ln in text.split("\n") if not ln.startswith("incident_data:")]
        (case / "case.yaml").write_text("\n".join(lines) + "\nincident_data: .\n")
        needle = "incident_data"
    _ok(_validate(reg, tmp_path), needle)
    if hazard == "hardlink":  # the runner refuses to copy it even without validate
        r = rcaeval("run", "--suite", "mini", "--registry", str(reg), "--db",
                    str(tmp_path / "s.duckdb"), "--agent", "replay:thorough", "--no-progress",
                    "--audit-root", str(tmp_path / "a"), cwd=tmp_path)
        assert r.returncode in (3, 7) and "Traceback" not in r.stderr


def test_a_suite_file_that_is_a_device_or_a_duplicate_id_is_refused(tmp_path):
    reg = make_registry(tmp_path / "reg", CASES[:1])
    (reg / "suites" / "noise.yaml").symlink_to("/dev/urandom")
    _ok(_validate(reg, tmp_path), "suites/noise.yaml", "character device")
    (reg / "suites" / "noise.yaml").unlink()
    shutil.copy(reg / "suites" / "mini.yaml", reg / "suites" / "copy.yaml")
    _ok(_validate(reg, tmp_path), "suite_id", "also defined")
    r = rcaeval("run", "--suite", "mini", "--registry", str(reg), "--db",
                str(tmp_path / "s.duckdb"), "--agent", "replay:thorough", "--no-progress",
                "--audit-root", str(tmp_path / "a"), cwd=tmp_path)
    _ok(r, "[suite_id]", "also defined")


def test_db_import_refuses_an_unknown_verdict(judged_store, tmp_path):
    exp = tmp_path / "exp"
    r = rcaeval("db", "export", str(exp), "--db", str(judged_store / "s.duckdb"), "--tables",
                "eval_judgment", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    con = duckdb.connect()
    src = exp / "eval_judgment.parquet"
    con.execute(f"COPY (SELECT * REPLACE ('totally-bogus' AS verdict) FROM read_parquet("
                f"'{src}')) TO '{exp / 'x.tmp'}' (FORMAT parquet)")
    con.close()
    os.replace(exp / "x.tmp", src)
    db = tmp_path / "target.duckdb"
    shutil.copy(judged_store / "s.duckdb", db)
    _ok(rcaeval("db", "import", str(exp), "--db", str(db), cwd=tmp_path),
        "eval_judgment.parquet [verdict]", "totally-bogus")


def test_release_inputs_that_are_fifos_or_devices_are_refused_not_read(tmp_path):
    """Captures, reviews and a metrics artifact go through the bounded reader: a FIFO (which
    would block an ordinary open) and a device (which would never end) are exit 3 naming the
    file; a directory of captures holding a FIFO ignores it, as it ignores every non-file."""
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    window = REPO / "data" / "captures" / "sample-window.parquet"
    reviews = REPO / "data" / "captures" / "reviews.jsonl"
    out = tmp_path / "m.json"
    W = "2026-01-01T00:00:00Z..2026-12-31T00:00:00Z"
    _ok(rcaeval("release", "metrics", "--captures", str(fifo), "--window", W, "--out", str(out),
                cwd=tmp_path, timeout=600), "pipe.jsonl", "is a FIFO")
    _ok(rcaeval("release", "metrics", "--captures", str(window), "--reviews", str(fifo),
                "--window", W, "--out", str(out), cwd=tmp_path, timeout=600),
        "pipe.jsonl", "is a FIFO")
    art = tmp_path / "zero.json"
    art.symlink_to("/dev/zero")
    _ok(rcaeval("release", "gate", str(art), cwd=tmp_path, timeout=600), "zero.json",
        "character device")
    assert not out.exists()
    big = tmp_path / "cap.jsonl"
    with big.open("wb") as fh:  # sparse: past the captures cap without using the disk
        fh.truncate(2048 * 1024 * 1024 + 1)
    _ok(rcaeval("release", "metrics", "--captures", str(big), "--window", W, "--out", str(out),
                cwd=tmp_path, timeout=600), "cap.jsonl", "larger than")
    assert reviews.is_file()
