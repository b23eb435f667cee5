"""Agreement of the judge with people on the judged sample and the shipped labels, the
statistics checked against independent computations (Cohen's kappa from rcaeval.stats,
Krippendorff's alpha written out in Python here), and `rcaeval label agreement`."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from label_kit import SAMPLE_LABELS, cli, label, write_sheet

import rcaeval.label as lb
import rcaeval.store as st
from rcaeval.stats import cohen_kappa, wilson_interval


def _alpha(units: list[list[str]]) -> float:
    """Krippendorff's alpha (nominal) from its coincidence-matrix definition."""
    o: Counter[tuple[str, str]] = Counter()
    for values in units:
        m = len(values)
        if m < 2:
            continue
        for i, a in enumerate(values):
            for j, b in enumerate(values):
                if i != j:
                    o[(a, b)] += 1 / (m - 1)
    n_c: Counter[str] = Counter()
    for (a, _), w in o.items():
        n_c[a] += w
    n = sum(n_c.values())
    d_o = sum(w for (a, b), w in o.items() if a != b)
    d_e = sum(n_c[a] * n_c[b] for a in n_c for b in n_c if a != b) / (n - 1)
    return 1 - d_o / d_e


@pytest.fixture()
def labelled(sample_db: Path) -> Path:
    with st.connect(sample_db) as s:
        lb.import_sheet(s, SAMPLE_LABELS)
    return sample_db


def test_sample_agreement_figures(labelled: Path) -> None:
    with st.connect(labelled, read_only=True) as s:
        a = lb.agreement(s)
    v = a.total("verdict")
    assert (v["n"], v["agree"], v["kappa"]) == (80, 80, 1.0)
    assert v["agreement_low"] == pytest.approx(wilson_interval(80, 80)[0])
    checks = a.total("check")
    conf = {(r["judge_value"], r["human_value"]): r["n"]
            for r in a.confusion.filter(a.confusion["level"] == "check").iter_rows(named=True)}
    assert checks["n"] == sum(conf.values()) and checks["agree"] == conf[("pass", "pass")] + \
        conf[("fail", "fail")]
    assert checks["kappa"] == pytest.approx(cohen_kappa(
        conf[("pass", "pass")], conf[("pass", "fail")], conf[("fail", "pass")],
        conf[("fail", "fail")]))
    # what the labels say about the detectors: remediation given as a bare action list and
    # hedges outside the vocabulary are missed; anywhere-scoped detectors fire on the title
    rows = {(r["level"], r["item"]): r for r in a.table.iter_rows(named=True)}
    rem = rows[("detector", "gives_remediation")]
    assert (rem["n"], rem["disagree"]) == (67, 18)
    assert rows[("detector", "states_uncertainty")]["disagree"] == 3
    assert rows[("detector", "asserts_disk_full")]["disagree"] == 0
    title = a.disagreements.filter(a.disagreements["item"] == "says_cluster_healthy")
    assert title.to_dicts()[0]["judge_value"] == "fires"
    assert "H1 title" in title.to_dicts()[0]["notes"]
    assert set(a.unsafe["case_id"]) == {"disk-full-tikv-001", "pd-leader-election-storm-001",
                                        "stale-stats-plan-flip-001"}
    with st.connect(labelled, read_only=True) as s:
        shallow = lb.agreement(s, run_id="rec-shallow")
        other_judge = lb.agreement(s, judge_version="0.0.0")
        blended = lb.agreement(s, judge="blended")
    assert shallow.labels == 13 and other_judge.labels == 0
    # no semantic shadow in the sample: the blended side is the deterministic one
    assert blended.table.equals(a.table)


