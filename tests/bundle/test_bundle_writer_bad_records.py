"""`BundleWriter` given records it cannot write (docs/bundle-sdk.md, "Validates as it
writes"): a record that is not a mapping, or holds a value JSON cannot carry (an integer past
64 bits), is a `BundleError` and never enters the writer's state - before, it made every
later write of that writer fail (a stranded tool server)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from rcaeval.bundle import BundleError, BundleWriter

WINDOW = ("2026-10-03T14:00:00Z", "2026-10-03T15:00:00Z")
TS = "2026-10-03T14:05:00Z"
HUGE = 10**30

BAD_CALLS: dict[str, Any] = {
    "log_level_huge": lambda w: w.add_log_entries([{"id": "L-9", "ts": TS, "level": HUGE,
                                                     "message": "m"}]),
    "log_not_a_mapping": lambda w: w.add_log_entries([None]),
    "series_not_a_mapping": lambda w: w.add_series(["x"]),
    "series_points_not_a_list": lambda w: w.add_series([{"id": "M-9", "name": "n",
                                                         "labels": {}, "points": 5.0}]),
    "event_huge": lambda w: w.add_events([{"id": "E-9", "ts": TS, "reason": "r",
                                           "count": HUGE}]),
    "span_duration_huge": lambda w: w.add_spans([{"trace_id": "a" * 32, "span_id": "b" * 16,
                                                  "service": "s", "operation": "o",
                                                  "status": "error", "start": TS,
                                                  "duration_ms": HUGE}]),
    "gate_check_not_a_mapping": lambda w: w.add_gate_checks([7]),
    "topology_not_a_mapping": lambda w: w.set_architecture([]),
    "analysis_huge": lambda w: w.set_analysis(HUGE),
    "ref_not_a_pair": lambda w: w.add_finding("claim", ["x"]),
}


@pytest.mark.parametrize("name", sorted(BAD_CALLS))
def test_a_bad_record_is_refused_and_the_writer_goes_on(tmp_path: Path, name: str) -> None:
    w = BundleWriter(tmp_path, cluster_id="prod-tidb-017", time_window=WINDOW)
    w.add_log_entries([{"id": "L-1", "ts": TS, "level": "FATAL", "message": "TiKV panic"}])
    with pytest.raises(BundleError):
        BAD_CALLS[name](w)
    # the writer still writes, and the bundle holds only what was accepted
    w.add_events([{"id": "E-1", "ts": TS, "reason": "BackOff"}])
    w.add_finding("tikv-2 panicked", [("log", "L-1")])
    w.set_analysis("tikv-2 panicked")
    w.final_answer("## Root cause\n\ntikv-2 panicked.\n")
    logs = orjson.loads((tmp_path / "evidences" / "logs.json").read_bytes())
    assert [e["id"] for e in logs["entries"]] == ["L-1"]
    events = orjson.loads((tmp_path / "evidences" / "events.json").read_bytes())
    assert [e["id"] for e in events["events"]] == ["E-1"]
