"""The judge's version, recorded in every judgment (eval_judgment.judge_version and
judgment.json). Bump it whenever a verdict, score or packet could change for the same input;
``judge_sql_digest`` in each packet additionally fingerprints the SQL files."""

from __future__ import annotations

JUDGE_VERSION = "1.0.0"
