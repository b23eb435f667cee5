"""Loading a registry directory: suites, cases (merged with their judge), baselines.

Whole-registry loading collects every problem instead of stopping at the first; the
single-item loaders raise :class:`RegistryError` (an ``InputError``, exit code 3) or
``NotFoundError`` (exit code 6).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from rcaeval._paths import registry_dir
from rcaeval.errors import NotFoundError
from rcaeval.grammar import Grammar
from rcaeval.registry._baseline import BaselineSpec
from rcaeval.registry._case import CaseSpec
from rcaeval.registry._common import Problem, RegistryError, sort_problems
from rcaeval.registry._defaults import apply_defaults
from rcaeval.registry._drafts import draft_warnings
from rcaeval.registry._incident import incident_problems
from rcaeval.registry._judge import JudgeSpec, apply_registry_grammar
from rcaeval.registry._lint import (
    id_mismatch,
    lint_baseline,
    lint_case_id_leak,
    lint_judge,
    lint_suite,
    strip_judge_only,
)
from rcaeval.registry._merged import MergedCase
from rcaeval.registry._suite import SuiteCase, SuiteSpec
from rcaeval.registry._yamlsrc import parse_yaml, validate_doc

YAML_SUFFIXES = (".yaml", ".yml")


def resolve_registry_dir(root: Path | str | None) -> Path:
    """``root``, else the default registry (``$RCAEVAL_REGISTRY`` or ``<data>/registry``);
    :class:`NotFoundError` when it does not exist, :class:`InputError` when it is a file."""
    from rcaeval._inputs import require_dir

    path = Path(root) if root is not None else registry_dir()
    return require_dir(path, "registry", field="--registry")


def _rel(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def _yaml_files(directory: Path) -> list[Path]:
    if not directory.is_dir():
        return []
    # not only regular files: a suite that is a FIFO, a device or a dangling symlink is a
    # problem parse_yaml reports (rcaeval._inputs), never silently skipped
    return sorted(
        p for p in directory.iterdir()
        if p.suffix in YAML_SUFFIXES and not p.name.startswith(".") and not p.is_dir()
    )


def _case_dirs(root: Path) -> list[Path]:
    cases = root / "cases"
    if not cases.is_dir():
        return []
    return sorted(p for p in cases.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))


def load_case_dir(root: Path, case_dir: Path) -> tuple[MergedCase | None, list[Problem]]:
    """Load ``cases/<id>/{case,judge}.yaml``; returns the merged case (None on any problem)
    and every problem found."""
    name = case_dir.name
    case_path, judge_path = case_dir / "case.yaml", case_dir / "judge.yaml"
    rel_case, rel_judge = _rel(root, case_path), _rel(root, judge_path)
    problems: list[Problem] = []
    if not case_path.is_file():
        if judge_path.is_file():
            problems.append(Problem(rel_judge, None, "", "orphan_judge",
                                    "judge.yaml without a matching case.yaml"))
        else:
            problems.append(Problem(rel_case, None, "", "missing_file",
                                    "case directory has no case.yaml"))
        return None, problems

    case: CaseSpec | None = None
    doc, found = parse_yaml(case_path, rel_case)
    problems += found
    if doc is not None:
        doc, found = strip_judge_only(doc)
        problems += found
        case, found = validate_doc(CaseSpec, doc)
        problems += found
        if case is not None:
            problems += id_mismatch(doc, "case_id", case.case_id, name, "directory name")
            if case.incident_data and not (case_dir / case.incident_data).is_dir():
                problems.append(Problem(rel_case, doc.line_of(("incident_data",)),
                                        "incident_data", "missing_incident_data",
                                        f"incident_data dir {case.incident_data!r} does not "
                                        "exist in the case dir"))
            problems += incident_problems(case_dir, rel_case, case.incident_data,
                                          doc.line_of(("incident_data",))
                                          if case.incident_data else None)

    judge: JudgeSpec | None = None
    if not judge_path.is_file():
        problems.append(Problem(rel_judge, None, "", "missing_file",
                                "case has no judge.yaml, so it cannot be judged"))
    else:
        jdoc, found = parse_yaml(judge_path, rel_judge)
        problems += found
        if jdoc is not None:
            judge, found = validate_doc(JudgeSpec, jdoc)
            problems += found
            problems += lint_judge(jdoc)
            if judge is not None:
                problems += id_mismatch(jdoc, "case_id", judge.case_id, name, "directory name")

    grammar, found = registry_grammar(root)
    problems += found
    if problems or case is None or judge is None:
        return None, sort_problems(problems)
    expected = case_dir / "expected.md"
    merged = MergedCase(
        case=case,
        judge=apply_registry_grammar(apply_defaults(judge), grammar),
        case_dir=case_dir,
        incident_dir=case_dir / case.incident_data if case.incident_data else None,
        expected_md=expected if expected.is_file() else None,
    )
    return merged, []


GRAMMAR_FILE = "grammar.yaml"
"""A registry's extension of the detector grammar (optional, at the registry root)."""


