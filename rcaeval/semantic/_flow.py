"""The two-pass flow (docs/semantic.md): after a chunk's deterministic judgment is written,
write ``semantic_context_v1.json``, ask the provider (or the cache) for verdicts, write
``semantic_packet_v1.json``, and -- only for ``blended`` cases whose packet is ``ok`` -- judge
those cases again with the semantic verdicts deciding the diagnosis checks. The first
(deterministic) judgment in eval_judgment / judgment.json is never touched."""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pyarrow as pa

from rcaeval._paths import read_query, read_statement
from rcaeval.semantic._config import Prompt, SemanticConfig, load_prompt
from rcaeval.semantic._context import Key, build_contexts, canonical, file_bytes, sha256
from rcaeval.semantic._models import SemanticPacket
from rcaeval.semantic._providers import (
    OpenAIClient,
    ProviderError,
    Sample,
    command_sample,
)
from rcaeval.store import registered, transaction

CONTEXT_FILE = "semantic_context_v1.json"
PACKET_FILE = "semantic_packet_v1.json"
BLENDED_FILE = "judgment_blended.json"
SHADOW_FILES = (CONTEXT_FILE, PACKET_FILE, BLENDED_FILE)
"""The files the shadow writes next to judgment.json (a baseline snapshot keeps them)."""


@dataclass
class _Outcome:
    status: str
    detail: str | None = None
    samples: list[Sample] | None = None
    cache_hit: bool = False


def _static_status(config: SemanticConfig) -> tuple[str, str] | None:
    """A status decided before any call: no provider, or one that cannot be used."""
    if config.provider == "none":
        return "missing_provider", "no semantic provider configured (provider none)"
    if config.provider == "command":
        if not config.command:
            return "missing_provider", "provider command needs a command line (command:<cmd>)"
        return None
    if config.provider == "openai":
        if not config.model:
            return ("missing_provider", "provider openai needs a model (--semantic-model or "
                    "$RCAEVAL_SEMANTIC_MODEL)")
        key, where = config.api_key()
        if key is None:
            return "missing_provider", f"provider openai needs an API key in {where}"
        return None
    return ("unsupported_provider",
            f"unsupported semantic provider {config.provider!r} (known: none, command:<cmd>, "
            "openai)")


def _settings(config: SemanticConfig, prompt: Prompt) -> dict[str, Any]:
    return {
        "provider": config.provider,
        "model": config.model_name(),
        "base_url": config.base_url if config.provider == "openai" else None,
        "prompt_id": prompt.prompt_id,
        "prompt_version": prompt.version,
        "prompt_sha256": prompt.sha256,
        "temperature": config.temperature,
        "seed": config.seed,
        "samples": config.samples,
        "timeout_s": config.timeout_s,
        "response_format": None,
    }


def cache_key(context: Mapping[str, Any], settings: Mapping[str, Any],
              max_tokens: int | None = None) -> str:
    """sha256 over the judge input, the prompt (id, version, file hash), provider, model,
    base URL and sampling settings: the same question asked the same way."""
    keyed = {k: v for k, v in settings.items() if k not in ("timeout_s", "response_format")}
    return sha256(canonical({"input": context["input"], "settings": keyed,
                             "max_tokens": max_tokens}))


def _sample_all(config: SemanticConfig, prompt: Prompt, client: OpenAIClient | None,
                context: dict[str, Any]) -> _Outcome:
    check_ids = [c["check_id"] for c in context["input"]["checks"]]
    samples: list[Sample] = []
    try:
        for i in range(config.samples):
            if config.provider == "command":
                samples.append(command_sample(config, file_bytes(context), check_ids, i))
            else:
                assert client is not None
                input_json = orjson.dumps(context["input"], option=orjson.OPT_INDENT_2).decode()
                samples.append(client.sample(prompt, input_json, check_ids, i))
    except ProviderError as exc:
        return _Outcome(exc.status, exc.detail)
    return _Outcome("ok", None, samples)


def _sum(values: list[Any]) -> Any:
    present = [v for v in values if v is not None]
    return sum(present) if present else None


