"""The run page, rendered for real through `rcaeval report RUN_ID --html` (papermill +
nbconvert) on a store judged from data/recorded: inline SVG charts, every case linked to its
drill-down anchor in the same file, evidence with file and line, no code cells, no network."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from page_kit import assert_page_palette, banner
from rcaeval.judge import case_anchor

pytest.importorskip("vl_convert")
pytest.importorskip("papermill")

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_run_page_links_every_case_to_its_drilldown(store_with_baseline: tuple[Path, Path],
                                                    tmp_path: Path) -> None:
    db, _ = store_with_baseline
    out = tmp_path / "pages" / "shallow.html"
    proc = subprocess.run([sys.executable, "-m", "rcaeval", "report", "rec-shallow", "--db",
                           str(db), "--html", str(out)],
                          capture_output=True, text=True, timeout=300, cwd=REPO)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stderr == ""
    assert str(out) in proc.stdout and "cases: 13" in proc.stdout
    assert out.with_suffix(".ipynb").is_file()
    text = out.read_text("utf-8")
    assert text.count("<svg") >= 4
    # the trajectory table and chart (eval_trajectory), between the cases and the drill-down
    assert "<th>case_id</th><th>verdict</th><th>steps</th><th>failed_calls</th>" in text
    assert text.index("Trajectory by case type") < text.index(
        f'id="{case_anchor("tikv-panic-restart-001")}"')
    assert not re.search(r"<script[^>]*\bsrc=[\"']https?://", text, re.I)
    assert 'jp-InputArea-editor"' not in text
    hrefs = re.findall(r'href="#(case-[^"]+)"', text)
    ids = set(re.findall(r'id="(case-[^"]+)"', text))
    assert len(hrefs) == 13 and set(hrefs) == ids
    assert case_anchor("tikv-panic-restart-001") in ids
    # the drill-down: bucket -> check -> evidence with file:line and its excerpt
    section = text[text.index(f'id="{case_anchor("tikv-panic-restart-001")}"'):]
    section = section[:section.index("</section>")]
    assert "workflow: pass" in section and "architecture_context_loaded" in section
    assert ".opencode/telemetry.log:1</code><pre>" in section
    # the decision banner first: the run's verdict counts
    assert banner(text) == ("bad", "run rec-shallow: 0 of 13 cases pass")
    assert "0 pass · 13 fail · 0 invalid · 0 errored · 0 timed out" in text
    assert_page_palette(text)
    # passed checks folded (<details>, closed), failed checks open outside them
    folded = re.findall(r'<details class="passed-checks">(.*?)</details>', text, re.S)
    assert folded and all("v-fail" not in f for f in folded)
    unfolded = re.sub(r'<details class="passed-checks">.*?</details>', "", text, flags=re.S)
    assert text.count("✗</span>") == unfolded.count("✗</span>") > 0
    assert '<span class="v-pass">✓</span> <code>' not in unfolded
    assert '<details class="passed-checks" open' not in text
    # rounded numbers in the drill-down heads and bucket lines
    assert "score 29.28 (raw 29.28, hard gate false)" in text and "29.2833" not in text

    missing = subprocess.run([sys.executable, "-m", "rcaeval", "report", "no-such-run", "--db",
                              str(db), "--html", str(tmp_path / "m.html")],
                             capture_output=True, text=True, timeout=120, cwd=REPO)
    assert missing.returncode == 6