def registry_grammar(root: Path) -> tuple[Grammar | None, list[Problem]]:
    """The registry's ``grammar.yaml`` (None when absent) and its problems."""
    path = root / GRAMMAR_FILE
    if not path.is_file():
        return None, []
    doc, found = parse_yaml(path, GRAMMAR_FILE)
    if doc is None:
        return None, found
    grammar, more = validate_doc(Grammar, doc)
    return grammar, found + more


def _suite_path(root: Path, suite_id: str) -> Path | None:
    """The one suite file of ``suite_id``; a :class:`RegistryError` when another suite file
    declares the same ``suite_id`` (``validate`` reports it too: a run must not pick one)."""
    found = [p for p in (root / "suites" / f"{suite_id}{s}" for s in YAML_SUFFIXES)
             if os.path.lexists(p) and not p.is_dir()]
    if not found:
        return None
    others = []
    for path in _yaml_files(root / "suites"):
        if path == found[0]:
            continue
        if path in found or _declared_suite_id(path) == suite_id:
            others.append(_rel(root, path))
    if others:
        raise RegistryError([Problem(
            _rel(root, found[0]), None, "suite_id", "duplicate_id",
            f"suite_id {suite_id!r} is also defined in {', '.join(others)}")], root=str(root))
    return found[0]


def _declared_suite_id(path: Path) -> str | None:
    """The ``suite_id`` a suite file declares, when it parses (else ``None``)."""
    doc, _ = parse_yaml(path, path.name)
    value = doc.data.get("suite_id") if doc is not None else None
    return value if isinstance(value, str) else None


def _known_case_ids(root: Path) -> set[str]:
    return {d.name for d in _case_dirs(root) if (d / "case.yaml").is_file()}


def _load_suite_file(
    root: Path, path: Path, case_ids: set[str]
) -> tuple[SuiteSpec | None, list[Problem], int | None]:
    """The suite, its problems and the line of its ``suite_id``."""
    rel = _rel(root, path)
    doc, problems = parse_yaml(path, rel)
    if doc is None:
        return None, problems, None
    spec, found = validate_doc(SuiteSpec, doc)
    problems += found
    if spec is not None:
        problems += lint_suite(doc, spec, path.stem, case_ids)
    return spec, problems, doc.line_of(("suite_id",))


def load_suite(root: Path | str | None, suite_id: str) -> SuiteSpec:
    """Load and validate ``suites/<suite_id>.yaml`` (including that its cases exist)."""
    base = resolve_registry_dir(root)
    path = _suite_path(base, suite_id)
    if path is None:
        known = sorted(p.stem for p in _yaml_files(base / "suites"))
        raise NotFoundError(
            f"suite {suite_id!r} not found in {base / 'suites'} (known: {', '.join(known) or '-'})"
        )
    spec, problems, _ = _load_suite_file(base, path, _known_case_ids(base))
    if problems or spec is None:
        raise RegistryError(problems, root=str(base))
    return spec


def load_case(root: Path | str | None, case_id: str) -> MergedCase:
    """Load one case merged with its judge (defaults applied)."""
    base = resolve_registry_dir(root)
    case_dir = base / "cases" / case_id
    if not case_dir.is_dir():
        raise NotFoundError(f"case {case_id!r} not found: {case_dir} does not exist")
    merged, problems = load_case_dir(base, case_dir)
    if merged is None:
        raise RegistryError(problems, root=str(base))
    return merged


@dataclass(frozen=True)
class SuiteCaseEntry:
    """One case of a suite: its suite entry and either the merged case or its problems."""

    entry: SuiteCase
    case: MergedCase | None
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.case is not None


def iter_suite_cases(root: Path | str | None, suite_id: str) -> Iterator[SuiteCaseEntry]:
    """The cases of a suite in suite order. A broken case is yielded with its problems (so a
    runner marks it ``invalid`` with a reason) rather than raising."""
    base = resolve_registry_dir(root)
    suite = load_suite(base, suite_id)
    for entry in suite.cases:
        case_dir = base / "cases" / entry.id
        merged, problems = load_case_dir(base, case_dir)
        yield SuiteCaseEntry(entry, merged, problems)


