"""Every `rcaeval import <source>` treats a source path the same way (docs/cli.md, "Input
files and ids"): a missing file is not found (exit 6), a FIFO or a directory is exit 3 naming
it without blocking; and a symlink already in the incident dir that leads outside it is
refused (exit 3) instead of being written through."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from ingest_kit import DATA, rcaeval, snapshot

SOURCES = ["otlp", "loki", "logs", "journal", "kube-events", "kube-pods", "prometheus",
           "alertmanager"]


@pytest.mark.parametrize("source", SOURCES)
def test_missing_fifo_and_dir_sources(tmp_path: Path, source: str) -> None:
    out = tmp_path / "incident"
    missing = tmp_path / "nope.json"
    got = rcaeval("import", source, str(missing), "--out", str(out))
    assert got.returncode == 6, got.stderr
    assert f"{missing}: no such file" in got.stderr
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    got = rcaeval("import", source, str(fifo), "--out", str(out))
    assert got.returncode == 3, got.stderr
    assert f"{fifo}: is a FIFO, expected a regular file" in got.stderr
    got = rcaeval("import", source, str(tmp_path), "--out", str(out))
    assert got.returncode == 3, got.stderr
    assert "is a directory, expected a regular file" in got.stderr
    assert not out.exists()


@pytest.mark.parametrize(("source", "src", "link"), [
    ("prometheus", "prom_latency.json", "metrics.json"),
    ("logs", "checkout-app.log", "logs"),
    ("kube-events", "kube_events.json", "events.json"),
])
def test_symlink_out_of_the_incident_dir_is_refused(tmp_path: Path, source: str, src: str,
                                                    link: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "victim.json"
    victim.write_text('{"series": [], "events": []}\n')
    inc = tmp_path / "reg" / "incident"
    inc.mkdir(parents=True)
    (inc / link).symlink_to(outside if link == "logs" else victim)
    before = snapshot(outside)
    got = rcaeval("import", source, str(DATA / src), "--out", str(inc))
    assert got.returncode == 3, got.stderr
    assert f"{inc / link} [--out]: is a symlink to" in got.stderr
    assert "outside the incident dir" in got.stderr
    assert snapshot(outside) == before  # nothing written through the link
    assert sorted(p.name for p in inc.parent.iterdir()) == ["incident"]  # no temp dir left


def test_symlink_inside_the_incident_dir_is_kept(tmp_path: Path) -> None:
    inc = tmp_path / "incident"
    inc.mkdir()
    (inc / "real.json").write_text('{"series": []}\n')
    (inc / "metrics.json").symlink_to("real.json")
    got = rcaeval("import", "prometheus", str(DATA / "prom_latency.json"), "--out", str(inc))
    assert got.returncode == 0, got.stderr
