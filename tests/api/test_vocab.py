"""One home for each name list and default (rcaeval/_vocab.py): no other module writes one of
them again, the places that must match them do, and _vocab imports nothing."""

from __future__ import annotations

import ast
from pathlib import Path

from rcaeval import _vocab as V

PKG = Path(__file__).resolve().parents[2] / "rcaeval"

# Each list as a set of strings: a literal tuple/list/set/frozenset elsewhere in rcaeval with
# the same strings (in any order) is that list written again.
_LISTS = {
    "BUCKETS": V.BUCKETS,
    "DEFAULTABLE_BUCKETS": V.DEFAULTABLE_BUCKETS,
    "REQUIRED_BY_DEFAULT": tuple(V.REQUIRED_BY_DEFAULT),
    "EVIDENCE_METHODS": V.EVIDENCE_METHODS,
    "BUNDLE_CHANNELS": V.BUNDLE_CHANNELS,
    "VERDICTS": V.VERDICTS,
    "CASE_OUTCOMES": V.CASE_OUTCOMES,
    "EVIDENCE_CHANNELS": V.EVIDENCE_CHANNELS,
}
_CONSTANTS = {"DEFAULT_CHUNK_SIZE", *(_LISTS)}


def _modules():
    for path in sorted(PKG.rglob("*.py")):
        if path.name != "_vocab.py":
            yield path, ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _string_elements(node: ast.AST) -> tuple[str, ...] | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args \
            and node.func.id in {"frozenset", "set", "tuple", "list"}:
        node = node.args[0]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and len(node.elts) >= 3 and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
        return tuple(e.value for e in node.elts)  # type: ignore[union-attr]
    return None


def test_no_module_writes_a_vocabulary_list_again():
    again = []
    for path, tree in _modules():
        for node in ast.walk(tree):
            items = _string_elements(node)
            if items is None:
                continue
            for name, words in _LISTS.items():
                if set(items) == set(words):
                    again.append(f"{path.relative_to(PKG.parent)}:{node.lineno} writes {name}")
    assert not again, "derive these from rcaeval._vocab instead: " + "; ".join(again)


def test_no_module_assigns_a_vocabulary_name():
    """``BUCKETS = ...`` / ``DEFAULT_CHUNK_SIZE = 1000`` elsewhere would be a second home, even
    when its value is derived (import the name instead)."""
    again = []
    for path, tree in _modules():
        for node in ast.walk(tree):
            targets = node.targets if isinstance(node, ast.Assign) else (
                [node.target] if isinstance(node, ast.AnnAssign) else [])
            for t in targets:
                if isinstance(t, ast.Name) and t.id in _CONSTANTS:
                    again.append(f"{path.relative_to(PKG.parent)}:{node.lineno} {t.id}")
    assert not again, again


def test_no_sql_bucket_list_in_python():
    """The bucket order as a DuckDB list literal is ``_vocab.BUCKETS_SQL_LIST``."""
    needle = "'contract', 'workflow'"
    hits = [str(p.relative_to(PKG.parent)) for p in PKG.rglob("*.py")
            if p.name != "_vocab.py" and needle in p.read_text(encoding="utf-8")]
    assert not hits, hits


def test_vocab_imports_nothing():
    tree = ast.parse((PKG / "_vocab.py").read_text(encoding="utf-8"))
    imports = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert not imports, "rcaeval/_vocab.py must stay dependency-free"


def test_derived_places_agree():
    import rcaeval.bundle
    import rcaeval.judge
    import rcaeval.registry as R
    import rcaeval.store
    from rcaeval._paths import queries_dir

    assert rcaeval.store.BUCKET_ORDER == V.BUCKETS
    assert rcaeval.judge.BUCKETS == V.BUCKETS
    assert rcaeval.judge.DEFAULT_CHUNK_SIZE == V.DEFAULT_CHUNK_SIZE
    assert rcaeval.bundle.CHANNELS == V.BUNDLE_CHANNELS
    # one SQL file per bucket, and no bucket file without its name in the list
    assert sorted(p.stem for p in (queries_dir() / "buckets").glob("*.sql")) == sorted(V.BUCKETS)
    # the registry's typed evidence-method models are exactly the listed methods
    from rcaeval.registry._conditions import EvidenceMethod

    models = EvidenceMethod.__args__
    assert [m.model_fields["method"].annotation.__args__[0] for m in models] \
        == list(V.EVIDENCE_METHODS)
    assert set(R.JudgeSpec.model_json_schema()["$defs"]) >= {m.__name__ for m in models}


def test_chunk_size_default_reaches_the_cli_and_api():
    import inspect

    from typer.main import get_command

    from rcaeval.cli import app
    from rcaeval.judge import judge_audit

    assert inspect.signature(judge_audit).parameters["chunk_size"].default == V.DEFAULT_CHUNK_SIZE
    judge = get_command(app).commands["judge"]  # type: ignore[attr-defined]
    opt = next(p for p in judge.params if p.name == "chunk_size")
    assert opt.default == V.DEFAULT_CHUNK_SIZE


def test_eval_judgment_rows_have_the_table_shape():
    """The Arrow schema of the eval_judgment rows (judged and unloadable cases alike) is the
    table's column list."""
    import duckdb

    from rcaeval._paths import queries_dir
    from rcaeval.judge._packet import EVAL_JUDGMENT_SCHEMA

    con = duckdb.connect(":memory:")
    for path in sorted((queries_dir() / "migrations").glob("*.sql")):
        con.execute(path.read_text(encoding="utf-8"))
    cols = [r[0] for r in con.execute("DESCRIBE eval_judgment").fetchall()]
    assert EVAL_JUDGMENT_SCHEMA.names == cols
