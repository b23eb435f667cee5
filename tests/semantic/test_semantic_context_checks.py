"""The semantic context carries the first judgment's critical-evidence and evidence-routing
checks beside its bucket statuses and diagnosis checks (docs/semantic.md), judged against the
fake OpenAI-compatible server on 127.0.0.1: the checks are the judgment's own, a failing
routing check is there with its reason and evidence, and the model is not shown them (the
prompt, like the cache key, covers the context's `input` only)."""

from __future__ import annotations

import json
import shutil

import orjson
from semantic_kit import DET_CASE, KEY_ENV, RECORDED, REGISTRY, files_of, needs_sample

import rcaeval.store as st
from rcaeval.judge import judge_audit
from rcaeval.semantic import SemanticConfig, SemanticContext

pytestmark = needs_sample

CASE = "disk-full-tikv-001"
FORGED = "rec-fabricated_refs"


def _expected(judgment: dict, bucket: str) -> list[dict]:
    checks = next(b for b in judgment["buckets"] if b["bucket"] == bucket)["checks"]
    return [{"check_id": c["check_id"], "required": c["required"], "weight": c["weight"],
             "passed": c["passed"], "reason": c["reason"],
             "evidence": (c["evidence"] if c["evidence"] and any(
                 v is not None for v in c["evidence"].values()) else None)}
            for c in checks]


def _checked(ctx: dict, judgment: dict) -> dict:
    SemanticContext.model_validate(ctx)
    det = ctx["deterministic"]
    assert det["critical_evidence_checks"] == _expected(judgment, "critical_evidence")
    assert det["routing_checks"] == _expected(judgment, "evidence_routing")
    assert det["buckets"] == {b["bucket"]: b["status"] for b in judgment["buckets"]}
    return det


def test_context_carries_critical_evidence_and_routing_checks(fake_server, baseline, tmp_path):
    # a run that collected the evidence (judged with provider none by the shared fixture)
    files = files_of(baseline[1], DET_CASE)
    good = _checked(json.loads(files["semantic_context_v1.json"]),
                    orjson.loads(files["judgment.json"]))
    assert good["critical_evidence_checks"] and all(
        c["passed"] for c in good["critical_evidence_checks"])
    assert good["routing_checks"] and all(c["passed"] for c in good["routing_checks"])
    ev = next(c for c in good["critical_evidence_checks"] if c["evidence"])
    assert ev["evidence"]["file"] and ev["evidence"]["excerpt"]

    # a run whose analysis patch cites evidence it never collected, judged against the model
    audits = tmp_path / "audits"
    shutil.copytree(RECORDED / FORGED / CASE, audits / FORGED / CASE)
    cfg = SemanticConfig.from_env("openai", env={KEY_ENV: "sk-test"}, model="judge-model",
                                  base_url=fake_server.url, api_key_env=KEY_ENV,
                                  timeout_s=5.0, jobs=1)
    out = tmp_path / "out"
    judge_audit(st.connect(":memory:"), audits, REGISTRY, out_dir=out, workers=1, semantic=cfg)
    d = out / FORGED / CASE
    forged = _checked(json.loads((d / "semantic_context_v1.json").read_text()),
                      orjson.loads((d / "judgment.json").read_bytes()))
    failed = [c for c in forged["routing_checks"] if not c["passed"]]
    assert forged["buckets"]["evidence_routing"] == "fail" and failed
    assert any("name no collected" in c["reason"]
               and c["evidence"]["file"] == "analysis_patch.json" for c in failed)

    # the model is asked about the diagnosis checks only: neither list reaches the prompt
    assert len(fake_server.requests) == 1
    user = fake_server.requests[0]["messages"][1]["content"]
    assert "critical_evidence_checks" not in user and "routing_checks" not in user
    assert "deterministic" not in json.loads(user.split("\n\n", 1)[1])