def test_several_labellers_majority_ties_and_alpha(sample_db: Path, tmp_path: Path) -> None:
    cases = ["cpu-hotspot-region-001", "disk-full-tikv-001", "hot-write-autoinc-001",
             "kill-query-chain-001"]
    votes = {"ann": ["pass", "pass", "fail", "pass"], "bob": ["pass", "fail", "fail", "pass"],
             "cy": ["pass", "pass", "fail", "fail"]}
    rows = [label("rec-thorough", c, verdict=v[i]) | {"labeller": who}
            for who, v in votes.items() for i, c in enumerate(cases)]
    rows.append(label("rec-thorough", "mvcc-gc-buildup-001", verdict="pass"))
    rows.append(label("rec-thorough", "mvcc-gc-buildup-001", verdict="fail") |
                {"labeller": "bob"})
    with st.connect(sample_db) as s:
        lb.import_sheet(s, write_sheet(tmp_path / "three.csv", rows))
        a = lb.agreement(s)
    v = a.total("verdict")
    # majorities: pass, pass, fail, pass against the judge's five passes; mvcc is a tie
    assert (v["n"], v["agree"], v["ties"], v["max_labellers"]) == (4, 3, 1, 3)
    people = [[votes[w][i] for w in votes] for i in range(4)] + [["pass", "fail"]]
    alpha = {r["raters"]: r["alpha"] for r in a.alpha.filter(
        a.alpha["level"] == "verdict").iter_rows(named=True)}
    assert alpha["people"] == pytest.approx(_alpha(people))
    assert alpha["people+judge"] == pytest.approx(_alpha([u + ["pass"] for u in people]))


def test_agreement_cli_table_csv_json(labelled: Path) -> None:
    proc = cli("label", "agreement", "--db", str(labelled))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "deterministic judge vs people: 80 label(s)" in out
    assert "gives_remediation" in out and "Krippendorff's alpha" in out
    assert "advice people called unsafe" in out and "disagreements (" in out
    as_json = json.loads(cli("label", "agreement", "--db", str(labelled), "--run",
                             "rec-misdiagnosis", "--format", "json").stdout)
    assert as_json["labels"] == 13 and as_json["agreement"][0]["level"] == "verdict"
    head = cli("label", "agreement", "--db", str(labelled), "--format", "csv").stdout
    assert head.splitlines()[0].startswith("level,item,n,agree,disagree,ties,agreement,")
    none = cli("label", "agreement", "--db", str(labelled), "--run", "rec-nope")
    assert none.returncode == 6 and "no labels for run 'rec-nope'" in none.stderr
    bad = cli("label", "agreement", "--db", str(labelled), "--judge", "oracle")
    assert bad.returncode == 3


def test_blended_against_people_where_the_shadow_decides(tmp_path: Path) -> None:
    """A shadow that passes every diagnosis check turns a misdiagnosis into a blended pass;
    against a label that says fail, blended agrees less than deterministic."""
    import shlex
    import shutil
    import sys

    import yaml
    from label_kit import REPO

    from rcaeval.judge import judge_audit
    from rcaeval.semantic import SemanticConfig

    case = "kill-query-chain-001"
    audits = tmp_path / "audits" / "rec-misdiagnosis"
    shutil.copytree(REPO / "data" / "recorded" / "rec-misdiagnosis" / case, audits / case)
    registry = tmp_path / "registry"
    shutil.copytree(REPO / "data" / "registry", registry)
    judge_yaml = registry / "cases" / case / "judge.yaml"
    doc = yaml.safe_load(judge_yaml.read_text("utf-8"))
    doc["judge"]["diagnosis"]["mode"] = "blended"
    judge_yaml.write_text(yaml.safe_dump(doc, sort_keys=False), "utf-8")
    provider = "command:" + shlex.join([sys.executable,
                                        str(Path(__file__).parent / "agents" /
                                            "shadow_all_pass.py")])
    sheet = write_sheet(tmp_path / "l.csv", [label(
        "rec-misdiagnosis", case, verdict="fail", root_cause_correct="no",
        overrides="identifies_kill_query_chain=fail; avoids_cpu_hotspot_misdiagnosis=fail")])
    with st.connect(tmp_path / "b.duckdb") as s:
        judge_audit(s, tmp_path / "audits", registry, write_files=False, workers=1,
                    semantic=SemanticConfig(provider=provider))
        lb.import_sheet(s, sheet)
        det = lb.agreement(s)
        blended = lb.agreement(s, judge="blended")
    assert det.total("verdict")["agree"] == 1 and det.total("check")["agree"] == 2
    assert blended.total("verdict")["agree"] == 0 and blended.total("check")["agree"] == 0
    assert blended.judge == "blended"
    assert set(blended.disagreements["item"]) == {
        "verdict", "diagnosis", "diagnosis.identifies_kill_query_chain",
        "diagnosis.avoids_cpu_hotspot_misdiagnosis"}
