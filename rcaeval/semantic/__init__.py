"""The semantic shadow (docs/semantic.md): a second opinion on every diagnosis check from an
LLM (any OpenAI-compatible endpoint) or any command, recorded beside the deterministic
judgment and -- for cases in diagnosis mode ``blended`` whose packet is ``ok`` -- a second
judging pass in which those verdicts decide the diagnosis checks. The deterministic (primary)
judgment is never changed.

Typical use::

    import rcaeval.store as st
    from rcaeval.judge import judge_audit
    from rcaeval.semantic import SemanticConfig, agreement

    s = st.connect()
    cfg = SemanticConfig.from_env("openai", model="gpt-4o-mini", samples=3)
    judge_audit(s, "data/recorded", semantic=cfg)
    agreement(s, "rec-thorough")          # deterministic vs semantic per diagnosis check
"""

from __future__ import annotations

from rcaeval.semantic._agreement import (
    agreement,
    report_lines,
    semantic_summary,
    verdict_comparison,
)
from rcaeval.semantic._config import (
    DEFAULT_PROMPT,
    PROVIDERS,
    Prompt,
    SemanticConfig,
    load_prompt,
)
from rcaeval.semantic._flow import (
    BLENDED_FILE,
    CONTEXT_FILE,
    PACKET_FILE,
    SHADOW_FILES,
    shadow_chunk,
)
from rcaeval.semantic._models import STATUSES, SemanticContext, SemanticPacket
from rcaeval.semantic._view import load_shadow, side_by_side

__all__ = [
    "BLENDED_FILE",
    "CONTEXT_FILE",
    "DEFAULT_PROMPT",
    "PACKET_FILE",
    "PROVIDERS",
    "SHADOW_FILES",
    "STATUSES",
    "Prompt",
    "SemanticConfig",
    "SemanticContext",
    "SemanticPacket",
    "agreement",
    "load_prompt",
    "load_shadow",
    "report_lines",
    "semantic_summary",
    "shadow_chunk",
    "side_by_side",
    "verdict_comparison",
]
