"""rcaeval import loki / logs / journal: log sources in their real export formats into
incident/logs/<instance>.log as incident log lines, served by search_logs; multi-line stack
traces stay one entry; bad input names the file and the line and changes nothing."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from ingest_kit import DATA, case_copy, rcaeval, snapshot

from rcaeval.errors import InputError
from rcaeval.ingest import (
    import_journal,
    import_loki,
    import_plain_logs,
    incident_update,
    parse_window,
    plain_entries,
)
from rcaeval.tools import IncidentTools, load_case_data

LOKI = DATA / "loki_query_range.json"
JAVA = DATA / "checkout-app.log"
WINDOW = "2026-10-03T14:00:00Z..2026-10-03T14:30:00Z"


def _log(inc: Path, stem: str) -> list[str]:
    return (inc / "logs" / f"{stem}.log").read_text().splitlines()


def test_loki_streams_become_one_log_per_pod_in_time_order(tmp_path: Path):
    inc = tmp_path / "incident"
    with incident_update(inc) as work:
        added = import_loki(work, [LOKI])
    assert added == {"logs/checkout-7f9c6-x2kq.log": 4, "logs/payment-db-0.log": 1}
    lines = _log(inc, "checkout-7f9c6-x2kq")
    assert lines[0] == '2026-10-03T14:04:59Z INFO [checkout] level=info msg="GET /cart 200" ' \
        'duration=20ms'
    assert lines[1].startswith("2026-10-03T14:05:00.500000Z WARN [checkout] level=warn")
    assert [ln.split()[1] for ln in lines] == ["INFO", "WARN", "ERROR", "ERROR"]  # level label
    assert _log(inc, "payment-db-0")[0].split()[1:3] == ["FATAL", "[payment-db]"]
    with incident_update(inc) as work:  # the same export again adds nothing
        assert sum(import_loki(work, [LOKI]).values()) == 0
    assert len(_log(inc, "checkout-7f9c6-x2kq")) == 4


def test_loki_labels_can_be_chosen_and_a_window_slices(tmp_path: Path):
    inc = tmp_path / "incident"
    with incident_update(inc) as work:
        added = import_loki(work, [LOKI], parse_window(
            "2026-10-03T14:05:01Z..2026-10-03T14:10:00Z"), instance_label="namespace",
            component_label="container")
    assert added == {"logs/shop.log": 2}


def test_a_plain_log_keeps_a_stack_trace_with_its_entry_and_search_logs_serves_it(
        tmp_path: Path):
    case = case_copy(tmp_path)
    done = rcaeval("import", "logs", str(JAVA), "--out", str(case), "--window", WINDOW)
    assert done.returncode == 0, done.stderr
    assert "imported 4 log line(s)" in done.stdout
    lines = _log(case / "incident", "checkout-app")
    assert len(lines) == 4
    assert lines[1].startswith("2026-10-03T14:05:05.101000Z ERROR [checkout-app] ERROR ")
    assert "charge failed | org.postgresql.util.PSQLException: FATAL: remaining " in lines[1]
    assert lines[1].endswith("| ... 42 more")
    tools = IncidentTools(load_case_data(case), tmp_path / "b")
    hit = tools.search_logs(pattern="ConnectionFactoryImpl", instance="checkout-app")
    assert [e["id"] for e in hit["entries"]] == ["L-checkout-app-00002"]
    assert hit["entries"][0]["level"] == "ERROR"


@pytest.mark.parametrize("name, kwargs, first", [
    ("nginx-access.log", {}, "2026-10-03T14:04:59Z INFO [nginx-access] 10.0.3.7 - - "),
    ("node-syslog.log", {"year": 2026}, "2026-10-03T14:05:00Z INFO [kernel] [812731.201] "
     "Out of memory: Killed process 4121"),
    ("kubelet.klog", {"year": 2026}, '2026-10-03T14:05:00.120311Z INFO [kubelet] 2231 '
     'kubelet.go:2421] "SyncLoop (PLEG)'),
])
def test_common_timestamp_formats(name: str, kwargs: dict, first: str):
    entries = plain_entries(DATA / name, **kwargs)
    assert entries[0].line().startswith(first)
    levels = [e.level for e in entries]
    if name == "nginx-access.log":  # 5xx ERROR, 4xx WARN; +0200 is converted to UTC
        assert levels == ["INFO", "ERROR", "WARN"]
        assert entries[2].line().startswith("2026-10-03T14:05:06Z")
    if name == "kubelet.klog":
        assert levels == ["INFO", "ERROR", "WARN"]
    if name == "node-syslog.log":
        assert [e.component for e in entries] == ["kernel", "systemd", "systemd"]


@pytest.mark.parametrize("text", [
    "2026-10-03T14:05:00Z boot\n", "2026-10-03T16:05:00+02:00 boot\n",
    "[2026/10/03 14:05:00.000 +00:00] [INFO] boot\n", "1791036300 boot\n",
    "1791036300000 boot\n", "1791036300.000 boot\n",
])
def test_iso_and_epoch_variants_all_mean_the_same_instant(tmp_path: Path, text: str):
    path = tmp_path / "a.log"
    path.write_text(text)
    assert plain_entries(path)[0].line().startswith("2026-10-03T14:05:00Z ")


def test_journal_entries_take_host_identifier_and_priority(tmp_path: Path):
    inc = tmp_path / "incident"
    with incident_update(inc) as work:
        added = import_journal(work, [DATA / "node-3.journal.json"])
    assert added == {"logs/node-3.log": 3}  # the entry with a null MESSAGE is skipped
    assert _log(inc, "node-3") == [
        "2026-10-03T14:05:00Z INFO [postgres] database system is ready to accept connections",
        "2026-10-03T14:05:05Z ERROR [postgres] FATAL:  remaining connection slots are reserved",
        "2026-10-03T14:05:06Z WARN [pgbouncer] pool full \ufffd",  # MESSAGE as a byte array
    ]


def _write(tmp: Path, name: str, text: str) -> Path:
    path = tmp / name
    path.write_text(text)
    return path


BAD = [
    (lambda t: _write(t, "x.log", "boot ok\n2026-10-03T14:05:00Z x\n"), 1,
     "unknown timestamp format"),
    (lambda t: _write(t, "x.log", "Oct  3 14:05:00 h prog: x\n"), 1, "carry no year"),
    (lambda t: _write(t, "x.log", "2026-02-30T14:05:00Z x\n"), 1, "not a valid timestamp"),
    (lambda t: _write(t, "x.log", "2027-01-01T00:00:00Z x\n"), None,
     "no log entry in the window"),
]


@pytest.mark.parametrize("make, line, needle", BAD)
def test_bad_plain_logs_name_file_and_line_and_change_nothing(tmp_path: Path, make, line,
                                                              needle):
    case = case_copy(tmp_path)
    src = make(tmp_path)
    before = snapshot(case / "incident")
    with pytest.raises(InputError, match=needle) as err:
        with incident_update(case / "incident") as work:
            import_plain_logs(work, [JAVA, src], parse_window(WINDOW) if line is None
                              else None, year=None)
    assert err.value.file == str(src) and err.value.line == line
    assert snapshot(case / "incident") == before


def _loki_doc(**data: object) -> dict:
    doc = orjson.loads(LOKI.read_bytes())
    doc["data"].update(data)
    return doc


@pytest.mark.parametrize("doc, field, needle", [
    (_loki_doc(resultType="matrix"), "data.resultType", "not 'streams'"),
    ({"status": "error", "error": "parse error"}, "data.result", "expected a Loki query"),
    (_loki_doc(result=[{"stream": {"app": "a"}, "values": [["17910363000000", "x"],
                                                            ["soon", "y"]]}]),
     "data.result[0].values[1][0]", "decimal integer string"),
    (_loki_doc(result=[{"stream": {"app": "a"}, "values": [["1791036300000000000"]]}]),
     "data.result[0].values[0]", "a value must be"),
])
def test_bad_loki_answers_name_the_field(tmp_path: Path, doc: dict, field: str, needle: str):
    src = tmp_path / "loki.json"
    src.write_bytes(orjson.dumps(doc))
    with pytest.raises(InputError, match=needle) as err:
        with incident_update(tmp_path / "incident") as work:
            import_loki(work, [src])
    assert err.value.file == str(src) and err.value.field == field
    assert not (tmp_path / "incident").exists()


def test_bad_journal_lines_name_the_line(tmp_path: Path):
    good = (DATA / "node-3.journal.json").read_text()
    src = _write(tmp_path, "j.json", good + '{"MESSAGE": "no time"}\n')
    with pytest.raises(InputError, match="__REALTIME_TIMESTAMP") as err:
        with incident_update(tmp_path / "incident") as work:
            import_journal(work, [src])
    assert err.value.line == 5
    src = _write(tmp_path, "j2.json", good + '{"__REALTIME_TIMESTAMP": "1", "MESSAGE": "x", '
                 '"PRIORITY": "9"}\n{not json\n')
    with pytest.raises(InputError, match="PRIORITY") as err:
        with incident_update(tmp_path / "incident") as work:
            import_journal(work, [src])
    assert err.value.line == 5 and err.value.field == "PRIORITY"
    done = rcaeval("import", "journal", str(src), "--out", str(tmp_path / "incident"))
    assert done.returncode == 3 and f"{src}:5 [PRIORITY]" in done.stderr + done.stdout
    assert not (tmp_path / "incident").exists()
