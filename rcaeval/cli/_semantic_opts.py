"""The `--semantic*` options shared by `rcaeval judge` and `rcaeval run` (docs/semantic.md).
Defined once here; each command declares them with these annotated types."""

from __future__ import annotations

from typing import Annotated, Any

import typer

_PANEL = "Semantic shadow (docs/semantic.md)"

SemanticOpt = Annotated[str | None, typer.Option(
    "--semantic", metavar="PROVIDER", rich_help_panel=_PANEL, show_default=False,
    help="Run the semantic shadow with PROVIDER: none | command:<cmdline> | openai. Writes "
    "semantic_context_v1.json / semantic_packet_v1.json per case; blended cases whose packet "
    "is ok get judgment_blended.json. The deterministic judgment never changes.")]
SemanticModelOpt = Annotated[str | None, typer.Option(
    "--semantic-model", rich_help_panel=_PANEL, show_default=False,
    help="Model for --semantic openai (default: $RCAEVAL_SEMANTIC_MODEL).")]
SemanticUrlOpt = Annotated[str | None, typer.Option(
    "--semantic-base-url", rich_help_panel=_PANEL, show_default=False,
    help="OpenAI-compatible base URL, e.g. http://localhost:11434/v1 (default: "
    "$RCAEVAL_SEMANTIC_BASE_URL, else https://api.openai.com/v1). The key comes from "
    "$RCAEVAL_SEMANTIC_API_KEY or $OPENAI_API_KEY.")]
SemanticSamplesOpt = Annotated[int | None, typer.Option(
    "--semantic-samples", min=1, rich_help_panel=_PANEL, show_default=False,
    help="Samples per case; each check's verdict is the majority (default: "
    "$RCAEVAL_SEMANTIC_SAMPLES, else 1).")]
SemanticTimeoutOpt = Annotated[float | None, typer.Option(
    "--semantic-timeout", min=0.001, rich_help_panel=_PANEL, show_default=False,
    help="Seconds per provider request (default: $RCAEVAL_SEMANTIC_TIMEOUT, else 60).")]


def semantic_config(provider: str | None, *, model: str | None = None,
                    base_url: str | None = None, samples: int | None = None,
                    timeout: float | None = None) -> Any:
    """The :class:`rcaeval.semantic.SemanticConfig` for the options, or None without
    ``--semantic``. Other settings come from ``$RCAEVAL_SEMANTIC_*``."""
    if provider is None:
        return None
    from rcaeval.semantic import SemanticConfig

    return SemanticConfig.from_env(provider, model=model, base_url=base_url, samples=samples,
                                   timeout_s=timeout)
