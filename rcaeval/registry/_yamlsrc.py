"""YAML parsing that remembers where every key and item starts, and maps pydantic errors
onto registry problems naming the file, the YAML line and the dotted field."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from rcaeval._inputs import read_input
from rcaeval.errors import RcaevalError
from rcaeval.registry._common import Problem

YamlPath = tuple[str | int, ...]
M = TypeVar("M", bound=BaseModel)


@dataclass
class YamlDoc:
    """A parsed YAML document with the 1-based line of every key path."""

    file: str
    data: Any
    lines: dict[YamlPath, int] = field(default_factory=dict)

    def line_of(self, path: YamlPath) -> int | None:
        """Line of ``path`` or of its longest known prefix."""
        for n in range(len(path), -1, -1):
            line = self.lines.get(tuple(path[:n]))
            if line is not None:
                return line
        return None


def dotted(path: YamlPath) -> str:
    """``('judge', 'workflow', 'checks', 0, 'id')`` -> ``judge.workflow.checks[0].id``."""
    out = ""
    for seg in path:
        if isinstance(seg, int):
            out += f"[{seg}]"
        else:
            out += f".{seg}" if out else str(seg)
    return out


def _walk(
    node: yaml.Node, path: YamlPath, lines: dict[YamlPath, int], dupes: list[tuple[YamlPath, int]]
) -> None:
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else str(key_node.value)
            if key == "<<":
                continue
            child = (*path, key)
            line = key_node.start_mark.line + 1
            if key in seen:
                dupes.append((child, line))
            seen.add(key)
            lines[child] = line  # the last occurrence wins, as in the constructed data
            _walk(value_node, child, lines, dupes)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            child = (*path, i)
            lines[child] = item.start_mark.line + 1
            _walk(item, child, lines, dupes)


MAX_EXPANDED_NODES = 100_000
"""A document whose node count with every alias expanded exceeds this is refused (an
anchor/alias "billion laughs" bomb would otherwise make the line walk and every later pass
over the data exponential). Real registry files have a few hundred nodes."""


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _alias_problem(root: yaml.Node, rel: str) -> Problem | None:
    """A problem when aliases make the document recursive or expand it past
    :data:`MAX_EXPANDED_NODES`; names the outermost key whose value is that large."""
    cap = MAX_EXPANDED_NODES + 1
    size: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:  # iterative post-order over the node graph, each node once
        node, done = stack.pop()
        nid = id(node)
        if done:
            on_path.discard(nid)
            size[nid] = min(cap, 1 + sum(size[id(c)] for c in _children(node)))
            continue
        if nid in size:
            continue
        if nid in on_path:
            line = node.start_mark.line + 1
            return Problem(rel, line, "", "yaml_syntax",
                           f"YAML alias at line {line} refers to a node containing itself "
                           "(recursive anchor)")
        on_path.add(nid)
        stack.append((node, True))
        stack.extend((c, False) for c in _children(node) if id(c) not in size)
    if size[id(root)] < cap:
        return None
    path: YamlPath = ()
    line = root.start_mark.line + 1
    node: yaml.Node | None = root
    while isinstance(node, yaml.MappingNode):  # descend through keys to the offending value
        nxt = next(((k, v) for k, v in node.value
                    if size[id(v)] >= cap and isinstance(k, yaml.ScalarNode)), None)
        node = None
        if nxt is not None:
            path, line, node = (*path, nxt[0].value), nxt[0].start_mark.line + 1, nxt[1]
    return Problem(rel, line, dotted(path), "yaml_syntax",
                   f"YAML aliases expand to more than {MAX_EXPANDED_NODES} nodes "
                   "(anchor/alias bomb?); the file is not loaded")


def _field_on_line(text: str, line: int, rel: str) -> str:
    """The dotted key that starts on ``line`` of ``text`` (best effort: "" when the text does
    not parse). ``text`` must already be free of what made the real parse fail."""
    field_name = ""
    try:
        loader = yaml.SafeLoader(text)
        try:
            node = loader.get_single_node()
        finally:
            loader.dispose()
        if node is not None and _alias_problem(node, rel) is None:
            lines: dict[YamlPath, int] = {}
            _walk(node, (), lines, [])
            on_line = [p for p, n in lines.items() if n == line]
            if on_line:
                field_name = dotted(max(on_line, key=len))
    except (yaml.YAMLError, RecursionError):
        pass
    return field_name


def _not_utf8(data: bytes, exc: UnicodeDecodeError, rel: str) -> Problem:
    """Name the line, column and (when the rest parses) the key of the first bad byte."""
    line = data.count(b"\n", 0, exc.start) + 1
    col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
    field_name = _field_on_line(data.decode("utf-8", errors="replace"), line, rel)
    bad = data[exc.start:exc.end].hex(" ")
    return Problem(rel, line, field_name, "unreadable",
                   f"not valid UTF-8: byte(s) {bad} at line {line}, column {col} "
                   f"(byte offset {exc.start}); registry files must be UTF-8")


def _control_char(text: str, exc: yaml.reader.ReaderError, rel: str) -> Problem:
    """YAML allows no control characters but tab/newline: name the line, column and key."""
    pos = max(0, min(int(exc.position), len(text)))
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    field_name = _field_on_line(yaml.reader.Reader.NON_PRINTABLE.sub(" ", text), line, rel)
    char = exc.character if isinstance(exc.character, str) else chr(int(exc.character))
    return Problem(rel, line, field_name, "unreadable",
                   f"control character U+{ord(char):04X} at line {line}, column {col} is not "
                   "allowed in YAML (only tab and newlines are)")


_FAST_LOADER = getattr(yaml, "CSafeLoader", None)
"""PyYAML's libyaml-backed safe loader, when PyYAML was built with it: the same nodes, marks
and constructed data as :class:`yaml.SafeLoader`, about ten times faster (a judge loads every
case's case.yaml and judge.yaml)."""


def _compose_fast(text: str) -> tuple[yaml.Node | None, Any] | None:
    """``(node, data)`` of ``text`` parsed by libyaml, or None when libyaml is not available or
    the text is anything but a plain, loadable document (a character the pure-Python reader
    refuses, a syntax error, an alias problem, deep nesting): :func:`parse_yaml` then parses
    it with the pure-Python loader, whose problems and messages are the registry's."""
    if _FAST_LOADER is None or yaml.reader.Reader.NON_PRINTABLE.search(text):
        return None
    loader = _FAST_LOADER(text)
    try:
        node = loader.get_single_node()
        if node is not None and _alias_problem(node, "") is not None:
            return None
        return node, (loader.construct_document(node) if node is not None else None)
    except (yaml.YAMLError, RecursionError):
        return None
    finally:
        loader.dispose()


def parse_yaml(path: Path, rel: str) -> tuple[YamlDoc | None, list[Problem]]:
    """Parse one YAML file. Syntax errors, unreadable or non-UTF-8 files, alias bombs,
    excessive nesting and duplicate keys are problems."""
    try:  # a regular file within the registry cap: never a FIFO or /dev/urandom
        data_bytes = read_input(path, "registry")
    except RcaevalError as exc:
        return None, [Problem(rel, None, "", "unreadable",
                              f"cannot read file: {getattr(exc, 'message', exc)}")]
    try:
        text = data_bytes.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, [_not_utf8(data_bytes, exc, rel)]
    fast = _compose_fast(text)
    if fast is not None:
        return _document(rel, *fast)
    try:
        loader = yaml.SafeLoader(text)
    except yaml.reader.ReaderError as exc:  # a control character (NUL, ESC, ...) in the text
        return None, [_control_char(text, exc, rel)]
    try:
        node = loader.get_single_node()
        bomb = _alias_problem(node, rel) if node is not None else None
        if bomb is not None:
            return None, [bomb]
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        msg = " ".join(str(p) for p in (exc.context, exc.problem) if p)
        return None, [Problem(rel, line, "", "yaml_syntax", f"YAML syntax error: {msg}")]
    except yaml.YAMLError as exc:
        return None, [Problem(rel, None, "", "yaml_syntax", f"YAML error: {exc}")]
    except RecursionError:
        return None, [Problem(rel, None, "", "yaml_syntax",
                              "YAML nesting is too deep to load")]
    finally:
        loader.dispose()
    return _document(rel, node, data)


def _document(rel: str, node: yaml.Node | None, data: Any
              ) -> tuple[YamlDoc | None, list[Problem]]:
    """The :class:`YamlDoc` of a parsed document (lines of every key path), with its duplicate
    key problems, or None when it is not a mapping."""
    doc = YamlDoc(rel, data)
    problems: list[Problem] = []
    if node is not None:
        doc.lines[()] = node.start_mark.line + 1
        dupes: list[tuple[YamlPath, int]] = []
        _walk(node, (), doc.lines, dupes)
        for dpath, line in dupes:
            is_id = len(dpath) >= 2 and dpath[-2] == "detectors"
            what = f"detector id {dpath[-1]!r}" if is_id else f"key {dpath[-1]!r}"
            problems.append(
                Problem(rel, line, dotted(dpath), "duplicate_id" if is_id else "duplicate_key",
                        f"{what} appears twice in the same mapping")
            )
    if not isinstance(data, dict):
        kind = "empty" if data is None else type(data).__name__
        problems.append(
            Problem(rel, doc.lines.get(()), "", "not_a_mapping",
                    f"the document must be a YAML mapping (got {kind})")
        )
        return None, problems
    bad = _escaped_controls(doc) + _huge_integers(doc)
    if bad:
        return None, problems + bad
    return doc, problems


_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
"""What no registry text may hold, however it is written (a YAML escape such as ``"\\0"``
or ``"\\x1b[2J"`` included): C0 and C1 control characters except tab and newlines, DEL,
and lone surrogates."""


def _escaped_controls(doc: YamlDoc) -> list[Problem]:
    """A problem for every key or string value of ``doc`` holding a :data:`_CONTROL`
    character (the reader refuses them only when they are written raw)."""
    out: list[Problem] = []
    stack: list[tuple[Any, YamlPath]] = [(doc.data, ())]
    while stack and len(out) < 10:
        cur, path = stack.pop()
        if isinstance(cur, dict):
            for k, v in cur.items():
                if isinstance(k, str) and _CONTROL.search(k):
                    out.append(_control_problem(doc, path, k, "key"))
                stack.append((v, (*path, k if isinstance(k, str | int) else str(k))))
        elif isinstance(cur, list):
            stack.extend((v, (*path, i)) for i, v in enumerate(cur))
        elif isinstance(cur, str) and _CONTROL.search(cur):
            out.append(_control_problem(doc, path, cur, "value"))
    return sorted(out, key=lambda p: (p.line or 0, p.field))


INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def _huge_integers(doc: YamlDoc) -> list[Problem]:
    """A problem for every integer of ``doc`` outside the signed 64-bit range: no field
    takes one, and it could be neither hashed (``rules_hash``) nor stored."""
    out: list[Problem] = []
    stack: list[tuple[Any, YamlPath]] = [(doc.data, ())]
    while stack and len(out) < 10:
        cur, path = stack.pop()
        if isinstance(cur, dict):
            stack.extend((v, (*path, k if isinstance(k, str | int) else str(k)))
                         for k, v in cur.items())
        elif isinstance(cur, list):
            stack.extend((v, (*path, i)) for i, v in enumerate(cur))
        elif isinstance(cur, int) and not isinstance(cur, bool) and not (
                INT64_MIN <= cur <= INT64_MAX):
            digits = len(str(abs(cur)))
            out.append(Problem(doc.file, doc.line_of(path), dotted(path), "out_of_range",
                               f"the integer ({digits} digits) is outside the 64-bit range"))
    return sorted(out, key=lambda p: (p.line or 0, p.field))


def _control_problem(doc: YamlDoc, path: YamlPath, text: str, what: str) -> Problem:
    found = _CONTROL.search(text)
    code = ord(found.group(0)) if found else 0
    return Problem(doc.file, doc.line_of(path), dotted(path), "unreadable",
                   f"the {what} holds control character U+{code:04X} (written as a YAML "
                   "escape); only tab and newlines are allowed")


def _error_path(data: Any, loc: tuple[str | int, ...]) -> tuple[YamlPath, str | None]:
    """Walk ``loc`` through the data; drop union-tag segments. Returns (path, dict-key-error)."""
    path: list[str | int] = []
    cur = data
    for i, seg in enumerate(loc):
        last = i == len(loc) - 1
        if seg == "[key]":
            return tuple(path), str(path[-1]) if path else None
        if isinstance(cur, dict) and seg in cur:
            cur = cur[seg]
            path.append(seg)
        elif isinstance(cur, list) and isinstance(seg, int) and 0 <= seg < len(cur):
            cur = cur[seg]
            path.append(seg)
        elif last and isinstance(seg, str):
            path.append(seg)  # a missing field: name it, line of its parent
        # else: a union tag or validator marker; it is not part of the YAML path
    return tuple(path), None


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def problems_from_validation(doc: YamlDoc, exc: ValidationError) -> list[Problem]:
    """One problem per pydantic error, named by dotted field and YAML line."""
    problems: list[Problem] = []
    for err in exc.errors(include_url=False):
        path, bad_key = _error_path(doc.data, tuple(err["loc"]))
        field_name = dotted(path)
        line = doc.line_of(path)
        etype = err["type"]
        if bad_key is not None:
            code, msg = "invalid_id", f"invalid key {bad_key!r}: {err['msg']}"
        elif etype == "missing":
            code, msg = "missing_field", f"missing required field {str(path[-1])!r}"
        elif etype == "extra_forbidden":
            code, msg = "unknown_field", f"unknown field {str(path[-1])!r} is not allowed here"
        elif etype in ("condition_kind", "evidence_condition_kind"):
            given = err.get("input")
            if etype == "condition_kind" and isinstance(given, dict) and "method" in given:
                code = "evidence_method_scope"
                msg = (f"evidence method {given['method']!r} is allowed only in "
                       "judge.critical_evidence checks")
            else:
                code, msg = "invalid_condition", str(err["msg"])
        else:
            code = "invalid_value"
            msg = str(err["msg"])
            if msg.startswith("Value error, "):
                msg = msg[len("Value error, "):]
            elif "input" in err and not isinstance(err["input"], dict | list):
                msg += f" (got {_short(err['input'])})"
        problems.append(Problem(doc.file, line, field_name, code, msg))
    return problems


def validate_doc(model: type[M], doc: YamlDoc) -> tuple[M | None, list[Problem]]:
    """Validate a parsed document against ``model``; errors become problems."""
    try:
        return model.model_validate(doc.data), []
    except ValidationError as exc:
        return None, problems_from_validation(doc, exc)
