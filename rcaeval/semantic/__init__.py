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

Per case: :func:`load_shadow` (or :func:`load_shadows` for a whole run), rendered by
:func:`side_by_side` (rich, ``rcaeval explain``) or :func:`side_by_side_html` (the run page's
drill-down; ``rcaeval.judge.explain_html(packet, shadow)`` appends it to the case's tree).
"""

from __future__ import annotations

from rcaeval.semantic._agreement import (
    agreement,
    blended_verdicts,
    report_lines,
    verdict_comparison,
)
from rcaeval.semantic._config import (
    Prompt,
    SemanticConfig,
)
from rcaeval.semantic._flow import (
    SHADOW_FILES,
)
from rcaeval.semantic._models import SemanticContext, SemanticPacket
from rcaeval.semantic._view import load_shadow, load_shadows, side_by_side, side_by_side_html

__all__ = [
    "SHADOW_FILES",
    "Prompt",
    "SemanticConfig",
    "SemanticContext",
    "SemanticPacket",
    "agreement",
    "blended_verdicts",
    "load_shadow",
    "load_shadows",
    "report_lines",
    "side_by_side",
    "side_by_side_html",
    "verdict_comparison",
]
