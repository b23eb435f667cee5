"""The detector grammar a case author controls (docs/registry.md, "Detector grammar"):
registry- and detector-level extensions change what fires, through `judge_audit` and the CLI;
`rules_hash` covers them; a bad entry is a registry problem naming its file and field;
`rcaeval explain` shows the rule that decided each hit."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from rcaeval._paths import data_dir

SAMPLE = data_dir()
CASE = "tikv-panic-restart-001"
DET = "detector.asserts_storage_node_panic"

pytestmark = pytest.mark.skipif(
    not (SAMPLE / "recorded" / "rec-thorough" / CASE).is_dir(),
    reason="sample data not generated yet",
)

ANSWERS = {
    # plain statements fire with the defaults
    "plain": "## Root cause\nThe root cause is tikv-2 panicking on a corrupted raft entry.\n",
    # a team's own causal phrase: out of scope with the defaults
    "smoking-gun": "The smoking gun is tikv-2 panicking on a corrupted raft entry.\n",
    # a team's own hedge: asserted with the defaults
    "gut-feeling": "## Root cause\nMy gut feeling says tikv-2 panicked, nothing more.\n",
    # a team's own conclusion label
    "finding": "Befund: tikv-2 panicked on a corrupted raft log entry.\n",
    # default hedge and role cues
    "hedged": "## Root cause\nIt might be tikv-2 panicking, we could not confirm it.\n",
    "symptom": "## Root cause\nThe tikv-2 crash loop was merely a symptom of the disk failure.\n",
}


def _runs(root: Path) -> Path:
    rec = root / "recorded"
    for name, text in ANSWERS.items():
        dst = rec / f"g-{name}" / CASE
        shutil.copytree(SAMPLE / "recorded" / "rec-thorough" / CASE, dst)
        (dst / "output.txt").write_text(text, "utf-8")
        (dst / "transcript.json").unlink()
    return rec


def _registry(root: Path, grammar: dict | None = None, det_grammar: dict | None = None
              ) -> Path:
    reg = root / "registry"
    shutil.copytree(SAMPLE / "registry" / "cases" / CASE, reg / "cases" / CASE)
    (reg / "suites").mkdir()
    if grammar is not None:
        (reg / "grammar.yaml").write_text(yaml.safe_dump(grammar, allow_unicode=True), "utf-8")
    if det_grammar is not None:
        path = reg / "cases" / CASE / "judge.yaml"
        doc = yaml.safe_load(path.read_text("utf-8"))
        doc["detectors"]["asserts_storage_node_panic"]["grammar"] = det_grammar
        path.write_text(yaml.safe_dump(doc, allow_unicode=True, sort_keys=False), "utf-8")
    return reg


def _judge(root: Path, reg: Path) -> dict[str, bool]:
    import rcaeval.store as st
    from rcaeval.judge import judge_audit

    s = st.connect(":memory:")
    try:
        judge_audit(s, root / "recorded", reg, out_dir=root / "out", workers=1)
        rows = s.sql(f"SELECT run_id, value FROM eval_fact WHERE fact = '{DET}'").rows()
    finally:
        s.close()
    return {r[0].removeprefix("g-"): bool(r[1]) for r in rows}


@pytest.mark.slow
def test_defaults_then_registry_and_detector_extensions(tmp_path):
    _runs(tmp_path)
    base = _judge(tmp_path, _registry(tmp_path / "a"))
    assert base == {"plain": True, "smoking-gun": False, "gut-feeling": True,
                    "finding": False, "hedged": False, "symptom": False}

    reg = _registry(tmp_path / "b",
                    grammar={"causal_cues": {"en": [r"\bsmoking\s+gun\b"]},
                             "hedge_cues": {"before": [r"\bgut\s+feeling\b"]}},
                    det_grammar={"conclusion_labels": ["befund"]})
    ext = _judge(tmp_path, reg)
    assert ext == {"plain": True, "smoking-gun": True, "gut-feeling": False,
                   "finding": True, "hedged": False, "symptom": False}


def test_rules_hash_covers_extensions_and_only_them(tmp_path):
    from rcaeval.registry import load_case

    sample = load_case(SAMPLE / "registry", CASE).rules_hash
    plain = load_case(_registry(tmp_path / "a"), CASE).rules_hash
    with_reg = load_case(_registry(tmp_path / "b", grammar={"causal_cues": ["x+y"]}), CASE)
    with_det = load_case(_registry(tmp_path / "c", det_grammar={"causal_cues": ["x+y"]}), CASE)
    assert plain == sample
    assert len({plain, with_reg.rules_hash, with_det.rules_hash}) == 3
    det = with_reg.judge.detectors["asserts_storage_node_panic"]
    assert det.grammar is not None and det.grammar.causal_cues == ["x+y"]


def test_bad_grammar_entry_is_a_problem_naming_file_and_field(tmp_path):
    from rcaeval.registry import validate_registry

    reg = _registry(tmp_path, grammar={"hedge_cues": {"before": ["(?<=no)lookbehind"]}})
    problems = validate_registry(reg)
    assert any(p.file == "grammar.yaml" and "hedge_cues.before" in p.field
               and "lookbehind" in p.message for p in problems), problems
    reg2 = _registry(tmp_path / "x", grammar={"hedge_cues": {"sideways": ["a"]}})
    assert any(p.file == "grammar.yaml" and p.code == "unknown_field"
               for p in validate_registry(reg2))


def _flat(out: str) -> str:
    """The explain tree as one line: rich wraps long lines and draws the tree's guides."""
    return " ".join(re.sub(r"[│├└─]", " ", out).split())


