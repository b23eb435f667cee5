"""`rcaeval report` and `rcaeval baseline promote|diff|show` in-process through the CLI."""

from __future__ import annotations

import pytest
from report_kit import Env

from rcaeval.cli import main


def _close(env: Env) -> list[str]:
    env.store.close()  # the CLI opens the file itself
    return ["--db", str(env.db), "--registry", str(env.registry)]


def test_report_cli_prints_paths(env: Env, capsys: pytest.CaptureFixture[str]) -> None:
    opts = _close(env)
    out = env.root / "rep"
    assert main(["report", "worse-1", *opts, "--out", str(out)]) == 0
    assert capsys.readouterr().out.splitlines() == [str(out / "report.txt"),
                                                    str(out / "report_detail.txt")]
    assert (out / "report.txt").read_text().startswith("rcaeval run report: worse-1")


def test_report_cli_unknown_run_exits_6(env: Env, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "nope", *_close(env), "--out", str(env.root / "x")]) == 6
    assert "not in the store" in capsys.readouterr().err


def test_promote_diff_cycle(env: Env, capsys: pytest.CaptureFixture[str]) -> None:
    opts = _close(env)
    assert main(["baseline", "promote", "base-1", *opts, "--audit-root", str(env.audits)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed == [str(env.registry / "baselines" / "smoke.yaml"),
                       str(env.registry / "baselines" / "runs" / "base-1")]

    assert main(["baseline", "diff", "rerun-1", *opts]) == 0
    assert "result:        OK: no regression" in capsys.readouterr().out

    md = env.root / "diff.md"
    assert main(["baseline", "diff", "worse-1", *opts, "--format", "markdown",
                 "--out", str(md)]) == 4
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "regression against baseline base-1" in captured.err
    text = md.read_text()
    assert "| `case-b` | **regressed** | pass → fail |" in text

    assert main(["baseline", "diff", "worse-1", *opts, "--format", "json"]) == 4
    assert '"result": "regression"' in capsys.readouterr().out

    assert main(["baseline", "show", "smoke", "--registry", str(env.registry)]) == 0
    shown = capsys.readouterr().out.splitlines()
    assert shown[0].startswith("suite smoke 1.0: run base-1")
    assert shown[2].split() == ["case", "verdict", "score", "subtype", "eligible"]
    assert any(line.split()[:2] == ["case-b", "pass"] for line in shown[3:])


def test_promote_cli_refusal_exits_3(env: Env, capsys: pytest.CaptureFixture[str]) -> None:
    from report_kit import BASE_CASES, add_run

    add_run(env.store, "running-1", BASE_CASES, status="running")
    assert main(["baseline", "promote", "running-1", *_close(env)]) == 3
    assert "refusing to promote run 'running-1'" in capsys.readouterr().err


def test_diff_cli_bad_format_exits_3(env: Env, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["baseline", "diff", "worse-1", *_close(env), "--format", "xml"]) == 3