def build_packet(context: dict[str, Any], settings: dict[str, Any], outcome: _Outcome,
                 key: str | None) -> dict[str, Any]:
    """The packet dict (SemanticPacket layout) for one context and its outcome."""
    samples = outcome.samples or []
    ok = outcome.status == "ok"
    det = {c["check_id"]: c["passed"] for c in context["deterministic"]["diagnosis_checks"]}
    checks = []
    if ok:
        for c in context["input"]["checks"]:
            cid = c["check_id"]
            votes = [s.verdicts[cid][0] for s in samples]
            n_pass, n_fail = votes.count("pass"), votes.count("fail")
            verdict = "pass" if n_pass > n_fail else "fail" if n_fail > n_pass else "tie"
            rationale = next((s.verdicts[cid][1] for s in samples
                              if verdict == "tie" or s.verdicts[cid][0] == verdict), None)
            d = "pass" if det.get(cid) else "fail"
            checks.append({
                "check_id": cid, "kind": c["kind"], "deterministic": d, "verdict": verdict,
                "votes": {"pass": n_pass, "fail": n_fail}, "samples": votes,
                "spread": round(min(n_pass, n_fail) / len(votes), 4),
                "agrees": None if verdict == "tie" else verdict == d,
                "rationale": rationale,
            })
    formats = [s.response_format for s in samples if s.response_format]
    settings = {**settings, "response_format": (
        "json_object" if "json_object" in formats else formats[0] if formats else None)}
    doc = {
        "packet_version": 1,
        "run_id": context["run_id"],
        "case_id": context["case_id"],
        "status": outcome.status,
        "detail": outcome.detail,
        "shadow_available": ok,
        "diagnosis_mode": context["diagnosis_mode"],
        "second_pass": ok and context["diagnosis_mode"] == "blended",
        "context_sha256": sha256(canonical(context)),
        "cache_key": key,
        "settings": settings,
        "usage": {
            "requests": sum(s.requests for s in samples),
            "input_tokens": _sum([s.input_tokens for s in samples]),
            "output_tokens": _sum([s.output_tokens for s in samples]),
            "cost_usd": _sum([s.cost_usd for s in samples]),
        },
        "checks": checks,
    }
    return SemanticPacket.model_validate(doc).model_dump(mode="json", by_alias=True)


def _cache_get(con: duckdb.DuckDBPyConnection, keys: list[str]) -> dict[str, list[Sample]]:
    if not keys:
        return {}
    rows = con.execute(read_query("semantic/cache_get.sql"), {"keys": keys}).fetchall()
    return {k: [Sample.from_json(s) for s in orjson.loads(a)] for k, a in rows}


def ask(con: duckdb.DuckDBPyConnection, contexts: dict[Key, dict[str, Any]], config: SemanticConfig
        ) -> dict[Key, tuple[dict[str, Any], bool]]:
    """``{key: (packet dict, cache_hit)}``: every context answered by the cache or the
    provider (``config.jobs`` cases at a time); ok answers are added to the cache."""
    prompt = load_prompt(config.prompt)
    settings = _settings(config, prompt)
    static = _static_status(config)
    keys = {k: cache_key(c, settings, config.max_tokens) for k, c in contexts.items()}
    outcomes: dict[Key, _Outcome] = {}
    if static is not None:
        outcomes = {k: _Outcome(*static) for k in contexts}
    else:
        cached = _cache_get(con, sorted(set(keys.values()))) if config.use_cache else {}
        todo = []
        for k in contexts:
            if keys[k] in cached:
                outcomes[k] = _Outcome("ok", None, cached[keys[k]], cache_hit=True)
            else:
                todo.append(k)
        client = None
        if todo and config.provider == "openai":
            client = OpenAIClient(config, config.api_key()[0] or "")
        try:
            with ThreadPoolExecutor(max_workers=config.jobs,
                                    thread_name_prefix="rcaeval-semantic") as pool:
                futures = {k: pool.submit(_sample_all, config, prompt, client, contexts[k])
                           for k in todo}
                # same cache key twice in one pass (identical inputs): asked once per case
                for k, fut in futures.items():
                    outcomes[k] = fut.result()
        finally:
            if client is not None:
                client.close()
        fresh = {keys[k]: o for k, o in outcomes.items()
                 if o.status == "ok" and not o.cache_hit}
        if fresh and config.use_cache:
            _cache_put(con, fresh, settings)
    return {k: (build_packet(contexts[k], settings,
                             outcomes[k], keys[k] if static is None else None),
                outcomes[k].cache_hit)
            for k in contexts}