@pytest.mark.slow
def test_explain_names_the_deciding_rule(tmp_path, capsys):
    from rcaeval.cli import main

    rec = _runs(tmp_path)
    reg = _registry(tmp_path / "r")
    db = tmp_path / "s.duckdb"
    assert main(["judge", str(rec), "--registry", str(reg), "--db", str(db),
                 "--out", str(tmp_path / "out"), "--workers", "1"]) == 0
    capsys.readouterr()
    assert main(["explain", "g-hedged", CASE, "--db", str(db)]) == 0
    out = _flat(capsys.readouterr().out)
    assert "asserts_storage_node_panic: did not fire" in out
    assert 'conclusion heading "Root cause"' in out and 'hedged by "might"' in out
    assert main(["explain", "g-symptom", CASE, "--db", str(db)]) == 0
    out = _flat(capsys.readouterr().out)
    assert 'named as symptom / contributing factor / consequence by "was merely a symptom"' \
        in out

    import rcaeval.store as st
    from rcaeval.judge import load_detector_hits

    s = st.connect(db)
    try:
        hits = load_detector_hits(s, "g-plain", CASE)
    finally:
        s.close()
    panic = [h for h in hits if h["detector_id"] == "asserts_storage_node_panic"]
    assert panic and panic[0]["fires"] and panic[0]["decided_by"] == "fires"
    assert panic[0]["scope_rule"] == 'conclusion heading "Root cause"'


def test_every_shipped_default_pattern_is_valid_re2_and_checked_here():
    """Loading the shipped defaults skips the per-pattern RE2 check (a DuckDB query each), so
    this test is where their syntax is checked; a user extension is still checked on load."""
    import pytest
    from pydantic import ValidationError

    from rcaeval.grammar._vocab import Grammar, _defaults_text, default_grammar, flat_items
    from rcaeval.registry._regex import re2_problem

    patterns = [p for ps in flat_items(default_grammar()).values() for p in ps]
    assert len(patterns) > 50
    assert [p for p in patterns if re2_problem(p)] == []
    assert default_grammar() == Grammar.model_validate(yaml.safe_load(_defaults_text()))
    with pytest.raises(ValidationError, match="does not compile"):
        Grammar.model_validate({"causal_cues": ["a(b"]})
    with pytest.raises(ValidationError, match="not valid RE2"):  # RE2 caps repeats at 1000
        Grammar.model_validate({"causal_cues": ["a{2,1001}"]})
