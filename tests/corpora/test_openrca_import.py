"""`rcaeval import openrca` on a 5-task fixture in OpenRCA's exact layout
(tests/corpora/data/openrca/Bank: query.csv, record.csv, telemetry/<date>/{metric,log,trace}):
the cases it writes, what stays out of the workspace, bad input, and the OpenRCA profile's
scores against `rcaeval offline openrca` on the same answers."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
import yaml

from rcaeval.corpora import export_openrca, import_openrca, openrca_scores
from rcaeval.errors import NotFoundError
from rcaeval.offline import score_openrca
from rcaeval.registry import load_case, load_registry

DATA = Path(__file__).parent / "data" / "openrca"
CASES = [f"openrca-bank-{i:04d}" for i in range(5)]


def rcaeval(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rcaeval", *args], capture_output=True,
                          text=True, timeout=300, check=False)


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("reg")
    report = import_openrca(DATA, "Bank", root)
    assert report.ok, report.skipped
    assert report.cases == CASES
    return root


def test_one_case_per_task_in_a_suite_that_validates(registry: Path) -> None:
    reg = load_registry(registry)
    assert reg.problems == []
    suite = yaml.safe_load((registry / "suites" / "openrca-bank.yaml").read_text())
    assert [c["id"] for c in suite["cases"]] == CASES
    with (DATA / "Bank" / "query.csv").open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    for cid, row in zip(CASES, rows, strict=True):
        merged = load_case(registry, cid)
        assert merged.case.prompt.text.startswith(row["instruction"] + "\n")
        assert merged.judge.corpus.scoring_points == row["scoring_points"]
        assert merged.judge.corpus.task_index == row["task_index"]


def test_telemetry_is_sliced_to_the_tasks_half_hour(registry: Path) -> None:
    merged = load_case(registry, "openrca-bank-0000")  # 2021-03-04 14:30-15:00 UTC+8
    assert (merged.case.time_window.start.isoformat(),
            merged.case.time_window.end.isoformat()) == ("2021-03-04T06:30:00+00:00",
                                                          "2021-03-04T07:00:00+00:00")
    inc = registry / "cases" / "openrca-bank-0000" / "incident"
    series = orjson.loads((inc / "metrics.json").read_bytes())["series"]
    # 5 components x 4 KPIs (metric_container) + 4 app KPIs of ServiceTest1 (metric_app)
    assert len(series) == 24
    stamps = {p[0] for s in series for p in s["points"]}
    assert min(stamps) == "2021-03-04T06:30:00Z" and max(stamps) == "2021-03-04T06:59:00Z"
    assert all(len(s["points"]) == 30 for s in series)
    lines = (inc / "logs" / "Tomcat01.log").read_text().splitlines()
    assert lines and all("2021-03-04T06:3" <= ln[:20] < "2021-03-04T07:00" for ln in lines)
    assert any(" ERROR [catalina] " in ln for ln in lines)


def test_nothing_of_the_ground_truth_reaches_the_workspace(registry: Path) -> None:
    for cid in CASES:
        case_dir = registry / "cases" / cid
        merged = load_case(registry, cid)
        visible = [case_dir / "case.yaml", *sorted((case_dir / "incident").rglob("*"))]
        names = {p.name for p in visible}
        assert not names & {"judge.yaml", "expected.md", "record.csv", "query.csv"}
        text = "\n".join(p.read_text() for p in visible if p.is_file())
        for needle in ("predicted root cause", "within 1 minutes", "scoring_points",
                       merged.judge.ground_truth.root_cause.summary):
            assert needle not in text, (cid, needle)
        # the failure's own time (UTC+8, as the scoring points give it) is never shown
        cst = merged.judge.ground_truth.root_cause.summary.split(" (UTC+8)")[0][3:]
        assert cst[:16] not in text, (cid, cst)


def test_the_oracle_answer_scores_one_and_a_guard_answer_zero(registry: Path) -> None:
    answers = {cid: load_case(registry, cid).judge.ground_truth.root_cause.mechanism
               for cid in CASES}
    scores = openrca_scores(registry, answers)
    assert scores["case_id"].to_list() == CASES
    assert scores["score"].to_list() == [1.0] * 5
    wrong = openrca_scores(registry, {cid: "The root cause is high CPU usage." for cid in CASES})
    assert wrong["score"].to_list() == [0.0] * 5


def test_profile_scores_equal_offline_openrca_on_the_same_answers(registry: Path,
                                                                  tmp_path: Path) -> None:
    obj = '{{"1": {{"root cause occurrence datetime": "{t}", "root cause component": "{c}", ' \
          '"root cause reason": "{r}"}}}}'
    answers = {
        CASES[0]: obj.format(t="2021-03-04 14:57:40", c="Tomcat01", r="x"),     # time hit
        CASES[1]: obj.format(t="", c="Mysql01", r="high memory usage"),         # miss
        CASES[2]: obj.format(t="", c="Redis01", r="high CPU usage"),            # 1 of 2
        CASES[3]: "## Root cause\n" + obj.format(t="2021-03-04 19:06:30", c="apache01",
                                                 r="high disk I/O read usage"),  # time miss
        CASES[4]: "two: " + obj.format(t="2021-03-05 10:20:00", c="", r="x") * 2,  # count
    }
    prof = openrca_scores(registry, answers)
    assert prof["score"].to_list() == [1.0, 0.0, 0.5, 0.67, 0.0]
    query, preds = export_openrca(registry, answers, tmp_path / "exp")
    offline = score_openrca(query, preds).scores
    assert offline["row_id"].to_list() == prof["row_id"].to_list() == [0, 1, 2, 3, 4]
    assert offline.to_dicts() == prof.drop("case_id", "system").to_dicts()
    res = rcaeval("offline", "openrca", "--query", str(query), "--predictions", str(preds),
                  "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["rows"] == 5


def _copy(tmp_path: Path) -> Path:
    dest = tmp_path / "ds"
    shutil.copytree(DATA, dest)
    return dest


def test_a_malformed_telemetry_row_skips_only_its_case(tmp_path: Path) -> None:
    ds = _copy(tmp_path)
    path = ds / "Bank" / "telemetry" / "2021_03_04" / "metric" / "metric_container.csv"
    lines = path.read_text().splitlines(keepends=True)
    # a row inside task 2's half hour (17:30-18:00 UTC+8 = 09:30-10:00 UTC)
    no = next(i for i, ln in enumerate(lines) if ln.startswith("1614850500,"))
    lines[no] = "1614850500,Redis01,broken\n"
    path.write_text("".join(lines))
    res = rcaeval("import", "openrca", str(ds), "--system", "Bank", "--out",
                  str(tmp_path / "reg"), "--json")
    assert res.returncode == 3, res.stdout + res.stderr
    doc = json.loads(res.stdout)
    assert doc["cases"] == [c for c in CASES if c != "openrca-bank-0002"]
    (skip,) = doc["skipped"]
    assert skip["row"] == "query.csv line 6 (row 2)"
    assert skip["reason"] == f"{path}:{no + 1}: 3 fields, the header has 4"
    assert not (tmp_path / "reg" / "cases" / "openrca-bank-0002").exists()
    assert [p.name for p in (tmp_path / "reg" / "cases").iterdir()
            if p.name.startswith(".")] == []


def test_bad_task_rows_and_an_empty_window_are_named(tmp_path: Path) -> None:
    ds = _copy(tmp_path)
    rec = ds / "Bank" / "record.csv"
    text = rec.read_text().splitlines(keepends=True)
    text[2] = text[2].replace(text[2].split(",")[2], "March 4th", 1)  # task 1's timestamp
    rec.write_text("".join(text))
    shutil.rmtree(ds / "Bank" / "telemetry" / "2021_03_05")           # task 4's date
    report = import_openrca(ds, "Bank", tmp_path / "reg")
    assert not report.ok and len(report.cases) == 3
    assert [s.render() for s in report.skipped] == [
        f"query.csv line 4: {rec}:3: unknown timestamp format 'March 4th' in column "
        "'timestamp'",
        "query.csv line 13 (row 4): no telemetry in the window "
        f"2021-03-05T02:00:00Z..2021-03-05T02:30:00Z under {ds}/Bank/telemetry/2021_03_05"]


def test_missing_columns_and_dirs_are_input_errors(tmp_path: Path) -> None:
    ds = _copy(tmp_path)
    q = ds / "Bank" / "query.csv"
    q.write_text(q.read_text().replace("scoring_points", "points", 1))
    res = rcaeval("import", "openrca", str(ds), "--system", "Bank", "--out",
                  str(tmp_path / "reg"))
    assert res.returncode == 3
    assert f"{q}:1: missing column(s) scoring_points" in res.stderr
    with pytest.raises(NotFoundError, match="Nope"):
        import_openrca(ds, "Nope", tmp_path / "reg")


def test_reimport_replaces_cases_whole(registry: Path, tmp_path: Path) -> None:
    root = tmp_path / "reg"
    shutil.copytree(registry, root)
    before = {p.relative_to(root): p.read_bytes() for p in root.rglob("*") if p.is_file()}
    (root / "cases" / CASES[0] / "incident" / "stray.json").write_text("{}")
    again = import_openrca(DATA, "Bank", root)
    assert again.ok and again.cases == CASES
    after = {p.relative_to(root): p.read_bytes() for p in root.rglob("*") if p.is_file()}
    assert after == before
