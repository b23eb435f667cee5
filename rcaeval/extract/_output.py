"""``raw_output_sentence``: the final answer split into sections and sentences."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pyarrow as pa

from rcaeval.extract._schema import TableBuilder
from rcaeval.grammar import heading_kind

_MD_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_BOLD_HEADING = re.compile(r"^\s*\*\*([^*]+?)\*\*\s*[:：]?\s*$")
_BOLD_LABEL = re.compile(r"^\s*\*\*([^*]{1,60}?)\s*(?:[:：]\s*\*\*|\*\*\s*[:：])\s*(\S.*)$")
_COLON_HEADING = re.compile(r"^\s*([^\s\-*+•>#|`\d].{0,39}?)\s*[:：]\s*$")
_LABEL_SPLIT = re.compile(r"^([^:：]{1,60}?)\s*[:：]\s*(\S.*)$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_BULLET = re.compile(r"^\s*(?:>\s*)*(?:[-*+•·]|\d{1,3}[.)])\s+")
_BOUNDARY = re.compile(
    r"[。！？；]+|[.!?;]+(?=[\s\"')\]*_`]|$)|(?P<bullet>\s[•·]\s)")
_TERMINAL_END = re.compile(r"[.!?;:。！？；：]\W*$")
_CONTINUATION_START = re.compile(r"^\s*[a-z0-9(\[\"'`]")
_TABLE_ROW = re.compile(r"^\s*\|")
_ABBREV = {"e.g", "i.e", "vs", "cf", "approx", "fig", "eq", "mr", "mrs", "dr", "st", "etc.,"}
_INITIALS = re.compile(r"^(?:[a-z]\.)+[a-z]$")

def classify_section(heading: str) -> str:
    """``alternatives`` / ``root_cause`` / ``other`` for a section heading, by the detector
    grammar's default labels (rcaeval/grammar/defaults.yaml; a heading naming symptoms,
    contributing factors or impact is ``other``). The judge re-classifies headings with each
    detector's own grammar."""
    kind = heading_kind(heading)
    return {"alternatives": "alternatives", "conclusion": "root_cause"}.get(kind, "other")


def _strip_markup(s: str) -> str:
    return s.strip().strip("*_` ").rstrip(":：").strip().strip("*_` ").strip()


