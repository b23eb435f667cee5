"""Kubernetes ``kubectl get events -o json`` -> ``incident/events.json`` and ``kubectl get pods
-o json`` -> ``incident/component_health.json`` (docs/import.md, "Kubernetes events" and
"Kubernetes pods").

Both are a ``List`` (``{"apiVersion": "v1", "kind": "List", "items": [...]}``; a single
object is read as a list of one). Events are core ``v1`` Events (``involvedObject``,
``reason``, ``message``, ``type``, ``count``, ``firstTimestamp``/``lastTimestamp`` or
``eventTime``, ``source``) or ``events.k8s.io/v1`` Events (``regarding``, ``note``,
``deprecatedCount``, ``deprecatedFirstTimestamp``/``deprecatedLastTimestamp``, ``series``,
``reportingController``). Pods are ``v1`` Pods: ``metadata``, ``spec.nodeName``,
``status.phase``, ``status.conditions`` (``Ready``), ``status.containerStatuses``
(``ready``, ``restartCount``, ``state``, ``lastState.terminated``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rcaeval.errors import InputError
from rcaeval.ingest._common import Window, count_int, iso, parse_iso, read_json
from rcaeval.ingest._incident import source_error

APP_LABELS = ("app.kubernetes.io/component", "app.kubernetes.io/name", "app", "component",
              "k8s-app", "name")
"""The pod labels that name its component, first present wins."""


def _items(path: Path, kind: str) -> list[dict[str, Any]]:
    doc = read_json(path)
    if isinstance(doc, dict) and doc.get("kind") == kind:
        return [doc]
    items = doc.get("items") if isinstance(doc, dict) else None
    if not isinstance(items, list):
        raise source_error(f"expected a kubectl -o json List with an 'items' list of {kind}s",
                           path, field="items")
    for i, it in enumerate(items):
        if not isinstance(it, dict):
            raise source_error("an item must be an object", path, field=f"items[{i}]")
        if it.get("kind") not in (None, kind):
            raise source_error(f"item kind is {it.get('kind')!r}, not {kind!r}", path,
                               field=f"items[{i}].kind")
    return items


def _time(value: Any, path: Path, field: str) -> str | None:
    if value in (None, ""):
        return None
    if not isinstance(value, str):
        raise source_error(f"expected an RFC 3339 timestamp, got {value!r}", path, field=field)
    try:
        return iso(parse_iso(value, field))
    except InputError as exc:
        raise source_error(exc.message, path, field=field) from exc


def _count(ev: dict[str, Any], series: dict[str, Any], path: Path, where: str) -> int:
    for key, doc, field in (("count", ev, "count"), ("deprecatedCount", ev, "deprecatedCount"),
                            ("count", series, "series.count")):
        if doc.get(key):
            return count_int(doc[key], path, f"{where}.{field}")
    return 1


def _event(ev: dict[str, Any], path: Path, i: int) -> dict[str, Any]:
    where = f"items[{i}]"
    meta = ev.get("metadata") if isinstance(ev.get("metadata"), dict) else {}
    obj = ev.get("involvedObject") or ev.get("regarding") or {}
    if not isinstance(obj, dict) or not obj.get("name"):
        raise source_error("an event needs involvedObject (or regarding) with a name", path,
                           field=f"{where}.involvedObject")
    reason = ev.get("reason")
    if not isinstance(reason, str) or not reason:
        raise source_error("an event needs a reason", path, field=f"{where}.reason")
    series = ev.get("series") if isinstance(ev.get("series"), dict) else {}
    stamps = {}
    for key in ("lastTimestamp", "deprecatedLastTimestamp", "eventTime", "firstTimestamp",
                "deprecatedFirstTimestamp"):
        stamps[key] = _time(ev.get(key), path, f"{where}.{key}")
    stamps["series"] = _time(series.get("lastObservedTime"), path,
                             f"{where}.series.lastObservedTime")
    stamps["created"] = _time(meta.get("creationTimestamp"), path,
                              f"{where}.metadata.creationTimestamp")
    last = (stamps["lastTimestamp"] or stamps["deprecatedLastTimestamp"] or stamps["series"]
            or stamps["eventTime"] or stamps["firstTimestamp"]
            or stamps["deprecatedFirstTimestamp"] or stamps["created"])
    if last is None:
        raise source_error("an event needs a time (lastTimestamp, eventTime or "
                           "firstTimestamp)", path, field=f"{where}.lastTimestamp")
    first = (stamps["firstTimestamp"] or stamps["deprecatedFirstTimestamp"]
             or stamps["eventTime"] or last)
    source = ev.get("source") if isinstance(ev.get("source"), dict) else {}
    ns = obj.get("namespace") or meta.get("namespace")
    uid = meta.get("uid") or f"{ns or ''}/{meta.get('name') or i}"
    rec: dict[str, Any] = {
        "id": f"EV-k8s-{uid}", "ts": last, "first_ts": first,
        "type": ev.get("type") or "Normal",
        "object": f"{str(obj.get('kind') or 'object').lower()}/{obj['name']}",
        "reason": reason, "message": str(ev.get("message") or ev.get("note") or ""),
        "count": _count(ev, series, path, where),
    }
    if ns:
        rec["namespace"] = ns
    src = (source.get("component") or ev.get("reportingComponent")
           or ev.get("reportingController"))
    if src:
        rec["source"] = src
    if source.get("host"):
        rec["host"] = source["host"]
    return rec


def events_in_window(events: list[dict[str, Any]], window: Window | None
                     ) -> list[dict[str, Any]]:
    """The events whose first..last time overlaps ``window`` (all of them for None)."""
    if window is None:
        return events
    return [e for e in events if parse_iso(e["first_ts"], "ts") <= window.end
            and parse_iso(e["ts"], "ts") >= window.start]


def kube_events(path: Path, window: Window | None = None) -> list[dict[str, Any]]:
    """The events of one ``kubectl get events -o json`` export (those whose first..last
    time overlaps ``window`` when given)."""
    out = events_in_window([_event(ev, path, i) for i, ev in
                            enumerate(_items(path, "Event"))], window)
    if not out:
        raise source_error("no event" + (f" in the window {window.text()}" if window else "")
                           + " (nothing to import)", path)
    out.sort(key=lambda e: (e["ts"], e["id"]))
    return out


def _termination(term: dict[str, Any]) -> str:
    reason = term.get("reason") or "Terminated"
    text = f"{reason} (exit code {term.get('exitCode')})" if term.get(
        "exitCode") is not None else str(reason)
    msg = str(term.get("message") or "").strip()
    return f"{text}: {msg}" if msg else text


def _pod(pod: dict[str, Any], path: Path, i: int) -> dict[str, Any]:
    where = f"items[{i}]"
    meta = pod.get("metadata") if isinstance(pod.get("metadata"), dict) else {}
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        raise source_error("a pod needs metadata.name", path, field=f"{where}.metadata.name")
    status = pod.get("status") if isinstance(pod.get("status"), dict) else {}
    labels = meta.get("labels") if isinstance(meta.get("labels"), dict) else {}
    conts = status.get("containerStatuses") or []
    if not isinstance(conts, list):
        raise source_error("expected a list", path, field=f"{where}.status.containerStatuses")
    containers, last_term, last_at, waiting = [], None, "", None
    for k, c in enumerate(conts):
        if not isinstance(c, dict) or not isinstance(c.get("name"), str):
            raise source_error("a container status needs a name", path,
                               field=f"{where}.status.containerStatuses[{k}]")
        state = c.get("state") if isinstance(c.get("state"), dict) else {}
        st = next(iter(state), "unknown")
        term = ((c.get("lastState") or {}).get("terminated") if isinstance(
            c.get("lastState"), dict) else None) or state.get("terminated")
        item: dict[str, Any] = {"name": c["name"], "ready": bool(c.get("ready")),
                                "restarts": count_int(c.get("restartCount"), path, f"{where}."
                                                      f"status.containerStatuses[{k}]."
                                                      "restartCount"), "state": st}
        detail = state.get(st) if isinstance(state.get(st), dict) else {}
        if detail.get("reason"):
            item["state_reason"] = detail["reason"]
            if st == "waiting" and waiting is None:
                waiting = detail["reason"]
        if isinstance(term, dict):
            item["last_termination_reason"] = _termination(term)
            at = str(term.get("finishedAt") or "")
            if last_term is None or at > last_at:
                last_term, last_at = item["last_termination_reason"], at
        containers.append(item)
    conditions = status.get("conditions") or []
    if not isinstance(conditions, list):
        raise source_error("expected a list", path, field=f"{where}.status.conditions")
    conds = {str(c.get("type")): c.get("status") for c in conditions if isinstance(c, dict)}
    comp = next((labels[k] for k in APP_LABELS if isinstance(labels.get(k), str)
                 and labels[k]), None) or (containers[0]["name"] if containers else name)
    rec: dict[str, Any] = {
        "id": f"pod/{meta.get('namespace') or 'default'}/{name}", "name": comp,
        "instance": name,
        "status": waiting or status.get("reason") or status.get("phase") or "Unknown",
        "ready": conds.get("Ready") == "True",
        "restarts": sum(c["restarts"] for c in containers),
    }
    if last_term:
        rec["last_termination_reason"] = last_term
    spec = pod.get("spec") if isinstance(pod.get("spec"), dict) else {}
    for key, value in (("namespace", meta.get("namespace")),
                       ("node", spec.get("nodeName")),
                       ("started_at", _time(status.get("startTime"), path,
                                            f"{where}.status.startTime"))):
        if value:
            rec[key] = value
    rec["containers"] = containers
    return rec


def kube_pods(path: Path) -> list[dict[str, Any]]:
    """The component-health records of one ``kubectl get pods -o json`` export."""
    out = [_pod(p, path, i) for i, p in enumerate(_items(path, "Pod"))]
    if not out:
        raise source_error("no pod (nothing to import)", path, field="items")
    return out


def import_kube_events(incident: Path, files: list[Path], window: Window | None = None
                       ) -> dict[str, int]:
    """Add Kubernetes events to ``incident/events.json`` (merged by id)."""
    from rcaeval.ingest._incident import merge_records

    events = [e for p in files for e in kube_events(Path(p), window)]
    return {"events": len(events),
            "warnings": sum(e["type"] == "Warning" for e in events),
            "total": merge_records(incident, "events.json", "events", events)}


def import_kube_pods(incident: Path, files: list[Path]) -> dict[str, int]:
    """Add pods' health to ``incident/component_health.json`` (merged by id)."""
    from rcaeval.ingest._incident import merge_records

    pods = [c for p in files for c in kube_pods(Path(p))]
    return {"pods": len(pods), "not_ready": sum(not c["ready"] for c in pods),
            "total": merge_records(incident, "component_health.json", "components", pods)}
