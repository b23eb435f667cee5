"""The judge's shared vocabulary: each name list and default that more than one subpackage
uses has its one home here, and every other module derives from it.

This module imports nothing (not even the standard library), so the CLI, the registry models,
the judge, the store and the reports can all import it without cost or cycles.
tests/api/test_vocab.py fails when another module writes one of these lists again.
"""

BUCKETS: tuple[str, ...] = (
    "contract",
    "workflow",
    "execution_contract",
    "evidence_collection",
    "critical_evidence",
    "evidence_routing",
    "diagnosis",
)
"""Bucket names in evaluation and report order (docs/judge.md, "Checks and buckets"): one SQL
file ``queries/buckets/<bucket>.sql`` each; stores and reports sort buckets by it."""

BUCKETS_SQL_LIST = "[" + ", ".join(f"'{b}'" for b in BUCKETS) + "]"
""":data:`BUCKETS` as a DuckDB list literal, for ``list_position(<it>, bucket)`` ordering."""

DEFAULTABLE_BUCKETS: tuple[str, ...] = (
    "contract",
    "workflow",
    "execution_contract",
    "evidence_collection",
    "evidence_routing",
)
"""Buckets that get ``judge_defaults.yaml`` checks when a judge.yaml omits them."""

REQUIRED_BY_DEFAULT: frozenset[str] = frozenset({"contract", "execution_contract",
                                                 "diagnosis.hard"})
"""Where a check's ``required`` defaults to true when a spec leaves it unset (elsewhere it
defaults to false; docs/registry.md)."""

SOFT_BY_DEFAULT: frozenset[str] = frozenset({"attempted_events_collection_persisted"})
"""Check ids whose ``soft`` defaults to true when a spec leaves it unset (docs/scoring.md
"Soft checks"): the judge design calls the events consistency check a soft deduction."""

STRUCTURED_CHECK_ID = "structured_root_cause"
"""The judge's synthetic diagnosis check of a structured root cause (queries/buckets/
diagnosis.sql, docs/judge.md "Structured root causes"); reserved in judge.yaml."""

SCORELESS_BUCKETS: frozenset[str] = frozenset({"contract", "execution_contract"})
"""Gate buckets: they carry no score, so a ``soft`` (score-only) check there is an error."""

EVIDENCE_METHODS: tuple[str, ...] = (
    "keyword_any",
    "json_list_nonempty",
    "json_text_contains_any",
    "numeric_series_any_gt",
    "span_error_any",
)
"""The critical-evidence methods a ``{method: ...}`` condition may name (docs/judge.md,
"Critical-evidence methods"; CONTRIBUTING.md, "Add an evidence method")."""

VERDICTS: tuple[str, ...] = ("pass", "fail", "invalid")
"""A judged case's verdict (docs/judge.md), in report order; errored and timed-out cases have
no verdict."""

INFRA_OUTCOMES: tuple[str, ...] = ("errored", "timed_out")
"""How a case ends without a verdict: the agent run failed for infrastructure reasons or ran
out of time (docs/running.md); never judged."""

CASE_OUTCOMES: tuple[str, ...] = (*VERDICTS, *INFRA_OUTCOMES)
"""Every way a case of a run ends, in progress-bar and results order."""

UNFINISHED_OUTCOMES: tuple[str, ...] = ("interrupted", "pending")
"""Where a case of a run that stopped early (interrupted, failed, killed) stands: it was
running when the run stopped (case status ``running``), or it never started (``pending``).
Neither is a verdict, an error or a regression: ``rcaeval run --resume`` runs them
(docs/running.md)."""

UNFINISHED_BY_STATUS: dict[str, str] = dict(zip(("running", "pending"), UNFINISHED_OUTCOMES,
                                                strict=True))
"""Case run status (``eval_case_runs.status``) -> outcome, for a case its run did not finish."""

BUNDLE_CHANNELS: tuple[str, ...] = ("logs", "metrics", "queries", "events")
"""The evidence channels a bundle carries files for (docs/bundle-contract.md), in order; also
a judge.yaml's default ``preferred_channels``."""

EVIDENCE_CHANNELS: tuple[str, ...] = (*BUNDLE_CHANNELS, "ticket_context", "alerts", "traces")
"""Every channel a check may name: the bundle's channels, the incident ticket's context, the
alerts (alert-rule and gate-check evaluations, ``evidences/gate_checks.json``) and the traces
(trace spans, ``evidences/traces.json``); each is observed when its fact
``channel.<name>_observed`` holds."""

DEFAULT_CHUNK_SIZE = 1000
"""Cases judged per pass by ``judge_audit``/``judge_store`` and ``rcaeval judge
--chunk-size`` (docs/judge.md, "Chunks and memory")."""

RUN_STATUSES: tuple[str, ...] = ("running", "completed", "interrupted", "failed")
"""``eval_runs.status`` (docs/store.md)."""

CASE_RUN_STATUSES: tuple[str, ...] = ("pending", "running", "judged", *INFRA_OUTCOMES)
"""``eval_case_runs.status`` (docs/store.md)."""

BUCKET_STATUSES: tuple[str, ...] = ("pass", "partial", "fail", "not_evaluated")
"""``eval_bucket.status`` (docs/judge.md)."""

SUBTYPE_NOT_IN_REGISTRY = "case_not_in_registry"
SUBTYPE_SPEC_INVALID = "case_spec_invalid"
SUBTYPE_BUNDLE_ID_INVALID = "bundle_id_invalid"
"""The ``invalid`` subtypes of a case the registry cannot supply (not in it; its case.yaml or
judge.yaml does not load) and of a manifest.json ``run_id``/``case_id`` that cannot be a path
part (rcaeval._ids): such a case is judged under its directory names and ``rcaeval judge``
exits 3 naming file and field (docs/judge.md)."""

TABLE_CLASS = "rcaeval-table"
"""The CSS class of every HTML table rcaeval draws (charts, the semantic drill-down)."""
