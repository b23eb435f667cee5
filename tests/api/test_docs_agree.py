"""The docs agree with the code: every `rcaeval COMMAND` they show exists, every query file
they (and the package's docstrings) point to exists, the README counts the recorded behaviours
the sample has, and docs/results.md's example holds values a results document can hold."""

from __future__ import annotations

import re
from pathlib import Path

import orjson

from rcaeval.cli import command
from rcaeval.release import CASE_TYPES

REPO = Path(__file__).resolve().parents[2]
DOCS = [REPO / "README.md", REPO / "CONTRIBUTING.md", *sorted((REPO / "docs").rglob("*.md"))]
SPAN = re.compile(r"`([^`\n]+)`")
# `rcaeval WORD [WORD]` at the start of a code span or a code-block line (`$ `, `.venv/bin/`
# allowed); words ending in ':' are program output ("rcaeval incident tools: http://…")
COMMAND = re.compile(r"^(?:\$ )?(?:\S*/)?rcaeval ([a-z][a-z_-]*)(?: ([a-z][a-z_-]*)(?!\w))?")
OUTPUT = re.compile(r"^(?:\S*/)?rcaeval [a-z ]+:\s")
QUERY_PATH = re.compile(r"(?<![\w/.])queries/[\w./<>{}*-]+")
NUMBERS = {5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten"}


def _commands_shown() -> list[tuple[str, int, list[str]]]:
    out = []
    for path in DOCS:
        in_block = False
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip().startswith("```"):
                in_block = not in_block
                continue
            texts = [line.strip()] if in_block else SPAN.findall(line)
            for text in texts:
                m = COMMAND.match(text.strip())
                if m and not OUTPUT.match(text.strip()):
                    out.append((str(path.relative_to(REPO)), n, [w for w in m.groups() if w]))
    return out


def test_every_command_the_docs_show_exists() -> None:
    root = command()
    shown = _commands_shown()
    assert len(shown) > 100  # the pattern does find the docs' commands
    bad = []
    for where, n, words in shown:
        cmd = root.commands.get(words[0])
        if cmd is None:
            bad.append(f"{where}:{n}: rcaeval {words[0]} (no such command)")
        elif hasattr(cmd, "commands") and len(words) > 1 and words[1] not in cmd.commands:
            bad.append(f"{where}:{n}: rcaeval {' '.join(words)} (no such subcommand)")
    assert not bad, "\n".join(bad)


def test_every_query_path_named_exists() -> None:
    files = DOCS + sorted((REPO / "rcaeval").rglob("*.py"))
    bad = []
    for path in files:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for m in QUERY_PATH.finditer(line):
                rel = m.group(0).rstrip(".,;:)`'\"")
                parts = rel.split("/")
                # a template (<bucket>, {method}, NAME, NNNN_name, *): its directory must exist
                if any(ch in rel for ch in "<{*") or re.search(r"/[A-Z]{3,}", rel):
                    first = next(i for i, p in enumerate(parts)
                                 if re.search(r"[<{*]|^[A-Z]{3,}", p))
                    ok = REPO.joinpath(*parts[:first]).is_dir()
                else:
                    ok = (REPO / rel).exists()
                if not ok:
                    bad.append(f"{path.relative_to(REPO)}:{n}: {rel}")
    assert not bad, "\n".join(bad)


def test_readme_counts_the_recorded_behaviours() -> None:
    behaviours = sorted(p.name for p in (REPO / "data" / "recorded").glob("rec-*") if p.is_dir())
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    assert f"the {NUMBERS[len(behaviours)]} recorded agent behaviours" in readme, behaviours
    running = " ".join((REPO / "docs" / "running.md").read_text(encoding="utf-8").split())
    assert f"the {NUMBERS[len(behaviours)]} recorded behaviours" in running


def test_results_example_holds_real_values() -> None:
    text = (REPO / "docs" / "results.md").read_text(encoding="utf-8")
    block = text.split("```json\n", 1)[1].split("```", 1)[0]
    doc = orjson.loads(block)
    for case in doc["cases"]:
        assert case["case_type"] in CASE_TYPES, case["case_type"]
        for attempt in case["attempts"]:
            for key in ("score", "raw_score"):
                assert attempt[key] is None or 1 < attempt[key] <= 100, (key, attempt[key])
