"""Semantic-shadow settings (:class:`SemanticConfig`) and the versioned judge prompts."""

from __future__ import annotations

import hashlib
import os
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rcaeval._inputs import read_input
from rcaeval.errors import InputError

if TYPE_CHECKING:
    import duckdb

PROVIDERS: tuple[str, ...] = ("none", "command", "openai")
"""Provider kinds. ``command:<cmdline>`` names the command inline."""
DEFAULT_PROMPT = "diagnosis_v1"
"""The judge prompt used unless told otherwise: ``rcaeval/semantic/prompts/<name>.txt``."""
DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_KEY_ENVS: tuple[str, ...] = ("RCAEVAL_SEMANTIC_API_KEY", "OPENAI_API_KEY")
"""Where the ``openai`` provider looks for its key, first set wins."""
DEFAULT_TIMEOUT_S = 60.0
DEFAULT_SAMPLES = 1
DEFAULT_SEED = 0
DEFAULT_JOBS = 4
PROMPTS_DIR = Path(__file__).resolve().parent / "prompts"

_ENV = "RCAEVAL_SEMANTIC_"


@dataclass(frozen=True)
class Prompt:
    """A judge prompt file: ``### system`` and ``### user`` sections; the user section holds
    ``{input_json}`` (the context's ``input``, pretty JSON)."""

    prompt_id: str
    version: str
    system: str
    user: str
    sha256: str

    def messages(self, input_json: str) -> list[dict[str, str]]:
        return [{"role": "system", "content": self.system},
                {"role": "user", "content": self.user.replace("{input_json}", input_json)}]


def _parse_prompt(path: Path) -> Prompt:
    data = read_input(path, "config")
    text = data.decode("utf-8")
    sections: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        if line.startswith("### "):
            current = line[4:].strip().lower()
            sections[current] = []
        elif current is not None:
            sections[current].append(line)
    missing = [s for s in ("system", "user") if s not in sections]
    if missing:
        raise InputError(f"judge prompt lacks section(s) {missing}", file=str(path),
                         field="### system / ### user")
    user = "\n".join(sections["user"]).strip()
    if "{input_json}" not in user:
        raise InputError("judge prompt's user section lacks {input_json}", file=str(path),
                         field="### user")
    stem = path.stem
    prompt_id, _, version = stem.rpartition("_")
    if not prompt_id or not version.startswith("v"):
        prompt_id, version = stem, "v0"
    return Prompt(prompt_id=prompt_id, version=version,
                  system="\n".join(sections["system"]).strip(), user=user,
                  sha256=hashlib.sha256(data).hexdigest())


@cache
def load_prompt(name_or_path: str = DEFAULT_PROMPT) -> Prompt:
    """A packaged prompt by name (``diagnosis_v1``) or a prompt file by path."""
    path = Path(name_or_path)
    if path.suffix != ".txt" and os.sep not in name_or_path:
        path = PROMPTS_DIR / f"{name_or_path}.txt"
        if not path.is_file():
            known = sorted(p.stem for p in PROMPTS_DIR.glob("*.txt"))
            raise InputError(f"unknown judge prompt {name_or_path!r}; packaged: {known}",
                             field="prompt")
    return _parse_prompt(path)