def _cache_put(con: duckdb.DuckDBPyConnection, fresh: dict[str, _Outcome],
               settings: dict[str, Any]) -> None:
    now = datetime.now(UTC)
    table = pa.table({
        "cache_key": list(fresh),
        "provider": [settings["provider"]] * len(fresh),
        "model": [settings["model"]] * len(fresh),
        "prompt_version": [f"{settings['prompt_id']}_{settings['prompt_version']}"] * len(fresh),
        "answer_json": [orjson.dumps([s.to_json() for s in o.samples or []]).decode()
                        for o in fresh.values()],
        "created_at": pa.array([now] * len(fresh), pa.timestamp("us", tz="UTC")),
    })
    con.register("__sem_cache_in", table)
    try:
        con.execute(read_query("semantic/cache_put.sql"))
    finally:
        con.unregister("__sem_cache_in")


def _target(key: Key, case_dirs: Mapping[Key, Any], out_dir: str | Path | None) -> Path | None:
    if out_dir is not None:
        return Path(out_dir) / key[0] / key[1]
    d = case_dirs.get(key)
    return Path(d) if d else None


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() and path.read_bytes() == data:
        return
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


def semantic_check_table(packets: Mapping[Key, dict[str, Any]]) -> pa.Table:
    """The second pass's input (j_semantic_check): the majority verdict of every check of
    the given packets; ``passed`` null on a tie (the deterministic verdict stands)."""
    rows = [{"run_id": p["run_id"], "case_id": p["case_id"], "check_id": c["check_id"],
             "passed": None if c["verdict"] == "tie" else c["verdict"] == "pass",
             "votes_pass": c["votes"]["pass"], "votes_fail": c["votes"]["fail"],
             "rationale": c["rationale"]}
            for p in packets.values() for c in p["checks"]]
    return pa.Table.from_pylist(rows, schema=SEMANTIC_CHECK_SCHEMA)


SEMANTIC_CHECK_SCHEMA = pa.schema([
    ("run_id", pa.string()), ("case_id", pa.string()), ("check_id", pa.string()),
    ("passed", pa.bool_()), ("votes_pass", pa.int32()), ("votes_fail", pa.int32()),
    ("rationale", pa.string()),
])


def _record(con: duckdb.DuckDBPyConnection, scope_keys: list[Key], contexts: Mapping[Key, bytes],
            packets: Mapping[Key, tuple[dict[str, Any], bool]], packet_bytes: Mapping[Key, bytes],
            blended: tuple[Any, dict[Key, bytes]] | None, judged_at: datetime) -> None:
    ts = pa.timestamp("us", tz="UTC")
    sem_rows, check_rows, blended_rows = [], [], []
    for key, (p, hit) in packets.items():
        s, u = p["settings"], p["usage"]
        sem_rows.append({
            "run_id": key[0], "case_id": key[1], "status": p["status"], "detail": p["detail"],
            "diagnosis_mode": p["diagnosis_mode"], "second_pass": p["second_pass"],
            "provider": s["provider"], "model": s["model"],
            "prompt_version": f"{s['prompt_id']}_{s['prompt_version']}",
            "samples": s["samples"], "context_sha256": p["context_sha256"],
            "cache_key": p["cache_key"], "cache_hit": hit, "requests": u["requests"],
            "input_tokens": u["input_tokens"], "output_tokens": u["output_tokens"],
            "cost_usd": u["cost_usd"], "context_json": contexts[key].decode(),
            "packet_json": packet_bytes[key].decode(), "judged_at": judged_at,
        })
        for c in p["checks"]:
            check_rows.append({
                "run_id": key[0], "case_id": key[1], "check_id": c["check_id"],
                "kind": c["kind"], "det_passed": c["deterministic"] == "pass",
                "sem_passed": None if c["verdict"] == "tie" else c["verdict"] == "pass",
                "votes_pass": c["votes"]["pass"], "votes_fail": c["votes"]["fail"],
                "spread": c["spread"], "rationale": c["rationale"],
            })
    if blended is not None:
        frames, bpackets = blended
        diag = {(r["run_id"], r["case_id"]): r for r in frames.buckets.iter_rows(named=True)
                if r["bucket"] == "diagnosis"}
        for r in frames.judgments.iter_rows(named=True):
            key = (r["run_id"], r["case_id"])
            blended_rows.append({
                "run_id": key[0], "case_id": key[1], "verdict": r["verdict"],
                "subtype": r["subtype"], "score": r["score"], "raw_score": r["raw_score"],
                "hard_gate": r["hard_gate"], "diagnosis_status": diag[key]["status"],
                "diagnosis_score": diag[key]["score"], "reason": r["reason"],
                "judgment_json": bpackets[key].decode(), "judged_at": judged_at,
            })
    tables = {
        "__sem_keys": pa.table({"run_id": [k[0] for k in scope_keys],
                                "case_id": [k[1] for k in scope_keys]}),
        "__sem_rows": _table(sem_rows, con, "eval_semantic", ts),
        "__sem_checks": _table(check_rows, con, "eval_semantic_check", ts),
        "__sem_blended": _table(blended_rows, con, "eval_judgment_blended", ts),
    }
    with registered(con, tables), transaction(con):
        con.execute(read_query("semantic/record.sql"))


