"""The run page's drill-down for cases judged with the semantic shadow: `rcaeval judge
--semantic command:<fake>` into a real store, then rcaeval.report's case table and drill-down
(what notebooks/run_report.ipynb shows) and rcaeval.judge.explain_html with the case's shadow;
the slow test renders the page for real (`rcaeval report RUN_ID --html`, papermill). A run
judged without the shadow renders exactly as before."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from semantic_kit import BLENDED_CASE, CASES, DET_CASE, RECORDED, RUN, needs_sample

import rcaeval.store as st
from rcaeval.cli import main
from rcaeval.judge import case_anchor, explain_html, load_judgment
from rcaeval.report import (
    case_links_html,
    case_table,
    describe_integrity,
    drilldown_html,
    integrity_of,
)
from rcaeval.report._runpage import CASE_COLUMNS, DRILLDOWN_CSS
from rcaeval.semantic import blended_verdicts, load_shadow, load_shadows

pytestmark = needs_sample
SCRIPT = Path(__file__).parent / "agents" / "fake_semantic_command.py"
REPO = Path(__file__).resolve().parents[2]
ESCAPED_RATIONALE = "&lt;i&gt;sample 0&lt;/i&gt; &amp; co"
PLAIN = "rec-shallow"  # a second run, judged without the shadow


def _section(page: str, case_id: str) -> str:
    start = page.index(f'<section class="rcaeval-case" id="{case_anchor(case_id)}">')
    return page[start:page.index("</section>", start) + len("</section>")]


def _judge(audits: Path, registry: Path, db: Path, out: Path, *extra: str) -> None:
    code = main(["judge", str(audits), "--registry", str(registry), "--db", str(db),
                 "--out", str(out), "--workers", "1", *extra])
    assert code == 0


@pytest.fixture(scope="module")
def sem_store(sem_audit, tmp_path_factory) -> Path:
    """A store holding run RUN judged with the shadow (the fake command provider, 3 samples,
    odd samples saying fail, rationales with HTML markup) and one case of run PLAIN judged
    without it."""
    audits, registry = sem_audit
    tmp = tmp_path_factory.mktemp("sem_store")
    db = tmp / "s.duckdb"
    provider = "command:" + shlex.join([sys.executable, str(SCRIPT), "markup"])
    _judge(audits, registry, db, tmp / "out", "--semantic", provider, "--semantic-samples", "3")
    plain = tmp / "plain"
    shutil.copytree(RECORDED / PLAIN / DET_CASE, plain / PLAIN / DET_CASE)
    _judge(plain, registry, db, tmp / "plain-out")
    return db


def test_drilldown_shows_the_shadow_beside_the_deterministic_tree(sem_store):
    with st.connect(sem_store, read_only=True) as s:
        page = drilldown_html(s, RUN)
        blended = _section(page, BLENDED_CASE)
        packet = load_judgment(s, RUN, BLENDED_CASE)
        shadow = load_shadow(s, RUN, BLENDED_CASE)
        assert shadow is not None and set(load_shadows(s, RUN)) == set(CASES)
        # the deterministic tree, unchanged and first, then the shadow in the same section
        ev = describe_integrity(integrity_of(s, RUN).get(BLENDED_CASE))
        det_only = explain_html(packet, integrity=ev)
        assert blended == explain_html(packet, shadow, ev)
        assert blended.startswith(det_only.removesuffix("</section>"))
        semantic = blended[len(det_only) - len("</section>"):]
        assert semantic.startswith('<div class="rcaeval-semantic"><p><b>semantic shadow:</b> '
                                   '<span class="v-ok">ok</span> (command ')
        assert "prompt diagnosis_v1, 3 sample(s))" in semantic
        assert ("<tr><th>verdict</th><td><span class=\"v-fail\">fail</span> (diagnosis_fail)"
                "</td><td><span class=\"v-pass\">pass</span> (diagnosis_pass)</td></tr>"
                ) in semantic
        assert ("<tr><th>diagnosis</th><td><span class=\"v-fail\">fail</span> 16.67</td>"
                "<td><span class=\"v-pass\">pass</span> 50</td></tr>") in semantic
        # per diagnosis check: detectors vs the model's majority (2 of 3 samples say pass),
        # its votes, spread and rationale -- escaped
        row = semantic[semantic.index("<tr><td><code>identifies_kill_query_chain</code>"):]
        row = row[:row.index("</tr>")]
        assert ('<td>hard</td><td><span class="v-fail">fail</span></td><td><span class="v-pass">'
                'pass</span> <b title="the model disagrees with the detectors">≠</b></td>'
                '<td class="num">2/1</td><td class="num">0.3333</td>'
                f"<td>{ESCAPED_RATIONALE}</td>") in row
        agreeing = semantic[semantic.index("<code>explains_retries</code>"):]
        assert "≠" not in agreeing[:agreeing.index("</tr>")]
        assert "<i>sample" not in page and semantic.count("<tr><td><code>") == len(
            shadow["checks"])

        # a shadow without a second pass (deterministic_only): status, why, the checks
        det = _section(page, DET_CASE)
        assert "semantic shadow:" in det and "deterministic vs blended" not in det
        assert ("no second pass (diagnosis mode deterministic_only): the deterministic "
                "judgment stands") in det and "detectors vs model" in det

        # the case table gains blended_verdict: the second pass's verdict, blank elsewhere
        cases = case_table(s, RUN)
        assert cases.columns == list(CASE_COLUMNS)
        verdicts = dict(zip(cases["case_id"], cases["blended_verdict"], strict=True))
        assert verdicts == {c: ("pass" if c == BLENDED_CASE else None) for c in CASES}
        assert blended_verdicts(s, RUN).rows() == [(BLENDED_CASE, "pass")]
        assert "<th>verdict</th><th>blended_verdict</th><th>score</th>" in case_links_html(cases)

        # a run without the shadow: no semantic column, no semantic markup, no extra styles
        plain_page = drilldown_html(s, PLAIN)
        assert plain_page == DRILLDOWN_CSS + explain_html(
            load_judgment(s, PLAIN, DET_CASE),
            integrity=describe_integrity(integrity_of(s, PLAIN).get(DET_CASE)))
        assert "semantic" not in plain_page and "v-tie" not in plain_page
        assert load_shadows(s, PLAIN) == {} and load_shadow(s, PLAIN, DET_CASE) is None
        assert "blended_verdict" not in case_table(s, PLAIN).columns
        assert blended_verdicts(s, PLAIN).is_empty()


@pytest.mark.slow
def test_run_page_shows_the_shadow(sem_store, tmp_path):
    pytest.importorskip("papermill")
    pytest.importorskip("vl_convert")
    out = tmp_path / "sem.html"
    proc = subprocess.run([sys.executable, "-m", "rcaeval", "report", RUN, "--db",
                           str(sem_store), "--html", str(out)],
                          capture_output=True, text=True, timeout=300, cwd=REPO)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "cases: 4" in proc.stdout
    page = out.read_text("utf-8")
    assert "<th>verdict</th><th>blended_verdict</th><th>score</th>" in page
    blended = _section(page, BLENDED_CASE)
    tree_end = blended.index("diagnosis: fail")
    semantic = blended.index('<div class="rcaeval-semantic">')
    assert tree_end < semantic
    assert "<caption>deterministic vs blended</caption>" in blended[semantic:]
    assert "<caption>diagnosis checks: detectors vs model</caption>" in blended[semantic:]
    assert ESCAPED_RATIONALE in blended[semantic:] and "<i>sample" not in page
    assert "no second pass (diagnosis mode deterministic_only)" in _section(page, DET_CASE)
