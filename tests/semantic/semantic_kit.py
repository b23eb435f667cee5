"""Shared pieces of the semantic-shadow tests: a fake OpenAI-compatible chat-completions
server (a real http.server on 127.0.0.1, port 0, in a thread), and an audit + registry copy
in which one case is in diagnosis mode `blended`."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

import rcaeval.store as st
from rcaeval._paths import data_dir
from rcaeval.judge import judge_audit
from rcaeval.semantic import SemanticConfig

RECORDED = data_dir() / "recorded"
REGISTRY = data_dir() / "registry"
RUN = "rec-misdiagnosis"
BLENDED_CASE = "kill-query-chain-001"
DET_CASE = "tikv-panic-restart-001"
CASES = (BLENDED_CASE, DET_CASE, "cpu-hotspot-region-001", "disk-full-tikv-001")
FAMILY = {BLENDED_CASE: "kill_query_chain", DET_CASE: "storage_node_panic",
          "cpu-hotspot-region-001": "cpu_hotspot", "disk-full-tikv-001": "disk_full"}
KEY_ENV = "RCAEVAL_TEST_SEMANTIC_KEY"

needs_sample = pytest.mark.skipif(
    not (RECORDED / "rec-misdiagnosis").is_dir() or not REGISTRY.is_dir(),
    reason="sample data not generated yet (data/recorded, data/registry)")


def all_pass(check_ids: list[str], body: dict[str, Any], n: int) -> dict[str, str]:
    return dict.fromkeys(check_ids, "pass")


@dataclass
class FakeServer:
    """Behaviour per request: ``mode`` ok | error | hang | malformed | reject_schema, or per
    ground-truth family in ``modes``; ``policy(check_ids, body, request_number) ->
    {check_id: verdict}``."""

    mode: str = "ok"
    modes: dict[str, str] = field(default_factory=dict)
    policy: Callable[[list[str], dict[str, Any], int], dict[str, str]] = all_pass
    requests: list[dict[str, Any]] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    url: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def respond(self, body: dict[str, Any]) -> tuple[int, bytes]:
        with self.lock:
            self.requests.append(body)
            n = len(self.requests)
        doc = json.loads(body["messages"][1]["content"].split("\n\n", 1)[1])
        mode = self.modes.get((doc.get("ground_truth") or {}).get("family"), self.mode)
        if mode == "error":
            return 500, b'{"error": {"message": "model overloaded"}}'
        if mode == "hang":
            self.release.wait(30)
            return 500, b"{}"
        if mode == "reject_schema" and body["response_format"]["type"] == "json_schema":
            return 400, b'{"error": {"message": "response_format json_schema unsupported"}}'
        if mode == "malformed":
            content = "I think everything passes!"
        elif mode == "fenced":
            content = "```json\n" + json.dumps({"checks": [
                {"check_id": c["check_id"], "verdict": "fail", "rationale": "fenced"}
                for c in doc["checks"]]}) + "\n```"
        else:
            ids = [c["check_id"] for c in doc["checks"]]
            verdicts = self.policy(ids, body, n)
            content = json.dumps({"checks": [
                {"check_id": c, "verdict": v, "rationale": f"model says {v}"}
                for c, v in verdicts.items()]})
        return 200, json.dumps({
            "id": f"cmpl-{n}", "object": "chat.completion", "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 1000, "completion_tokens": 50, "total_tokens": 1050},
        }).encode()


@pytest.fixture
def fake_server() -> Iterator[FakeServer]:
    state = FakeServer()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server API
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length))
            body["_auth"] = self.headers.get("Authorization")
            body["_path"] = self.path
            code, data = state.respond(body)
            try:
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:  # the client gave up (timeout test)
                pass

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield state
    finally:
        state.release.set()
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture(scope="session")
def sem_audit(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """``(audit_root, registry)``: four misdiagnosed cases of the sample's
    ``rec-misdiagnosis`` run (``kill-query-chain-001`` switched to mode blended, the others
    deterministic_only)."""
    tmp_path = tmp_path_factory.mktemp("sem_audit")
    audits = tmp_path / "audits"
    for case in CASES:
        shutil.copytree(RECORDED / "rec-misdiagnosis" / case, audits / RUN / case)
    registry = tmp_path / "registry"
    shutil.copytree(REGISTRY, registry)
    judge = registry / "cases" / BLENDED_CASE / "judge.yaml"
    doc = yaml.safe_load(judge.read_text())
    doc["judge"]["diagnosis"]["mode"] = "blended"
    judge.write_text(yaml.safe_dump(doc, sort_keys=False))
    return audits, registry


def judge_run(audit, out, semantic=None, store=None):
    audits, registry = audit
    s = store or st.connect(":memory:")
    judge_audit(s, audits, registry, out_dir=out, workers=1, semantic=semantic)
    return s


def files_of(out: Path, case: str) -> dict[str, bytes]:
    d = out / RUN / case
    return {p.name: p.read_bytes() for p in sorted(d.iterdir())}


@pytest.fixture(scope="session")
def baseline(sem_audit, tmp_path_factory):
    """The four cases judged without the shadow, and with provider ``none``."""
    tmp = tmp_path_factory.mktemp("baseline")
    judge_run(sem_audit, tmp / "plain")
    store = judge_run(sem_audit, tmp / "none", SemanticConfig(provider="none"))
    return tmp / "plain", tmp / "none", store


def contexts_of(baseline) -> dict[tuple[str, str], dict]:
    return {(RUN, c): json.loads(files_of(baseline[1], c)["semantic_context_v1.json"])
            for c in (BLENDED_CASE, DET_CASE)}
