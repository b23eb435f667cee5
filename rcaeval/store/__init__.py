"""The rcaeval store: one DuckDB file holding runs, judgments, buckets, checks and raw tables.

Analyst usage (JupyterLab)::

    import rcaeval.store as st
    s = st.connect(read_only=True)   # $RCAEVAL_DB or data/rcaeval.duckdb; releases after use
    s.judgments(run_id="rec-thorough")
    s.sql("SELECT verdict, count(*) FROM eval_judgment GROUP BY ALL")

See docs/store.md.
"""

from __future__ import annotations

from rcaeval.store._connect import (
    CHECKPOINT_MEMORY_MIN,
    CHECKPOINT_MEMORY_PER_THREAD,
    MEMORY,
    MEMORY_LIMIT_ENV,
    THREADS_ENV,
    checkpoint,
    checkpoint_memory,
    checkpoints_deferred,
    connect,
    pin_utc,
    release_cache,
    resolve_db_path,
    resolve_memory_limit,
    resolve_threads,
    threads_lowered,
    wal_bytes,
)
from rcaeval.store._damage import damaged_store
from rcaeval.store._migrations import (
    MIGRATIONS_TABLE,
    discover_migrations,
)
from rcaeval.store._sqlnames import base_tables
from rcaeval.store._store import BUCKET_ORDER, Connectable, Store, connection_of
from rcaeval.store._tx import registered, transaction

__all__ = [
    "BUCKET_ORDER",
    "CHECKPOINT_MEMORY_MIN",
    "CHECKPOINT_MEMORY_PER_THREAD",
    "MEMORY",
    "MEMORY_LIMIT_ENV",
    "MIGRATIONS_TABLE",
    "THREADS_ENV",
    "Connectable",
    "Store",
    "base_tables",
    "checkpoint",
    "checkpoint_memory",
    "checkpoints_deferred",
    "connect",
    "connection_of",
    "damaged_store",
    "pin_utc",
    "registered",
    "release_cache",
    "discover_migrations",
    "resolve_db_path",
    "resolve_memory_limit",
    "resolve_threads",
    "threads_lowered",
    "transaction",
    "wal_bytes",
]
