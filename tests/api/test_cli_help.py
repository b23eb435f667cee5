"""Every `rcaeval … --help` fits 80 columns with every option name in full, no type
placeholders (`<bool>`, `<str>`), and the `--timeout` help agrees with docs/running.md."""

from __future__ import annotations

import re

import pytest

from rcaeval.cli import command, main


def _commands(cmd, path=()):
    subs = getattr(cmd, "commands", {})
    if not subs:
        yield path, cmd
    for name, sub in subs.items():
        yield from _commands(sub, (*path, name))


COMMANDS = list(_commands(command()))


@pytest.mark.parametrize("path,cmd", COMMANDS, ids=[" ".join(p) for p, _ in COMMANDS])
def test_help_fits_80_columns_with_full_option_names(path, cmd, monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "80")
    assert main([*path, "--help"]) == 0
    text = capsys.readouterr().out
    assert text.strip()
    for line in text.splitlines():
        assert len(line) <= 80, line
    assert "…" not in text
    assert not re.search(r"<(bool|str|path|int|float|list)", text), text
    for param in cmd.params:
        for opt in (*getattr(param, "opts", ()), *getattr(param, "secondary_opts", ())):
            if opt.startswith("--"):
                assert re.search(rf"(^|[\s,/;]){re.escape(opt)}(\s|$|,|=)", text, re.M), \
                    f"{opt} missing or cut in `rcaeval {' '.join(path)} --help`"


def test_timeout_help_matches_the_docs(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "80")
    main(["run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "overriding case.yaml's execution.timeout_s" in text
    assert "wins" not in text
