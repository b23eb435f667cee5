"""explain_html: the explain tree as static HTML with a stable, unique anchor per case."""

from __future__ import annotations

from rcaeval.judge import case_anchor, explain_html

PACKET = {
    "run_id": "r1", "case_id": "disk full/001", "verdict": "fail", "subtype": "x",
    "score": 40.0, "raw_score": 40.0, "hard_gate": False, "reason": "because <b>",
    "bundle": {"status": "resolved", "dir": ".", "reason": "one bundle"},
    "buckets": [{"bucket": "workflow", "status": "partial", "score": 5.0, "max_score": 10.0,
                 "reason": "1/2", "checks": [
                     {"check_id": "logs_read", "kind": "check", "required": True,
                      "weight": 1.0, "passed": True, "reason": "seen",
                      "evidence": {"file": "logs/app.log", "line": 12, "path": None,
                                   "excerpt": "ERROR disk full"}},
                     {"check_id": "metrics_read", "kind": "check", "required": False,
                      "weight": 0.5, "passed": False, "reason": "not seen",
                      "evidence": None}]}],
}


def test_anchor_is_safe_and_unique() -> None:
    assert case_anchor("tikv-panic-restart-001") == "case-tikv-panic-restart-001"
    a, b = case_anchor("disk full/001"), case_anchor("disk-full-001")
    assert a != b and " " not in a and "/" not in a


def test_explain_html_tree() -> None:
    out = explain_html(PACKET)
    assert out.startswith(f'<section class="rcaeval-case" id="{case_anchor("disk full/001")}">')
    assert "because &lt;b&gt;" in out
    assert "workflow: partial</span> 5/10" in out
    assert "<code>logs/app.log:12</code><pre>ERROR disk full</pre>" in out
    assert "✗</span> <code>metrics_read</code> <small>(optional, w=0.5)</small>" in out
    assert out.endswith("</ul></section>")
