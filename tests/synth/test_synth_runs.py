"""Scale mode (`generate_runs`) and the `rcaeval synth` CLI."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import orjson
import pytest
import yaml

from rcaeval.cli import main
from rcaeval.errors import InputError
from rcaeval.synth import generate_runs, load_scenarios
from rcaeval.synth._bench import MAX_VARIANTS, variant_id


def _run_dirs(root: Path) -> list[Path]:
    return sorted(p for p in (root / "recorded").glob("bench-*/*") if p.is_dir())


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_writes_exactly_n_runs_reproducibly(tmp_path: Path) -> None:
    n_scen = len(load_scenarios())
    summary = generate_runs(tmp_path / "a", 50, seed=3, variants=2)
    dirs = _run_dirs(tmp_path / "a")
    assert len(dirs) == 50 == summary.n_runs
    assert summary.cases == min(50, 2 * n_scen)
    assert {d.parent.name for d in dirs} == {f"bench-{k:05d}"
                                             for k in range(-(-50 // (2 * n_scen)))}
    with (tmp_path / "a" / "recorded" / "EXPECTED.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 50
    assert {(r["run_id"], r["case_id"]) for r in rows} == {(d.parent.name, d.name) for d in dirs}
    for d in dirs:
        assert (d / "manifest.json").is_file()
        assert (tmp_path / "a" / "registry" / "cases" / d.name / "case.yaml").is_file()
    assert len({r["behaviour"] for r in rows}) >= 4
    generate_runs(tmp_path / "b", 50, seed=3, variants=2)
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")
    generate_runs(tmp_path / "c", 50, seed=4, variants=2)
    assert _tree(tmp_path / "a") != _tree(tmp_path / "c")
    generate_runs(tmp_path / "c", 80, seed=4, variants=3)
    generate_runs(tmp_path / "c", 50, seed=3, variants=2)
    assert _tree(tmp_path / "a") == _tree(tmp_path / "c")


def test_variants_differ_in_scope_and_noise_only(tmp_path: Path) -> None:
    generate_runs(tmp_path, 30, seed=1, variants=2)
    sc = load_scenarios()[0]
    reg = tmp_path / "registry" / "cases"
    v0 = yaml.safe_load((reg / f"{sc.case_id}-v00" / "case.yaml").read_text())
    v1 = yaml.safe_load((reg / f"{sc.case_id}-v01" / "case.yaml").read_text())
    assert v0["environment"]["cluster_id"] != v1["environment"]["cluster_id"]
    assert v0["time_window"] != v1["time_window"]
    assert v0["case_type"] == v1["case_type"] and v0["title"] == v1["title"]
    j0 = yaml.safe_load((reg / f"{sc.case_id}-v00" / "judge.yaml").read_text())
    j1 = yaml.safe_load((reg / f"{sc.case_id}-v01" / "judge.yaml").read_text())
    assert j0["judge"] == j1["judge"] and j0["detectors"] == j1["detectors"]
    registry = pytest.importorskip("rcaeval.registry")
    assert [p.render() for p in registry.validate_registry(tmp_path / "registry")] == []


def test_thorough_bench_runs_target_their_variant(tmp_path: Path) -> None:
    generate_runs(tmp_path, 60, seed=5, variants=1)
    seen = 0
    for d in _run_dirs(tmp_path):
        man = orjson.loads((d / "manifest.json").read_bytes())
        if man["agent"]["behaviour"] != "thorough":
            continue
        case = yaml.safe_load((tmp_path / "registry/cases" / d.name / "case.yaml").read_text())
        assert man["cluster_id"] == case["environment"]["cluster_id"]
        assert man["time_window"]["start"] == case["time_window"]["start"]
        seen += 1
    assert seen > 0


def test_zero_runs_and_bad_arguments(tmp_path: Path) -> None:
    summary = generate_runs(tmp_path, 0, seed=0)
    assert summary.n_runs == 0 and _run_dirs(tmp_path) == []
    with pytest.raises(InputError):
        generate_runs(tmp_path, -1)
    with pytest.raises(InputError):
        generate_runs(tmp_path, 5, variants=MAX_VARIANTS + 1)
    with pytest.raises(InputError):
        generate_runs(tmp_path, 5, variants=0)


def test_variant_ids_widen_above_100_variants(tmp_path: Path) -> None:
    assert variant_id("k8s-oom", 7, 8) == "k8s-oom-v07"
    assert variant_id("k8s-oom", 99, 100) == "k8s-oom-v99"
    assert variant_id("k8s-oom", 7, 101) == "k8s-oom-v007"
    assert variant_id("k8s-oom", 769, 770) == "k8s-oom-v769"
    assert variant_id("k8s-oom", 1000, 1001) == "k8s-oom-v1000"
    n_scen = len(load_scenarios())
    summary = generate_runs(tmp_path, n_scen + 2, seed=0, variants=101)
    assert summary.cases == n_scen + 2 and summary.run_ids == 1
    runs = sorted(p.name for p in (tmp_path / "recorded" / "bench-00000").iterdir())
    assert len(runs) == n_scen + 2 and all(re.search(r"-v00[01]$", c) for c in runs)
    suite = yaml.safe_load((tmp_path / "registry/suites/bench.yaml").read_text())
    assert sorted(c["id"] for c in suite["cases"]) == runs
    # a smaller generation into the same root removes the 3-digit variants it wrote
    generate_runs(tmp_path, 5, seed=0, variants=2)
    left = [p.name for p in (tmp_path / "registry" / "cases").iterdir()]
    assert not any(re.search(r"-v\d{3}$", c) for c in left)


def test_cli_runs_and_sample(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["synth", "runs", "--n", "7", "--out", str(tmp_path / "r"), "--seed", "2"]) == 0
    assert len(_run_dirs(tmp_path / "r")) == 7
    assert "wrote 7 runs" in capsys.readouterr().out
    assert main(["synth", "sample", "--out", str(tmp_path / "s"), "--seed", "9"]) == 0
    assert (tmp_path / "s" / "registry" / "suites" / "smoke.yaml").is_file()
    assert (tmp_path / "s" / "recorded" / "EXPECTED.csv").is_file()
    assert main(["synth", "runs", "--out", str(tmp_path)]) == 2
