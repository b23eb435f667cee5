"""Novelty mutations on recorded run bundles (docs/bundle-contract.md layout): copy a case
dir, rewrite its evidence files, and write ``mutation.json`` with the implied outcome. What
counts as the case's signature and symptoms comes from its registry judge.yaml (the
critical_evidence checks), never from the answer."""

from __future__ import annotations

import hashlib
import shutil
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from rcaeval.errors import InputError, NotFoundError
from rcaeval.offline._mutate import MUTATIONS, UNRESOLVED
from rcaeval.registry import load_case

MUTATION_FILE = "mutation.json"
MUTATION_FORMAT = "rcaeval.mutation/1"
_OPTS = orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE


def _bundle_dir(case_dir: Path) -> Path:
    found = [p.parent.parent for p in case_dir.rglob("evidences/workspace_evidence_report.json")]
    if len(found) != 1:
        raise InputError(f"expected exactly one bundle (evidences/workspace_evidence_report.json)"
                         f", found {len(found)}", file=str(case_dir))
    return found[0]


def _load(path: Path) -> Any:
    try:
        return orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError) as exc:
        raise InputError(f"cannot read JSON: {exc}", file=str(path)) from None


def _save(path: Path, data: Any) -> None:
    path.write_bytes(orjson.dumps(data, option=_OPTS))


def _checks(case: Any) -> list[Any]:
    return [cond for chk in case.judge.judge.critical_evidence.checks
            for cond in (chk.any_of or []) + (chk.all_of or [])]


def _keywords(case: Any) -> list[str]:
    return [k.strip('"').lower() for c in _checks(case)
            if getattr(c, "method", None) == "keyword_any" and c.source == "logs"
            for k in c.keywords]


def _remove_signature(bundle: Path, case: Any) -> list[str]:
    kws = _keywords(case)
    if not kws:
        raise InputError("the case has no keyword_any log signature to remove",
                         file=str(case.case_dir / "judge.yaml"), field="critical_evidence")
    changes = []
    logs = bundle / "evidences" / "logs.json"
    if logs.is_file():
        data = _load(logs)
        before = len(data.get("entries", []))
        data["entries"] = [e for e in data.get("entries", [])
                           if not any(k in str(e.get("message", "")).lower() for k in kws)]
        _save(logs, data)
        changes.append(f"evidences/logs.json: removed {before - len(data['entries'])} "
                       "signature entries")
    for f in sorted((bundle / "logs").glob("*.log")) if (bundle / "logs").is_dir() else []:
        lines = f.read_text("utf-8", errors="replace").splitlines(keepends=True)
        kept = [ln for ln in lines if not any(k in ln.lower() for k in kws)]
        f.write_text("".join(kept), "utf-8")
        changes.append(f"logs/{f.name}: removed {len(lines) - len(kept)} signature lines")
    return changes


def _omit_symptom(bundle: Path, case: Any) -> list[str]:
    for c in _checks(case):
        if getattr(c, "method", None) == "numeric_series_any_gt":
            path = bundle / "evidences" / c.file
            if not path.is_file():
                continue
            data = _load(path)
            keep = [s for s in data.get("series", []) if not (
                s.get("name") == c.series
                and all(s.get("labels", {}).get(k) == v for k, v in c.labels.items()))]
            removed = len(data.get("series", [])) - len(keep)
            data["series"] = keep
            _save(path, data)
            return [f"evidences/{c.file}: removed {removed} series {c.series}"]
    for c in _checks(case):
        if getattr(c, "method", None) == "json_text_contains_any" and c.file == "events.json":
            path = bundle / "evidences" / "events.json"
            data = _load(path)
            needles = [n.lower() for n in c.needles]
            keep = [e for e in data.get("events", [])
                    if not any(n in orjson.dumps(e).decode().lower() for n in needles)]
            removed = len(data.get("events", [])) - len(keep)
            data["events"] = keep
            _save(path, data)
            return [f"evidences/events.json: removed {removed} events"]
    raise InputError("the case has no numeric_series_any_gt or events check naming a symptom",
                     file=str(case.case_dir / "judge.yaml"), field="critical_evidence")


def _add_contradictory(bundle: Path, case: Any) -> list[str]:
    rc = case.judge.ground_truth.root_cause
    obj = rc.component or "the affected component"
    path = bundle / "evidences" / "events.json"
    data = _load(path) if path.is_file() else {"events": []}
    report = _load(bundle / "evidences" / "workspace_evidence_report.json")
    ts = report.get("metadata", {}).get("time_window", {}).get("start")
    data.setdefault("events", []).append({
        "id": "EV-9001", "ts": ts, "type": "Normal", "object": obj, "reason": "Healthy",
        "message": f"{obj}: health checks passed, no errors, restarts or saturation during "
                   f"the incident window (contradicts {rc.family})"})
    _save(path, data)
    return [f"evidences/events.json: added a healthy observation of {obj}"]


def _remove_source(bundle: Path, case: Any, channel: str) -> list[str]:
    ev = bundle / "evidences"
    target = ev / f"{channel}.json"
    if not target.is_file():
        raise InputError(f"the bundle has no evidences/{channel}.json to remove",
                         file=str(bundle), field="channel")
    target.unlink()
    changes = [f"evidences/{channel}.json: removed"]
    if channel == "logs" and (bundle / "logs").is_dir():
        shutil.rmtree(bundle / "logs")
        changes.append("logs/: removed")
    rep_path = ev / "workspace_evidence_report.json"
    rep = _load(rep_path)
    rep.setdefault("channels", {})[channel] = {"attempted": True, "status": "error", "count": 0}
    _save(rep_path, rep)
    errs_path = ev / "collection_errors.json"
    errs = _load(errs_path) if errs_path.is_file() else {"errors": []}
    errs.setdefault("errors", []).append({"channel": channel, "source": f"{channel}-api",
                                          "error": "HTTP 503 Service Unavailable"})
    _save(errs_path, errs)
    return [*changes, f"channel {channel}: attempted, status error (collection_errors.json)"]