@dataclass
class Registry:
    """Everything in a registry directory that loaded cleanly, plus every problem found.

    ``problems`` are errors (``ok`` is False when there is any); ``warnings`` are risks that
    break nothing (severity ``warning``, e.g. ``case_id_leaks_ground_truth``)."""

    root: Path
    suites: dict[str, SuiteSpec] = field(default_factory=dict)
    cases: dict[str, MergedCase] = field(default_factory=dict)
    baselines: dict[str, BaselineSpec] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    case_problems: dict[str, list[Problem]] = field(default_factory=dict)
    warnings: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        return (f"{len(self.suites)} suites, {len(self.cases) + len(self.case_problems)} cases, "
                f"{len(self.baselines)} baselines")


def load_registry(root: Path | str | None = None, *, examples: bool = False) -> Registry:
    """Load every suite, case and baseline, collecting problems instead of stopping.
    ``examples=True`` also judges every detector example of the cases that loaded (one judge
    pass on an in-memory store; what ``rcaeval validate`` does) and adds a
    ``detector_example`` error for each one its detector disagrees with."""
    base = resolve_registry_dir(root)
    reg = Registry(root=base)
    problems: list[Problem] = []
    for sub in ("suites", "cases"):
        if not (base / sub).is_dir():
            problems.append(Problem(sub, None, "", "missing_dir",
                                    f"the registry has no {sub}/ directory"))

    case_ids: set[str] = set()
    for case_dir in _case_dirs(base):
        merged, found = load_case_dir(base, case_dir)
        if (case_dir / "case.yaml").is_file():
            case_ids.add(case_dir.name)
        if merged is not None:
            reg.cases[case_dir.name] = merged
        elif found and (case_dir / "case.yaml").is_file():
            reg.case_problems[case_dir.name] = found
        problems += found

    first_file: dict[str, str] = {}
    for path in _yaml_files(base / "suites"):
        spec, found, line = _load_suite_file(base, path, case_ids)
        problems += found
        if spec is None:
            continue
        rel = _rel(base, path)
        if spec.suite_id in first_file:
            problems.append(Problem(rel, line, "suite_id", "duplicate_id",
                                    f"suite_id {spec.suite_id!r} is also defined in "
                                    f"{first_file[spec.suite_id]}"))
            continue
        first_file[spec.suite_id] = rel
        reg.suites[spec.suite_id] = spec

    for path in _yaml_files(base / "baselines"):
        rel = _rel(base, path)
        doc, found = parse_yaml(path, rel)
        problems += found
        if doc is None:
            continue
        spec_b, found = validate_doc(BaselineSpec, doc)
        problems += found
        if spec_b is None:
            continue
        found = lint_baseline(doc, spec_b, path.stem, reg.suites, case_ids)
        problems += found
        if not found:
            reg.baselines[spec_b.suite_id] = spec_b

    warnings: list[Problem] = []
    for merged in reg.cases.values():
        rel = _rel(base, merged.case_dir / "case.yaml")
        warnings += lint_case_id_leak(merged, rel, _key_line(merged.case_dir / "case.yaml",
                                                             "case_id"))
        warnings += draft_warnings(base, merged)
        from rcaeval.prove import lint_unreachable

        warnings += lint_unreachable(merged, _rel(base, merged.case_dir / "judge.yaml"))
    if examples and reg.cases:
        from rcaeval.authoring import example_problems

        problems += example_problems(base, reg.cases.values())

    reg.problems = sort_problems([p for p in problems if p.severity == "error"])
    reg.warnings = sort_problems([p for p in problems if p.severity != "error"] + warnings)
    return reg


def _key_line(path: Path, key: str) -> int | None:
    """The 1-based line of a top-level ``key:`` in a YAML file (None if not found)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    for i, text in enumerate(lines, start=1):
        if text.startswith(f"{key}:"):
            return i
    return None


def validate_registry(
    root: Path | str | None = None, *, warnings: bool = False, examples: bool = True
) -> list[Problem]:
    """Every error in a registry, sorted deterministically (empty when it is clean); with
    ``warnings=True`` the warnings too (each problem's ``severity`` tells them apart).
    ``examples``: judge the detector examples too (see :func:`load_registry`)."""
    reg = load_registry(root, examples=examples)
    return sort_problems(reg.problems + reg.warnings) if warnings else reg.problems