_ARROW = {"VARCHAR": pa.string(), "BOOLEAN": pa.bool_(), "INTEGER": pa.int32(),
          "BIGINT": pa.int64(), "DOUBLE": pa.float64()}


def _table(rows: list[dict[str, Any]], con: duckdb.DuckDBPyConnection, table: str,
           ts: pa.DataType) -> pa.Table:
    cols = con.execute(read_statement("semantic/table_columns.sql", table=table)).fetchall()
    schema = pa.schema([(c[0], ts if c[1].startswith("TIMESTAMP") else _ARROW[c[1]])
                        for c in cols])
    return pa.Table.from_pylist(rows, schema=schema)


def shadow_chunk(con: duckdb.DuckDBPyConnection, frames: Any, *, config: SemanticConfig,
                 redecide: Any, cases: Mapping[str, Any] | None,
                 out_dir: str | Path | None, write_files: bool,
                 judged_at: datetime | None = None) -> dict[Key, dict[str, Any]]:
    """Run the semantic shadow for one judged chunk (its TEMP tables still on ``con``):
    the judge's [shadow] phase. ``redecide`` (:class:`rcaeval.judge.Redecide`, given by the
    judging session) re-judges the blended cases with the semantic verdicts. Returns
    ``{key: packet dict}``."""
    judged_at = judged_at or datetime.now(UTC)
    contexts = build_contexts(con, frames, cases or {})
    scope = [(r["run_id"], r["case_id"]) for r in frames.scope.iter_rows(named=True)]
    case_dirs = {(r["run_id"], r["case_id"]): r["case_dir"]
                 for r in frames.scope.iter_rows(named=True)}
    answered = ask(con, contexts, config) if contexts else {}
    ctx_bytes = {k: file_bytes(c) for k, c in contexts.items()}
    pkt_bytes = {k: file_bytes(p) for k, (p, _) in answered.items()}
    second = {k: p for k, (p, _) in answered.items() if p["second_pass"]}
    blended = redecide(sorted(second), semantic_check_table(second)) if second else None
    _record(con, scope, ctx_bytes, answered, pkt_bytes, blended, judged_at)
    if write_files:
        for key in contexts:
            target = _target(key, case_dirs, out_dir)
            if target is None:
                continue
            _write(target / CONTEXT_FILE, ctx_bytes[key])
            _write(target / PACKET_FILE, pkt_bytes[key])
            if blended is not None and key in blended[1]:
                _write(target / BLENDED_FILE, blended[1][key])
            else:  # no second pass this time: an older blended judgment is stale
                (target / BLENDED_FILE).unlink(missing_ok=True)
    return {k: p for k, (p, _) in answered.items()}
