"""rcaeval.ingest's incident writer: an import replaces the incident dir whole or not at all,
and merging the same records twice changes nothing."""

from __future__ import annotations

import orjson
import pytest

from rcaeval.errors import InputError
from rcaeval.ingest import append_log_lines, incident_update, log_name, merge_records


def _listing(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_update_replaces_the_dir_on_success_and_merges_by_id(tmp_path):
    inc = tmp_path / "case" / "incident"
    with incident_update(inc) as work:
        merge_records(work, "events.json", "events", [{"id": "EV-1", "reason": "A"}])
        append_log_lines(work, "tikv-0", ["2026-01-01T00:00:00Z ERROR [tikv] disk full"])
    assert _listing(inc) == ["events.json", "logs", "logs/tikv-0.log"]
    with incident_update(inc) as work:
        n = merge_records(work, "events.json", "events",
                          [{"id": "EV-1", "reason": "B"}, {"id": "EV-2", "reason": "C"}])
    assert n == 2
    doc = orjson.loads((inc / "events.json").read_bytes())
    assert [e["reason"] for e in doc["events"]] == ["B", "C"]
    assert not [p for p in inc.parent.iterdir() if p.name.startswith(".")]


def test_a_failed_import_leaves_the_old_dir_untouched(tmp_path):
    inc = tmp_path / "incident"
    with incident_update(inc) as work:
        merge_records(work, "events.json", "events", [{"id": "EV-1"}])
    before = (inc / "events.json").read_bytes()
    with pytest.raises(InputError, match="bad row"):
        with incident_update(inc) as work:
            merge_records(work, "events.json", "events", [{"id": "EV-9"}])
            (work / "metrics.json").write_text("{}")
            raise InputError("bad row", file="export.json", line=3)
    assert (inc / "events.json").read_bytes() == before
    assert _listing(inc) == ["events.json"]
    assert [p.name for p in tmp_path.iterdir()] == ["incident"]


def test_a_failed_first_import_writes_nothing(tmp_path):
    inc = tmp_path / "incident"
    with pytest.raises(KeyboardInterrupt):
        with incident_update(inc):
            raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []


def test_the_target_must_be_a_plain_dir(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    with pytest.raises(InputError, match="not a plain directory"):
        with incident_update(tmp_path / "link"):
            pass


@pytest.mark.parametrize("label,stem", [
    ("tikv-0", "tikv-0"), ("../../etc/passwd", "_.._etc_passwd"), ("{app=\"web\"}", "_app_web_"),
    ("", "log"), ("...", "log"), ("a/b\x00c", "a_b_c")])
def test_log_names_stay_one_safe_file_name(label, stem):
    assert log_name(label) == stem
