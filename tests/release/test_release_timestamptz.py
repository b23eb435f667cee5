"""A captured_at column typed as a timestamp with a time zone (Parquet's UTC-adjusted
timestamp, a polars Datetime with a time zone: the natural type of an export) is read as its
UTC time. It used to reach the timestamp rule as "2026-11-02 10:00:00+00" and make every
capture invalid."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime
from pathlib import Path

import orjson
import polars as pl
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from release_kit import capture  # noqa: E402

import rcaeval.release as rel  # noqa: E402

WIN = "2026-11-01..2026-11-07"
NESTED = ("response", "harness", "labels", "tool_executions", "knowledge_activations",
          "review_ids")
# UTC instants: inside, inside (the local date in Kolkata is already 11-08), outside
AT = ["2026-11-02T10:00:00Z", "2026-11-07T23:00:00Z", "2026-11-08T00:30:00Z"]


def _frame(zone: str | None) -> pl.DataFrame:
    rows = [capture(f"c{i}", at=at) for i, at in enumerate(AT)]
    for r in rows:
        for k in NESTED:
            r[k] = orjson.dumps(r[k]).decode()
    frame = pl.DataFrame(rows, schema={k: pl.Utf8 for k in rows[0]})
    if zone is None:
        return frame
    stamps = pl.Series([datetime.fromisoformat(a) for a in AT]).dt.convert_time_zone(zone)
    return frame.with_columns(stamps.alias("captured_at"))


@pytest.mark.parametrize("zone", ["UTC", "Asia/Kolkata", "America/New_York"])
def test_timezone_aware_captured_at_is_its_utc_time(tmp_path: Path, zone: str) -> None:
    text = rel.measure(_frame(None), WIN)
    aware = _frame(zone)
    assert aware.schema["captured_at"] == pl.Datetime("us", zone)
    for source in (aware, tmp_path / "w.parquet"):
        aware.write_parquet(tmp_path / "w.parquet")
        m = rel.measure(source, WIN)
        assert m.problems == [], m.problems[:1]
        assert m.population["captures"] == {**text.population["captures"], "read": 3}
        assert m.population["captures"]["in_window"] == 2
        assert m.frame.equals(text.frame)


def test_cli_measures_a_parquet_export_with_utc_timestamps(tmp_path: Path) -> None:
    _frame("UTC").write_parquet(tmp_path / "w.parquet")
    out = tmp_path / "M.json"
    proc = subprocess.run([sys.executable, "-m", "rcaeval", "release", "metrics", "--captures",
                           str(tmp_path / "w.parquet"), "--window", WIN, "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    doc = orjson.loads(out.read_bytes())
    assert doc["provenance"]["population"]["captures"]["invalid"] == 0
    assert doc["provenance"]["population"]["captures"]["in_window"] == 2
