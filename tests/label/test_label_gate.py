"""`rcaeval label gate`: the labelled sample judged again with a registry copy whose
disk-full detector is deliberately worsened exits 4 naming what dropped; the unchanged
registry passes; a judge version with no recorded baseline is not found (exit 6)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from label_kit import REPO, SAMPLE_LABELS, cli

import rcaeval.label as lb
import rcaeval.store as st


@pytest.mark.slow
def test_gate_exits_4_on_a_worsened_detector(sample_db: Path, tmp_path: Path) -> None:
    with st.connect(sample_db) as s:
        lb.import_sheet(s, SAMPLE_LABELS)
        assert lb.record_baseline(s) > 0
        version = s.sql("SELECT DISTINCT judge_version FROM label_baseline")["judge_version"][0]
    registry = tmp_path / "registry"
    shutil.copytree(REPO / "data" / "registry", registry)
    ok = cli("label", "gate", "--baseline-judge", version, "--db", str(sample_db),
             "--registry", str(registry), "--format", "json", timeout=600)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    judge_yaml = registry / "cases" / "disk-full-tikv-001" / "judge.yaml"
    spec = yaml.safe_load(judge_yaml.read_text("utf-8"))
    worse = spec["detectors"]["asserts_disk_full"]
    worse["any"] = [r"\bdisk is on fire\b"]  # never fires on a real answer
    worse.pop("examples", None)
    judge_yaml.write_text(yaml.safe_dump(spec, allow_unicode=True, sort_keys=False), "utf-8")
    bad = cli("label", "gate", "--baseline-judge", version, "--db", str(sample_db),
              "--registry", str(registry), timeout=600)
    assert bad.returncode == 4, bad.stdout + bad.stderr
    assert "detector asserts_disk_full" in bad.stderr
    assert "check diagnosis.identifies_disk_full" in bad.stderr
    with st.connect(sample_db, read_only=True) as s:  # the store was not re-judged
        res = lb.gate(s, version, registry=registry)
        assert s.judgments("rec-thorough", "disk-full-tikv-001")["verdict"][0] == "pass"
    row = res.rows.filter((res.rows["level"] == "detector") &
                          (res.rows["item"] == "asserts_disk_full")).to_dicts()[0]
    assert row["dropped"] and row["current_agreement"] < row["baseline_low"] < 1.0
    verdict = res.rows.filter(res.rows["level"] == "verdict").to_dicts()[0]
    assert not verdict["dropped"]  # three verdicts of 80 changed: within the interval
    missing = cli("label", "gate", "--baseline-judge", "9.9.9", "--db", str(sample_db))
    assert missing.returncode == 6 and "no baseline recorded for judge '9.9.9'" in \
        missing.stderr
