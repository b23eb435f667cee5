"""The run page's drill-down for cases judged with the semantic shadow: `rcaeval judge
--semantic command:<fake>` into a real store, then rcaeval.report's case table and drill-down
(what notebooks/run_report.ipynb shows) and rcaeval.judge.explain_html with the case's shadow.
A run judged without the shadow renders exactly as before."""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path

from semantic_kit import BLENDED_CASE, CASES, DET_CASE, RECORDED, RUN, needs_sample

import rcaeval.store as st
from rcaeval.cli import main
from rcaeval.judge import case_anchor, explain_html, load_judgment
from rcaeval.report import case_links_html, case_table, drilldown_html
from rcaeval.report._runpage import CASE_COLUMNS, DRILLDOWN_CSS
from rcaeval.semantic import blended_verdicts, load_shadow, load_shadows

pytestmark = needs_sample
SCRIPT = Path(__file__).parent / "agents" / "fake_semantic_command.py"
PLAIN = "rec-shallow"  # a second run, judged without the shadow


def _section(page: str, case_id: str) -> str:
    start = page.index(f'<section class="rcaeval-case" id="{case_anchor(case_id)}">')
    return page[start:page.index("</section>", start) + len("</section>")]


def _judge(audits: Path, registry: Path, db: Path, out: Path, *extra: str) -> None:
    code = main(["judge", str(audits), "--registry", str(registry), "--db", str(db),
                 "--out", str(out), "--workers", "1", *extra])
    assert code == 0


def test_drilldown_shows_the_shadow_beside_the_deterministic_tree(sem_audit, tmp_path, capsys):
    audits, registry = sem_audit
    db = tmp_path / "s.duckdb"
    provider = "command:" + shlex.join([sys.executable, str(SCRIPT), "markup"])
    _judge(audits, registry, db, tmp_path / "out", "--semantic", provider,
           "--semantic-samples", "3")
    plain = tmp_path / "plain"
    shutil.copytree(RECORDED / PLAIN / DET_CASE, plain / PLAIN / DET_CASE)
    _judge(plain, registry, db, tmp_path / "plain-out")
    capsys.readouterr()

    with st.connect(db, read_only=True) as s:
        page = drilldown_html(s, RUN)
        blended = _section(page, BLENDED_CASE)
        packet = load_judgment(s, RUN, BLENDED_CASE)
        shadow = load_shadow(s, RUN, BLENDED_CASE)
        assert shadow is not None and set(load_shadows(s, RUN)) == set(CASES)
        # the deterministic tree, unchanged and first, then the shadow in the same section
        det_only = explain_html(packet)
        assert blended == explain_html(packet, shadow)
        assert blended.startswith(det_only.removesuffix("</section>"))
        semantic = blended[len(det_only) - len("</section>"):]
        assert semantic.startswith('<div class="rcaeval-semantic"><p><b>semantic shadow:</b> '
                                   '<span class="v-ok">ok</span> (command ')
        assert "prompt diagnosis_v1, 3 sample(s))" in semantic
        assert ("<tr><th>verdict</th><td><span class=\"v-fail\">fail</span> (diagnosis_fail)"
                "</td><td><span class=\"v-pass\">pass</span> (diagnosis_pass)</td></tr>"
                ) in semantic
        assert ("<tr><th>diagnosis</th><td><span class=\"v-fail\">fail</span> 16.6667</td>"
                "<td><span class=\"v-pass\">pass</span> 50</td></tr>") in semantic
        # per diagnosis check: detectors vs the model's majority (2 of 3 samples say pass),
        # its votes, spread and rationale -- escaped
        row = semantic[semantic.index("<tr><td><code>identifies_kill_query_chain</code>"):]
        row = row[:row.index("</tr>")]
        assert ('<td>hard</td><td><span class="v-fail">fail</span></td><td><span class="v-pass">'
                'pass</span> <b title="the model disagrees with the detectors">≠</b></td>'
                '<td class="num">2/1</td><td class="num">0.3333</td>'
                "<td>&lt;i&gt;sample 0&lt;/i&gt; &amp; co</td>") in row
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
        assert plain_page == DRILLDOWN_CSS + explain_html(load_judgment(s, PLAIN, DET_CASE))
        assert "semantic" not in plain_page and "v-tie" not in plain_page
        assert load_shadows(s, PLAIN) == {} and load_shadow(s, PLAIN, DET_CASE) is None
        assert "blended_verdict" not in case_table(s, PLAIN).columns
        assert blended_verdicts(s, PLAIN).is_empty()
