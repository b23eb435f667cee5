"""JSONPath-lite patterns (``$``, ``.key``, ``[N]``, ``[*]``) compiled for matching against
``raw_json.path``.

Extraction writes the path of every JSON value as ``$.key`` for identifier keys, ``[N]`` for
array indices and ``["odd key"]`` (JSON-quoted) for other keys (``rcaeval.extract``). A rule
path is rendered the same way, then compiled into:

* ``star``: the path with every index written ``[*]``. ``raw_json.path`` with its indices
  replaced by ``[*]`` equals ``star`` for every candidate value, so SQL matches by equality (a
  hash join) and never compiles a regex per row;
* ``has_index``: whether the rule names an explicit ``[N]``; only then is the regex needed;
* ``regex`` / ``prefix_regex``: RE2 for the exact path / the path or anything under it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import orjson

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
_STEP = re.compile(r"""\.([^.\[\]\s]+)|\[(\d+|\*)\]|\[("(?:[^"\\]|\\.)*")\]""")


@dataclass(frozen=True)
class CompiledPath:
    path: str
    star: str
    has_index: bool
    regex: str
    prefix_regex: str


def _key_step(key: str) -> str:
    if _IDENT.match(key):
        return f".{key}"
    return f"[{orjson.dumps(key).decode('utf-8')}]"


def compile_path(path: str) -> CompiledPath:
    """Compile a JSONPath-lite path; ``ValueError`` when it is not JSONPath-lite."""
    if not path.startswith("$"):
        raise ValueError(f"JSONPath-lite must start with '$': {path!r}")
    pos = 1
    rendered: list[str] = []
    star: list[str] = []
    regex: list[str] = []
    has_index = False
    while pos < len(path):
        m = _STEP.match(path, pos)
        if m is None:
            raise ValueError(f"not JSONPath-lite at offset {pos}: {path!r}")
        key, index, quoted = m.groups()
        if key is not None or quoted is not None:
            name = key if key is not None else orjson.loads(quoted)
            step = _key_step(name)
            rendered.append(step)
            star.append(step)
            regex.append(re.escape(step))
        elif index == "*":
            rendered.append("[*]")
            star.append("[*]")
            regex.append(r"\[\d+\]")
        else:
            has_index = True
            rendered.append(f"[{index}]")
            star.append("[*]")
            regex.append(re.escape(f"[{index}]"))
        pos = m.end()
    body = "".join(regex)
    return CompiledPath(
        path="$" + "".join(rendered),
        star="$" + "".join(star),
        has_index=has_index,
        regex=r"^\$" + body + "$",
        prefix_regex=r"^\$" + body + r"(?:$|[.\[])",
    )
