"""The log index (rcaeval/tools/_logindex.py): a case's logs served from a DuckDB index built
once answer every search_logs call byte for byte as the lines parsed into memory do - in
process and through two real MCP servers over stdio - and a later start reuses the index
instead of parsing again."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from pathlib import Path

import orjson
import pytest

from rcaeval.tools import IncidentTools, ToolFailed, ToolInputError, client_caller, load_case_data
from rcaeval.tools._logindex import IndexedLogStore
from rcaeval.tools._logstore import MemoryLogStore, parse_log_file

LONG = "x" * 1500
FILES = {
    "tidb-0.log": (
        "2026-10-03T14:00:00Z INFO [tidb] started\n"
        "\n"
        "2026-10-03T14:01:00.250Z WARNING [TiDB] slow query 1200 ms\r\n"
        "2026-10-03T16:02:00+02:00 err [tidb] région 42 unavailable\n"
        "not a structured line at all\n"
        "2026-13-45T99:00:00Z ERROR [tidb] bad time keeps the whole line\n"
        "   \n"
        f"2026-10-03T14:03:00Z INFO [tidb] {LONG}\n"
        "2026-10-03T14:03:00Z PANIC [tidb] same instant as the line above\n"
    ).encode() + b"2026-10-03T14:04:00Z ERROR [tidb] invalid utf-8 \xe2\x80\n"
               + b"2026-10-03T14:05:00Z INFO [tidb] split\x0bhere and\xe2\x80\xa8there\n",
    "tikv-2.log": (
        b"2026-10-03T14:00:30Z INFO [tikv] heartbeat\n"
        b"2026-10-03T14:02:10Z FATAL [tikv] TiKV panic: corrupted raft entry\n"
        b"2026-10-03T14:02:11Z NOTICE [tikv] restarting\n"
        b"2026-10-03T13:59:59.999999Z DEBUG [tikv] earliest line of all\n"
        b"2026-10-03T14:06:00Z INFO [pd] last line\n"
    ),
    "pd 1.log": b"2026-10-03T14:02:00Z INFO [pd] leader changed\n",  # id stem pd_1
    "blank.log": b"\n\n  \n",
}

CALLS = [
    {}, {"limit": 200}, {"limit": 3}, {"limit": 3, "cursor": "o3"},
    {"limit": 3, "cursor": "o17"}, {"limit": 3, "cursor": "o18"}, {"cursor": "bad"},
    {"limit": 0}, {"limit": 201}, {"pattern": "panic"}, {"pattern": "PANIC|région"},
    {"pattern": "a", "limit": 2}, {"pattern": "a", "limit": 2, "cursor": "o2"},
    {"pattern": "a", "cursor": "o99"}, {"pattern": "("}, {"pattern": "y" * 1001},
    {"pattern": r"\d{4} ms"}, {"pattern": "nothing matches this"},
    {"component": "TIKV"}, {"component": "tidb", "min_level": "warn"},
    {"component": "nope"}, {"instance": "tikv-2"}, {"instance": "pd 1"},
    {"instance": "blank"}, {"instance": "nope", "pattern": "x"},
    {"min_level": "warning"}, {"min_level": "ERROR"}, {"min_level": "LOUD"},
    {"start": "2026-10-03T14:02:00Z", "end": "2026-10-03T14:03:00Z"},
    {"start": "2026-10-03T16:02:00+02:00"}, {"end": "2026-10-03T14:00:30Z"},
    {"start": "2027-01-01T00:00:00Z"}, {"start": "2026-10-03T15:00:00Z",
                                         "end": "2026-10-03T14:00:00Z"},
    {"start": "yesterday"}, {"pattern": "e", "component": "tikv", "instance": "tikv-2",
                             "min_level": "info", "start": "2026-10-03T14:00:00Z"},
]


def _case(tmp: Path) -> Path:
    case = tmp / "case"
    logs = case / "incident" / "logs"
    logs.mkdir(parents=True)
    for name, data in FILES.items():
        (logs / name).write_bytes(data)
    (case / "case.yaml").write_text(
        "case_id: big\ntitle: big\ncase_type: known\nprompt: {text: find it}\n"
        "environment: {cluster_id: c1}\ntime_window: {start: '2026-10-03T14:00:00Z', "
        "end: '2026-10-03T15:00:00Z'}\n")
    (case / "incident" / "metrics.json").write_text(
        '{"series": [{"id": "M-cpu-a", "name": "cpu", "labels": {"instance": "a"}, '
        '"points": [["2026-10-03T14:00:00Z", 1.0]]}]}\n')
    return case


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv("RCAEVAL_CACHE_DIR", str(root))
    return root


def _answers(tools: IncidentTools) -> list[bytes]:
    out = []
    for args in CALLS:
        try:
            out.append(orjson.dumps(tools.search_logs(**args)))
        except ToolInputError as exc:
            out.append(b"error: " + str(exc).encode())
    return out


def _reference_lines(path: Path) -> list[tuple]:
    """Independent reference: the whole file decoded at once, then split into lines."""
    from rcaeval.tools._logstore import LOG_RE, record_time

    out = []
    for no, line in enumerate(path.read_bytes().decode("utf-8", "replace").splitlines(), 1):
        if not line.strip():
            continue
        m = LOG_RE.match(line)
        ts, level, comp, msg = m.groups() if m else (None, None, None, line)
        at = record_time(ts) if ts else None
        out.append((no, ts if at else None, at, level.upper() if level else None, comp,
                    msg if at or not m else line))
    return out


def test_piecewise_parse_equals_whole_file_parse(tmp_path: Path):
    case = _case(tmp_path)
    for path in sorted((case / "incident" / "logs").glob("*.log")):
        ref = _reference_lines(path)
        for chunk in (1, 2, 7, 64, 1 << 20):  # every cut falls just after a newline byte
            assert list(parse_log_file(path, chunk)) == ref, (path.name, chunk)


def test_index_answers_byte_for_byte_as_memory(tmp_path: Path, cache: Path):
    case = _case(tmp_path)
    mem = load_case_data(case, log_index=False)
    idx = load_case_data(case, log_index=True)
    assert isinstance(mem.log_store, MemoryLogStore)
    assert isinstance(idx.log_store, IndexedLogStore)
    assert idx.data_range() == mem.data_range() == ("2026-10-03T13:59:59.999999Z",
                                                     "2026-10-03T14:06:00Z")
    assert [vars(x) for x in idx.logs] == [vars(x) for x in mem.logs]
    a = IncidentTools(mem, tmp_path / "b-mem")
    b = IncidentTools(idx, tmp_path / "b-idx")
    got_a, got_b = _answers(a), _answers(b)
    for args, x, y in zip(CALLS, got_a, got_b, strict=True):
        assert x == y, args
    assert sum(x.startswith(b"error: ") for x in got_a) == 10
    assert b'"known"' in got_a[CALLS.index({"component": "nope"})]
    logs = "evidences/logs.json"
    assert (tmp_path / "b-mem" / logs).read_bytes() == (tmp_path / "b-idx" / logs).read_bytes()
    reports = [orjson.loads((tmp_path / b / "evidences/workspace_evidence_report.json")
                            .read_bytes())["channels"] for b in ("b-mem", "b-idx")]
    assert reports[0] == reports[1]


def test_lookup_by_id_and_by_text_agree_with_every_line(tmp_path: Path, cache: Path):
    """message()/has_message() (what the evidence checks of rcaeval/extract/_integrity.py use
    instead of a map of every line) answer as a map built from every line does, indexed or not."""
    case = _case(tmp_path)
    mem = load_case_data(case, log_index=False).log_store
    idx = load_case_data(case, log_index=True).log_store
    every = list(mem.lines())
    by_id = {ln.id: ln.message for ln in every}
    texts = {ln.message for ln in every}
    assert len(by_id) == 17 and "L-pd_1-00001" in by_id
    probes = [*by_id, "L-tidb-0-1", "L-tidb-0-00099", "L-nope-00001", "L-tidb-0-", "M-cpu-a",
              "", "L--00001"]
    for store in (mem, idx):
        for lid in probes:
            assert store.message(lid) == by_id.get(lid), (type(store).__name__, lid)
        for text in [*texts, "started ", "nothing like it", ""]:
            assert store.has_message(text) == (text in texts), (type(store).__name__, text)


def test_index_is_built_once_and_reused(tmp_path: Path, cache: Path):
    case = _case(tmp_path)
    first = load_case_data(case, log_index=True).log_store
    assert isinstance(first, IndexedLogStore)
    built = first.path.stat()
    again = load_case_data(case, log_index=True).log_store
    assert again.path == first.path and again.path.stat().st_ino == built.st_ino
    # a copy of the incident (a run's workspace) has other paths and times: same content,
    # same index file
    copy = tmp_path / "copy"
    shutil.copytree(case, copy, copy_function=shutil.copyfile)
    assert load_case_data(copy, log_index=True).log_store.path == first.path
    assert first.path.stat().st_ino == built.st_ino
    # changed content is a new index with the new lines
    with (copy / "incident" / "logs" / "tikv-2.log").open("a") as fh:
        fh.write("2026-10-03T14:07:00Z ERROR [tikv] appended later\n")
    changed = load_case_data(copy, log_index=True)
    assert changed.log_store.path != first.path
    tools = IncidentTools(changed, tmp_path / "b")
    assert tools.search_logs(pattern="appended")["total"] == 1
    assert tools.data_end == "2026-10-03T14:07:00Z"


def test_unwritable_cache_dir_falls_back_to_a_private_dir(tmp_path: Path, cache: Path):
    if os.geteuid() == 0:
        blocker = cache  # root writes anywhere: a file where the dir should be
        blocker.write_text("not a dir")
    else:
        cache.mkdir()
        cache.chmod(0o500)
    case = _case(tmp_path)
    store = load_case_data(case, log_index=True).log_store
    assert isinstance(store, IndexedLogStore) and cache not in store.path.parents
    assert len(store) == len(load_case_data(case, log_index=False).log_store)


def _mcp_answers(case: Path, bundle: Path, env: dict[str, str]) -> list[str]:
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable, env=env,
        args=["-m", "rcaeval.tools", "serve", "--case-dir", str(case), "--bundle-dir",
              str(bundle)])

    async def main() -> list[str]:
        out = []
        async with Client(params) as client:
            call = client_caller(client)
            for args in CALLS:
                try:
                    out.append(orjson.dumps(await call("search_logs", args)).decode())
                except ToolFailed as exc:
                    out.append(f"error: {exc}")
        return out
    return asyncio.run(main())


def test_indexed_mcp_server_answers_as_the_memory_one(tmp_path: Path):
    case = _case(tmp_path)
    cache = tmp_path / "cache"
    mem = _mcp_answers(case, tmp_path / "b-mem", {"RCAEVAL_CACHE_DIR": str(cache)})
    assert not cache.exists()  # small logs: parsed into memory, no index
    idx = _mcp_answers(case, tmp_path / "b-idx", {"RCAEVAL_CACHE_DIR": str(cache),
                                                  "RCAEVAL_LOG_INDEX_MIN_BYTES": "0"})
    assert len(list((cache / "log-index").glob("*.duckdb"))) == 1
    assert mem == idx
    assert (tmp_path / "b-mem/evidences/logs.json").read_bytes() == (
        tmp_path / "b-idx/evidences/logs.json").read_bytes()


def test_an_unreadable_index_is_rebuilt(tmp_path: Path, cache: Path):
    case = _case(tmp_path)
    store = load_case_data(case, log_index=True).log_store
    want = [vars(x) for x in store.lines()]
    path = store.path
    del store
    path.write_bytes(b"not a duckdb file" * 100)  # what a full disk or a crash can leave
    again = load_case_data(case, log_index=True).log_store
    assert again.path == path and [vars(x) for x in again.lines()] == want


def test_a_bad_index_threshold_is_an_input_error(tmp_path: Path, cache: Path,
                                                 monkeypatch: pytest.MonkeyPatch):
    from rcaeval.errors import InputError

    monkeypatch.setenv("RCAEVAL_LOG_INDEX_MIN_BYTES", "32MB")
    with pytest.raises(InputError, match="must be a whole number of bytes") as err:
        load_case_data(_case(tmp_path))
    assert err.value.field == "RCAEVAL_LOG_INDEX_MIN_BYTES"
