"""The live HTTP APIs ``rcaeval case capture`` asks (docs/import.md, "case capture"):
Prometheus ``GET /api/v1/query_range``, Alertmanager ``GET /api/v2/alerts`` and Loki
``GET /loki/api/v1/query_range``. Each answer
is the JSON document the file importers read, so a capture and an import of the same
response give the same records.

A server that cannot be reached, times out or fails (5xx) is an infrastructure error
(exit 7); a query the server refuses (4xx: bad PromQL, too many points) is an input error
naming the query (exit 3).
"""

from __future__ import annotations

import math
import re
from datetime import datetime
from typing import Any

import orjson

from rcaeval.errors import InfraError, InputError

TIMEOUT_S = 30.0
_STEP = re.compile(r"^(\d+(?:\.\d+)?)(ms|s|m|h)?$")
_STEP_UNIT = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, None: 1}
AUTO_POINTS = 600
"""With no ``--step``, the step gives about this many points per series over the window."""


def parse_step(text: str | None, start: datetime, end: datetime) -> float:
    """``--step`` (``15s``, ``1m``, ``500ms``, a number of seconds) in seconds; ``None`` is
    the window over :data:`AUTO_POINTS`, rounded up to a whole second."""
    if text is None:
        return float(max(1, math.ceil((end - start).total_seconds() / AUTO_POINTS)))
    m = _STEP.match(text.strip())
    if not m or float(m.group(1)) <= 0:
        raise InputError(f"--step must be a positive duration such as 15s, 1m or 500ms, got "
                         f"{text!r}", field="--step")
    return float(m.group(1)) * _STEP_UNIT[m.group(2)]


def check_url(url: str, what: str) -> str:
    """``url`` without a trailing slash, if it is an http(s) URL; else an input error."""
    if not re.match(r"^https?://[^/\s]+", url):
        raise InputError(f"{what} must be an http:// or https:// URL, got {url!r}",
                         field=what)
    return url.rstrip("/")


def _get(url: str, params: dict[str, Any], what: str, field: str) -> Any:
    import httpx

    try:
        resp = httpx.get(url, params=params, timeout=TIMEOUT_S, follow_redirects=True)
    except httpx.HTTPError as exc:
        raise InfraError(f"could not reach {what} at {url}: {exc}") from None
    try:
        doc = orjson.loads(resp.content)
    except orjson.JSONDecodeError:
        doc = None
    if 400 <= resp.status_code < 500:
        said = doc.get("error") if isinstance(doc, dict) else resp.text[:300]
        raise InputError(f"{what} refused the request (HTTP {resp.status_code}): {said}",
                         file=url, field=field)
    if resp.status_code >= 300:
        raise InfraError(f"{what} at {url} answered HTTP {resp.status_code}: "
                         f"{resp.text[:300]}")
    if doc is None:
        raise InfraError(f"{what} at {url} did not answer JSON: {resp.text[:200]!r}")
    return doc


def prometheus_query_range(base_url: str, query: str, start: datetime, end: datetime,
                           step_s: float) -> Any:
    """The ``query_range`` response of ``query`` over [start, end] at ``step_s``."""
    url = check_url(base_url, "--prometheus") + "/api/v1/query_range"
    return _get(url, {"query": query, "start": f"{start.timestamp():.3f}",
                      "end": f"{end.timestamp():.3f}", "step": f"{step_s:g}"},
                "Prometheus", f"--query {query}")


def alertmanager_alerts(base_url: str) -> Any:
    """Alertmanager's current alerts (active, silenced, inhibited and unprocessed)."""
    url = check_url(base_url, "--alertmanager") + "/api/v2/alerts"
    return _get(url, {"active": "true", "silenced": "true", "inhibited": "true",
                      "unprocessed": "true"}, "Alertmanager", "--alertmanager")


LOKI_LIMIT = 5000
"""Lines asked of Loki per request; a full page is followed by the next one."""
LOKI_PAGES = 200


def loki_query_range(base_url: str, query: str, start: datetime, end: datetime,
                     limit: int = LOKI_LIMIT) -> list[Any]:
    """Every page of Loki's ``query_range`` answer for the LogQL ``query`` over [start,
    end], oldest first (``direction=forward``): a page holding ``limit`` lines is followed
    by one starting a nanosecond after its last line."""
    url = check_url(base_url, "--loki") + "/loki/api/v1/query_range"
    lo, hi = int(start.timestamp() * 1e9), int(end.timestamp() * 1e9)
    pages = []
    for _ in range(LOKI_PAGES):
        doc = _get(url, {"query": query, "start": str(lo), "end": str(hi),
                         "limit": str(limit), "direction": "forward"}, "Loki",
                   f"--loki-query {query}")
        pages.append(doc)
        result = (doc.get("data") or {}).get("result") if isinstance(doc, dict) else None
        stamps = [int(v[0]) for st in result or [] if isinstance(st, dict)
                  for v in st.get("values") or []
                  if isinstance(v, list) and v and str(v[0]).isdigit()]
        if len(stamps) < limit:
            break
        lo = max(stamps) + 1
    return pages
