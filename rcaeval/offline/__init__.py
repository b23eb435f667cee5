"""Offline evaluation over fixtures of captured RCA responses (docs/offline.md).

    from rcaeval.offline import read_fixtures, score_fixtures, novel_gate
    s = score_fixtures("data/offline/fixtures.jsonl", min_top1=0.95,
                       baseline="data/offline/baseline.json")
    s.metrics        # polars: metric, kind, value, numerator, denominator, ci_low, ci_high
    s.cases          # one row per fixture: top1_hit, grounded, calibrated, ...
    s.ok, s.failures
    novel_gate("data/offline/novel_e2e.jsonl").ok
    mutated, skipped = mutate_fixtures("data/offline/fixtures.jsonl", ["remove_signature"])

Public benchmark formats and the paired comparison (docs/offline.md, "Public benchmarks"):

    r = score_openrca("query.csv", "predictions.csv", out="scores.csv")
    r.summary.strict.hits, r.summary.mean               # OpenRCA's strict count, mean score
    score_ranked("truth.csv", "ranks.jsonl").by_k        # AC@k, Avg@k, chance, lift
    compare_files("a_scores.csv", "b_scores.csv").test   # exact McNemar: b, c, p_value
"""

from __future__ import annotations

from rcaeval.offline._captures import read_capture_fixtures
from rcaeval.offline._compare import compare_files, render_comparison
from rcaeval.offline._fixture import (
    Fixture,
    FixtureError,
    dump_fixtures,
    parse_fixture,
    read_fixtures,
)
from rcaeval.offline._fixture_tables import load_fixture_tables
from rcaeval.offline._gate import novel_gate
from rcaeval.offline._mutate import MUTATIONS, mutate_fixture, mutate_fixtures
from rcaeval.offline._mutate_bundle import MUTATION_FILE, mutate_bundle, mutate_run
from rcaeval.offline._openrca import SCORE_SCHEMA as OPENRCA_SCORE_SCHEMA
from rcaeval.offline._openrca import read_query as read_openrca_query
from rcaeval.offline._openrca import (
    render_summary as render_openrca_summary,
)
from rcaeval.offline._openrca import score_openrca
from rcaeval.offline._openrca import summarise as summarise_openrca
from rcaeval.offline._openrca_rules import parse_prediction, parse_scoring_points, score_parsed
from rcaeval.offline._openrca_rules import score_row as score_openrca_row
from rcaeval.offline._ranked import render_ranked, score_ranked
from rcaeval.offline._sample import OFFLINE_SEED, generate_offline_sample
from rcaeval.offline._score import read_baseline, score_fixtures, write_baseline

__all__ = [
    "MUTATIONS", "MUTATION_FILE",
    "OFFLINE_SEED", "Fixture", "FixtureError",
    "dump_fixtures",
    "generate_offline_sample", "load_fixture_tables", "mutate_bundle", "mutate_fixture",
    "mutate_fixtures", "mutate_run", "novel_gate", "parse_fixture", "read_baseline",
    "read_capture_fixtures", "read_fixtures", "score_fixtures",
    "write_baseline",
    # public benchmark formats and the paired comparison
    "OPENRCA_SCORE_SCHEMA",
    "compare_files", "parse_prediction", "parse_scoring_points",
    "read_openrca_query", "render_comparison", "render_openrca_summary", "render_ranked",
    "score_openrca", "score_openrca_row", "score_parsed", "score_ranked", "summarise_openrca",
]
