"""The manifest's [shadow] phase: a second opinion on a judged chunk, behind the
:class:`Provider` protocol. After a chunk's deterministic judgment is written, the judging
session hands the chunk to its provider (``Judging(store, semantic=...)``) together with
:class:`Redecide`, the re-run of the [decide] phases with the provider's verdicts deciding
some checks (``j_semantic_check``, docs/semantic.md). So a provider never imports the judge's
pipeline: the judge owns decide, the provider owns its verdicts and their bookkeeping.
:class:`rcaeval.semantic.SemanticConfig` is the provider the package ships.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import duckdb
import pyarrow as pa

from rcaeval.judge._packet import build_packets
from rcaeval.judge._pipeline import JudgeFrames, run_judge_sql
from rcaeval.judge._version import JUDGE_VERSION

Key = tuple[str, str]


class Redecide(Protocol):
    """Judge ``keys`` again (their raw rows and rules are still on the connection) with
    ``checks`` -- rows ``(run_id, case_id, check_id, passed, votes_pass, votes_fail,
    rationale)`` -- deciding those checks instead of the detectors; return the frames and
    the judgment packets (bytes, as judgment.json would hold them). Writes nothing."""

    def __call__(self, keys: Sequence[Key], checks: pa.Table
                 ) -> tuple[JudgeFrames, dict[Key, bytes]]: ...


@runtime_checkable
class Provider(Protocol):
    """A second-opinion provider for the [shadow] phase. ``shadow`` runs once per judged
    chunk, the chunk's TEMP tables still on ``con``; it may call ``redecide`` for the case runs
    its verdicts should re-judge, and records what it needs itself. Returns
    ``{key: packet dict}`` for the case runs it answered."""

    def shadow(self, con: duckdb.DuckDBPyConnection, frames: JudgeFrames, *,
               redecide: Redecide, cases: Mapping[str, Any] | None,
               out_dir: str | Path | None, write_files: bool,
               judged_at: datetime) -> Mapping[Key, Any]: ...


def redecider(con: duckdb.DuckDBPyConnection, profiles: dict[str, Any]) -> Redecide:
    """The session's :class:`Redecide` on ``con`` with its scoring ``profiles``."""

    def redecide(keys: Sequence[Key], checks: pa.Table
                 ) -> tuple[JudgeFrames, dict[Key, bytes]]:
        frames = run_judge_sql(con, sorted(keys), profiles=profiles, semantic_checks=checks)
        return frames, build_packets(frames, judge_version=JUDGE_VERSION)

    return redecide
