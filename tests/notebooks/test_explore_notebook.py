"""notebooks/explore.ipynb executed through papermill by `rcaeval notebook explore` on a store
judged from data/recorded: slices by agent and bucket, the SQL beside polars, and a paired
comparison of two runs with McNemar's test."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from page_kit import assert_page_palette, banner, raw_numbers

REPO = Path(__file__).resolve().parents[2]

pytest.importorskip("vl_convert")
pytest.importorskip("papermill")


def test_explore_has_parameters_cell() -> None:
    nb = nbformat.read(REPO / "notebooks" / "explore.ipynb", as_version=4)
    tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1
    for name in ("db", "runs", "run_a", "run_b"):
        assert re.search(rf"^{name} = ", tagged[0].source, re.M)


@pytest.mark.slow
def test_explore_renders_slices_and_paired_comparison(store_with_baseline: tuple[Path, Path],
                                                      tmp_path: Path) -> None:
    db, _ = store_with_baseline
    out = tmp_path / "explore.html"
    proc = subprocess.run([sys.executable, "-m", "rcaeval", "notebook", "explore", "--db",
                           str(db), "--run-a", "rec-thorough", "--run-b", "rec-shallow",
                           "--out", str(out)],
                          capture_output=True, text=True, timeout=300, cwd=REPO)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stderr == ""
    text = out.read_text("utf-8")
    assert text.count("<svg") >= 4
    assert "Verdicts by agent" in text and "Bucket pass rates by agent and by case type" in text
    assert "list_contains" in text  # the SQL side of a slice is shown
    # the trajectory section: medians per agent, a chart, b vs a on steps
    assert "Trajectory and efficiency" in text and "Trajectory by agent" in text
    assert "<th>agent_name</th><th>cases</th><th>median_steps</th>" in text
    assert "<th>case_id</th><th>steps_a</th><th>evidence_step_a</th><th>steps_b</th>" in text
    assert text.index("Bucket pass rates by agent and by case type") < text.index(
        "Trajectory by agent")
    m = re.search(r"McNemar \(exact\): pass only in a = (\d+), pass only in b = (\d+)", text)
    assert m and int(m.group(1)) > int(m.group(2))  # thorough passes where shallow fails
    assert not re.search(r"<script[^>]*\bsrc=[\"']https?://", text, re.I)
    # the A-vs-B comparison first: its banner, then its section before every slice
    decision, head = banner(text)
    assert decision == "none" and head == ("rec-shallow (b) passes 0, rec-thorough (a) passes "
                                           "13 of 13 shared cases")
    assert text.index("McNemar (exact)") < text.index("Scores by case type and agent")
    assert text.index("Score per case: rec-thorough (a) vs rec-shallow (b)") < text.index(
        "Scores by case type and agent")
    # the slice is shown once (its SQL beside it, checked equal, not a second table)
    assert text.count("<th>case_type</th><th>agent_name</th><th>cases</th>") == 1
    # bucket pass rates: one column per agent (the title says "by agent")
    assert re.search(r"<th>bucket</th>(<th>rec-[\w-]+</th>){7}</tr>", text)
    # agreement with human labels: level totals, items, disagreements linked to drill-downs
    assert "Agreement with human labels" in text and "80</strong> labels" in text
    assert ("<th>level</th><th>n</th><th>agree</th><th>disagree</th><th>ties</th>"
            "<th>agreement</th><th>agreement_low</th><th>agreement_high</th><th>kappa</th>") in text
    assert "<td>diagnosis.gives_remediation</td><td class=\"num\">67</td>" in text
    links = set(re.findall(r'href="#(case-rec-[^"]+)"', text))
    assert len(links) == 20 and all(f'id="{a}"' in text for a in links)
    assert text.index("Trajectory by agent") < text.index("Agreement with human labels")
    assert raw_numbers(text) == []
    assert_page_palette(text)
    bad = subprocess.run([sys.executable, "-m", "rcaeval", "notebook", "explore", "--db",
                          str(db), "--run-a", "rec-thorough", "--run-b", "nope",
                          "--out", str(tmp_path / "x.html")],
                         capture_output=True, text=True, timeout=120, cwd=REPO)
    assert bad.returncode == 6
