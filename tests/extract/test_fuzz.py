"""Arbitrary bytes in any bundle file never crash extraction and always insert cleanly."""

from __future__ import annotations

import tempfile
from pathlib import Path

import duckdb
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rcaeval._paths import read_query
from rcaeval.extract import CaseRef, extract_cases

FILES = [
    "manifest.json", "analysis_patch.json", "output.txt", "transcript.json",
    ".opencode/telemetry.log", "logs/a.log", "evidences/metrics.json",
    "evidences/queries.json", "evidences/logs.json", "evidences/events.json",
]

json_like = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10**12) | st.floats(allow_nan=False,
                                                                     allow_infinity=False)
    | st.text(max_size=12),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(
        st.sampled_from(["id", "ts", "series", "points", "items", "refs", "role", "type",
                         "queries", "events", "entries", "value", "labels", "claim", "text"]),
        kids, max_size=4),
    max_leaves=20,
)
content = st.one_of(
    st.binary(max_size=200),
    json_like.map(lambda v: orjson.dumps(v)),
    st.text(max_size=200).map(lambda s: s.encode("utf-8", "surrogatepass")),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(FILES), content, max_size=len(FILES)))
@pytest.mark.slow
def test_random_bundles_extract_without_errors(files: dict[str, bytes]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        case = Path(tmp) / "case"
        report = case / "evidences" / "workspace_evidence_report.json"
        report.parent.mkdir(parents=True)
        report.write_bytes(b"{}")
        for rel, data in files.items():
            (case / rel).parent.mkdir(parents=True, exist_ok=True)
            (case / rel).write_bytes(data)
        con = duckdb.connect()
        con.execute("SET TimeZone='UTC'")
        con.execute(read_query("migrations/0001_init.sql"))
        con.execute(read_query("migrations/0009_raw_bundle_seq.sql"))
        con.execute(read_query("migrations/0014_raw_json_elided.sql"))
        con.execute(read_query("migrations/0017_output_item.sql"))
        con.execute(read_query("migrations/0019_raw_evidence_check.sql"))
        summary = extract_cases(con, [CaseRef("r", "c", case)], workers=1, progress=False)
        assert summary.errors == []
        assert summary.resolved == 1
        n_files = con.execute("SELECT count(*) FROM raw_file").fetchone()[0]
        assert n_files == len(files) + 1
        con.close()