def _heading(line: str) -> tuple[str, str] | None:
    """``(heading, trailing content)`` when a line opens a section, else ``None``.

    ``## Root cause: X`` and ``**Root cause:** X`` both give heading ``Root cause`` and content
    ``X``; a whole-line ``**Heading**`` or a short (≤ 40 chars, ≤ 5 words) non-bullet line
    ending in ``:`` gives just a heading.
    """
    m = _MD_HEADING.match(line)
    if m:
        head = _strip_markup(m.group(1))
        lm = _LABEL_SPLIT.match(head)
        if lm:
            return _strip_markup(lm.group(1)), lm.group(2).strip()
        return head, ""
    m = _BOLD_LABEL.match(line)
    if m:
        return _strip_markup(m.group(1)), m.group(2).strip()
    m = _BOLD_HEADING.match(line)
    if m:
        return _strip_markup(m.group(1)), ""
    m = _COLON_HEADING.match(line)
    if m and len(m.group(1).split()) <= 5 and not re.search(r"[.!?。！？]", m.group(1)):
        return _strip_markup(m.group(1)), ""
    return None


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each sentence of ``text`` (whitespace-trimmed; fragments without a
    letter or digit dropped)."""
    cuts: list[tuple[int, int]] = []  # (end of this sentence, start of the next)
    start = 0
    for m in _BOUNDARY.finditer(text):
        if m.group("bullet"):
            cuts.append((m.start(), m.end()))
        else:
            if m.group() == ".":
                word = text[start:m.start()].rsplit(None, 1)
                token = word[-1].lstrip("([\"'").lower() if word else ""
                if token in _ABBREV or _INITIALS.match(token):
                    continue
            cuts.append((m.end(), m.end()))
        start = cuts[-1][1]
    cuts.append((len(text), len(text)))
    spans: list[tuple[int, int]] = []
    begin = 0
    for end, nxt in cuts:
        seg = text[begin:end]
        if any(ch.isalnum() for ch in seg):
            lead = len(seg) - len(seg.lstrip())
            spans.append((begin + lead, begin + len(seg.rstrip())))
        begin = nxt
    return spans


def split_sentences(line: str) -> list[str]:
    """Sentences of one line: a leading bullet stripped, split after ``. ! ? ;`` (followed by
    space or end), after ``。！？；`` and at inline ``•``; decimals/versions (``v8.5.2``) and
    abbreviations (``e.g.``) stay intact."""
    line = _BULLET.sub("", line, count=1)
    return [line[a:b] for a, b in _sentence_spans(line)]


def _continues(prev: str, line: str) -> bool:
    """Whether ``line`` soft-wraps the previous paragraph line (Markdown hard wrap): the
    previous line has no closing punctuation and this one starts in lower case, with a digit
    or a bracket, or the previous line is long (≥ 60 chars)."""
    if _TERMINAL_END.search(prev):
        return False
    return bool(_CONTINUATION_START.match(line)) or len(prev.strip()) >= 60


def _blocks(text: str, headings: bool) -> Iterator[tuple[str, Any]]:
    """``("heading", name)`` and ``("sentence", (line_no, text))`` events of a Markdown-ish
    text. Consecutive soft-wrapped lines are joined before sentence splitting; blank lines,
    bullets, headings, table rows and code-fence lines start new paragraphs."""
    para: list[tuple[int, str]] = []

    def flush() -> Iterator[tuple[str, Any]]:
        if not para:
            return
        joined, starts = "", []
        for no, part in para:
            joined += " " if joined else ""
            starts.append((len(joined), no))
            joined += part.strip()
        para.clear()
        for a, b in _sentence_spans(joined):
            no = next(n for off, n in reversed(starts) if off <= a)
            yield "sentence", (no, joined[a:b])

    in_fence = False
    for no, raw in enumerate(text.split("\n"), start=1):
        raw = raw.rstrip("\r")
        if _FENCE.match(raw):
            yield from flush()
            in_fence = not in_fence
            continue
        if in_fence or _TABLE_ROW.match(raw):
            yield from flush()
            para.append((no, raw))
            yield from flush()
            continue
        head = _heading(raw)
        if head is not None:
            yield from flush()
            if headings:
                yield "heading", head[0]
                content = head[1]
            else:
                content = " ".join(x for x in head if x)
            if content:
                para.append((no, content))
                yield from flush()
            continue
        if not raw.strip():
            yield from flush()
            continue
        bullet = _BULLET.match(raw)
        if bullet or not para or not _continues(para[-1][1], raw):
            yield from flush()
            raw = raw[bullet.end():] if bullet else raw
        para.append((no, raw))
    yield from flush()


def flatten_output(output: str | None, followups: list[str] | None = None) -> pa.Table:
    """Sections and sentences of the final answer, then one ``followup-<n>`` section per
    follow-up answer. Text before the first heading is section 0 named ``''``."""
    b = TableBuilder("raw_output_sentence")
    section_idx, section, kind, sent_idx = 0, "", "other", 0
    for event, value in _blocks(output or "", headings=True):
        if event == "heading":
            if sent_idx or section_idx or section:
                section_idx += 1
            section, kind, sent_idx = value, classify_section(value), 0
            continue
        b.add(section_idx=section_idx, section=section, section_kind=kind,
              sentence_idx=sent_idx, line_no=value[0], text=value[1])
        sent_idx += 1
    for n, answer in enumerate(followups or (), start=1):
        section_idx += 1
        for sent_idx, (_, (no, sentence)) in enumerate(_blocks(answer, headings=False)):
            b.add(section_idx=section_idx, section=f"followup-{n}", section_kind="followup",
                  sentence_idx=sent_idx, line_no=no, text=sentence)
    return b.finish()


def transcript_answers(obj: Any) -> list[str]:
    """Assistant turn texts of ``transcript.json`` (a list of ``{turn, role, text}`` or an
    object with a ``turns`` list), in order."""
    turns = obj.get("turns") if isinstance(obj, dict) else obj
    if not isinstance(turns, list):
        return []
    return [t["text"] for t in turns
            if isinstance(t, dict) and t.get("role") == "assistant"
            and isinstance(t.get("text"), str)]
