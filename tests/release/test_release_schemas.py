"""`rcaeval schema` writes the capture/1 and operator_review/1 JSON Schemas (from the pydantic
models); they validate every row of the bundled sample window and reviews, reject what the
models reject, and the committed copies in docs/schema are current."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import polars as pl
import pytest

from rcaeval.release import json_schemas
from rcaeval.release._sample import NESTED

REPO = Path(__file__).resolve().parents[2]
CAPTURES = REPO / "data" / "captures"
NAMES = ("capture", "operator_review")


@pytest.fixture(scope="module")
def schemas(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    out = tmp_path_factory.mktemp("schema")
    proc = subprocess.run([sys.executable, "-m", "rcaeval", "schema", "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    for name in NAMES:
        assert f"{name}.schema.json" in proc.stdout
    loaded = {n: json.loads((out / f"{n}.schema.json").read_text()) for n in NAMES}
    for name, schema in loaded.items():  # the committed copies are current
        committed = REPO / "docs" / "schema" / f"{name}.schema.json"
        assert json.loads(committed.read_text()) == schema, f"{committed}: run `rcaeval schema`"
    assert loaded == json_schemas()  # the Python API gives the same documents
    return loaded


def _validator(schema: dict) -> jsonschema.Draft202012Validator:
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _sample_captures() -> list[dict]:
    frame = pl.read_parquet(CAPTURES / "sample-window.parquet")
    rows = []
    for row in frame.iter_rows(named=True):
        rows.append({k: (json.loads(v) if k in NESTED and v is not None else v)
                     for k, v in row.items()})
    return rows


def _assert_valid(v: jsonschema.Draft202012Validator, rows: list[dict]) -> None:
    for row in rows:
        errors = list(v.iter_errors(row))
        assert not errors, (row["capture_id"], [e.message for e in errors])


@pytest.mark.slow
def test_capture_schema_validates_every_sample_capture(schemas):
    rows = _sample_captures()
    assert len(rows) > 1000
    _assert_valid(_validator(schemas["capture"]), rows)


def test_capture_schema_validates_the_sample_window(schemas):
    v = _validator(schemas["capture"])
    rows = _sample_captures()
    picked = rows[::25]  # every 25th row here; all of them in the slow test above
    assert {r["stage"] for r in picked} == {r["stage"] for r in rows}
    assert {(r["labels"] or {}).get("case_type") for r in picked} == {
        (r["labels"] or {}).get("case_type") for r in rows}
    _assert_valid(v, picked)
    bad = copy.deepcopy(rows[0])
    bad["stage"] = "canary"
    del bad["harness"]["analysis_hash"]
    bad["tool_executions"] = [{"tool": "kubectl_delete"}]  # destructive is required
    msgs = " | ".join(e.message for e in v.iter_errors(bad))
    assert "'canary' is not one of" in msgs and "'analysis_hash' is a required" in msgs
    assert "'destructive' is a required" in msgs


def test_review_schema_validates_the_sample_reviews(schemas):
    v = _validator(schemas["operator_review"])
    lines = (CAPTURES / "reviews.jsonl").read_text().splitlines()
    assert len(lines) > 100
    for line in lines:
        doc = json.loads(line)
        errors = list(v.iter_errors(doc))
        assert not errors, (doc["review_id"], [e.message for e in errors])
    bad = json.loads(lines[0])
    bad["scores"]["safety"] = 6
    del bad["scores"]["tool_efficiency"]
    bad["scores"]["vibes"] = 3
    bad["surprise"] = True
    msgs = " | ".join(e.message for e in v.iter_errors(bad))
    assert "6 is greater than the maximum of 5" in msgs
    assert "'tool_efficiency' is a required property" in msgs
    assert "'vibes' was unexpected" in msgs and "'surprise' was unexpected" in msgs