@dataclass(frozen=True)
class SemanticConfig:
    """How to run the semantic shadow.

    ``provider``: ``none`` | ``command:<cmdline>`` (or ``command`` with ``command=``) |
    ``openai``; anything else is recorded as ``unsupported_provider``. ``openai`` talks to any
    OpenAI-compatible ``<base_url>/chat/completions``; its key comes from the environment
    variable ``api_key_env`` (default: ``$RCAEVAL_SEMANTIC_API_KEY``, else
    ``$OPENAI_API_KEY``). ``samples`` independent requests per case (seed ``seed + i``); each
    check's verdict is the majority. ``price_*_per_mtok`` (USD per million tokens) give a cost
    when the server reports none."""

    provider: str = "none"
    model: str | None = None
    base_url: str = DEFAULT_BASE_URL
    api_key_env: str | None = None
    command: tuple[str, ...] = ()
    prompt: str = DEFAULT_PROMPT
    temperature: float = 0.0
    seed: int | None = DEFAULT_SEED
    samples: int = DEFAULT_SAMPLES
    timeout_s: float = DEFAULT_TIMEOUT_S
    jobs: int = DEFAULT_JOBS
    max_tokens: int | None = None
    price_input_per_mtok: float | None = None
    price_output_per_mtok: float | None = None
    use_cache: bool = True
    env: Mapping[str, str] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.samples < 1:
            raise InputError(f"samples must be >= 1, got {self.samples}", field="samples")
        if self.timeout_s <= 0:
            raise InputError(f"timeout must be > 0, got {self.timeout_s}", field="timeout_s")
        if self.jobs < 1:
            raise InputError(f"jobs must be >= 1, got {self.jobs}", field="jobs")
        if not 0.0 <= self.temperature <= 2.0:
            raise InputError(f"temperature must be in [0, 2], got {self.temperature}",
                             field="temperature")
        kind, sep, rest = self.provider.partition(":")
        if sep and kind == "command":
            object.__setattr__(self, "provider", "command")
            object.__setattr__(self, "command", tuple(shlex.split(rest)))

    def shadow(self, con: duckdb.DuckDBPyConnection, frames: Any, *, redecide: Any,
               cases: Mapping[str, Any] | None, out_dir: str | Path | None,
               write_files: bool, judged_at: Any) -> dict[tuple[str, str], dict[str, Any]]:
        """The judge's [shadow] phase for one judged chunk: this config is a
        :class:`rcaeval.judge.Provider` (:func:`rcaeval.semantic.shadow_chunk`)."""
        from rcaeval.semantic._flow import shadow_chunk

        return shadow_chunk(con, frames, config=self, redecide=redecide, cases=cases,
                            out_dir=out_dir, write_files=write_files, judged_at=judged_at)

    @property
    def kind(self) -> str:
        return self.provider

    def environ(self) -> Mapping[str, str]:
        return self.env if self.env is not None else os.environ

    def api_key(self) -> tuple[str | None, str]:
        """``(key or None, where it was looked for)``."""
        names = (self.api_key_env,) if self.api_key_env else DEFAULT_KEY_ENVS
        env = self.environ()
        for name in names:
            if env.get(name):
                return env[name], name
        return None, " or ".join(f"${n}" for n in names)

    def model_name(self) -> str | None:
        if self.provider == "command":
            return shlex.join(self.command) if self.command else None
        return self.model

    @classmethod
    def from_env(cls, provider: str, env: Mapping[str, str] | None = None,
                 **overrides: Any) -> SemanticConfig:
        """Settings from ``$RCAEVAL_SEMANTIC_*`` (MODEL, BASE_URL, API_KEY_ENV, PROMPT,
        TEMPERATURE, SEED, SAMPLES, TIMEOUT, JOBS, MAX_TOKENS, PRICE_INPUT, PRICE_OUTPUT),
        then ``overrides`` (``None`` values ignored). A bad number is an InputError naming
        the variable."""
        source = os.environ if env is None else env
        values: dict[str, Any] = {}
        spec = {
            "model": ("MODEL", str), "base_url": ("BASE_URL", str),
            "api_key_env": ("API_KEY_ENV", str), "prompt": ("PROMPT", str),
            "temperature": ("TEMPERATURE", float), "seed": ("SEED", int),
            "samples": ("SAMPLES", int), "timeout_s": ("TIMEOUT", float),
            "jobs": ("JOBS", int), "max_tokens": ("MAX_TOKENS", int),
            "price_input_per_mtok": ("PRICE_INPUT", float),
            "price_output_per_mtok": ("PRICE_OUTPUT", float),
        }
        for name, (suffix, conv) in spec.items():
            raw = source.get(_ENV + suffix)
            if raw is None or raw == "":
                continue
            try:
                values[name] = conv(raw)
            except ValueError as exc:
                raise InputError(f"not a valid {conv.__name__}: {raw!r}",
                                 field=f"${_ENV}{suffix}") from exc
        values.update({k: v for k, v in overrides.items() if v is not None})
        return replace(cls(provider=provider, env=env), **values)