def _shift(ts: Any, delta: Any) -> Any:
    if not isinstance(ts, str):
        return ts
    try:
        t = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return ts
    return (t - delta).isoformat().replace("+00:00", "Z")


def _shift_window(bundle: Path, case: Any) -> list[str]:
    tw = case.case.time_window
    delta = tw.end - tw.start
    ev = bundle / "evidences"
    changes = []
    for name, key in (("metrics.json", "series"), ("logs.json", "entries"),
                      ("events.json", "events")):
        path = ev / name
        if not path.is_file():
            continue
        data = _load(path)
        for item in data.get(key, []):
            if name == "metrics.json":
                item["points"] = [[_shift(p[0], delta), *p[1:]] for p in item.get("points", [])]
            else:
                item["ts"] = _shift(item.get("ts"), delta)
        _save(path, data)
        changes.append(f"evidences/{name}: timestamps moved {delta} earlier")
    return changes


def _refresh_manifest(case_out: Path, run_id: str) -> None:
    """Refresh the manifest's file hashes and give the copy its own run id, so judging the
    mutated run never replaces the source run's judgments in a store."""
    path = case_out / "manifest.json"
    if not path.is_file():
        return
    man = _load(path)
    man["run_id"] = run_id
    files = []
    for entry in man.get("files", []):
        f = case_out / entry["path"]
        if f.is_file():
            b = f.read_bytes()
            files.append({**entry, "sha256": hashlib.sha256(b).hexdigest(), "size": len(b)})
    man["files"] = files
    _save(path, man)


def _source_run_id(src: Path) -> str:
    """The recorded case's run id: its manifest's, else its run directory's name."""
    man = src / "manifest.json"
    if man.is_file():
        rid = _load(man).get("run_id")
        if isinstance(rid, str) and rid.strip():
            return rid
    return src.resolve().parent.name


def mutate_bundle(case_dir: str | Path, mutation: str, out_dir: str | Path, *,
                  registry: str | Path | None = None, channel: str = "logs") -> Path:
    """Copy the recorded case dir ``case_dir`` (``<run>/<case_id>/``) to
    ``out_dir/<case_id>/``, apply ``mutation``, set the manifest's run id to
    ``<source run id>~<mutation>`` and write ``mutation.json``."""
    src = Path(case_dir)
    if not src.is_dir():
        raise NotFoundError(f"{src}: no such case directory")
    if mutation not in MUTATIONS:
        raise InputError(f"unknown mutation {mutation!r}; known: {', '.join(MUTATIONS)}",
                         field="mutation")
    case = load_case(registry, src.name)
    dst = Path(out_dir) / src.name
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst, symlinks=True)
    bundle = _bundle_dir(dst)
    if mutation == "remove_signature":
        changes = _remove_signature(bundle, case)
    elif mutation == "omit_symptom":
        changes = _omit_symptom(bundle, case)
    elif mutation == "add_contradictory":
        changes = _add_contradictory(bundle, case)
    elif mutation == "remove_source":
        changes = _remove_source(bundle, case, channel)
    else:
        changes = _shift_window(bundle, case)
    run_id = f"{_source_run_id(src)}~{mutation}"
    _refresh_manifest(dst, run_id)
    family = case.judge.ground_truth.root_cause.family
    _save(dst / MUTATION_FILE, {
        "format": MUTATION_FORMAT, "mutation": mutation, "case_id": src.name,
        "run_id": run_id, "source": str(src), "familiar_family": family,
        "expected_outcome": list(UNRESOLVED), "expected_novel": True,
        "missing_sources": [channel] if mutation == "remove_source" else [],
        "does": MUTATIONS[mutation].does, "implies": MUTATIONS[mutation].implies,
        "changes": changes,
    })
    return dst


def mutate_run(run_dir: str | Path, mutations: list[str], out_dir: str | Path, *,
               registry: str | Path | None = None, channel: str = "logs",
               cases: list[str] | None = None) -> list[tuple[str, str, Path | str]]:
    """Mutate every case dir of a recorded run (or the named ``cases``) with every mutation:
    ``out_dir/<run>~<mutation>/<case_id>/``. A case the mutation cannot apply to is reported
    (its message as the third element), the others are still written."""
    root = Path(run_dir)
    if not root.is_dir():
        raise NotFoundError(f"{root}: no such run directory")
    single = (root / "manifest.json").is_file() or (root / "evidences").is_dir()
    dirs = [root] if single else sorted(p for p in root.iterdir() if p.is_dir())
    run_name = root.parent.name if single else root.name
    if cases:
        dirs = [d for d in dirs if d.name in cases]
    out: list[tuple[str, str, Path | str]] = []
    for m in mutations:
        dest = Path(out_dir) / f"{run_name}~{m}"
        for d in dirs:
            try:
                out.append((d.name, m, mutate_bundle(d, m, dest, registry=registry,
                                                     channel=channel)))
            except (InputError, NotFoundError) as exc:
                out.append((d.name, m, str(exc)))
    return out
