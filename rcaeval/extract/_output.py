"""``raw_output_sentence``: the final answer split into sections and sentences."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pyarrow as pa

from rcaeval.extract._schema import TableBuilder
from rcaeval.grammar import has_causal_cue, heading_kind

_MD_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_BOLD_HEADING = re.compile(r"^\s*\*\*([^*]+?)\*\*\s*[:：]?\s*$")
_BOLD_LABEL = re.compile(r"^\s*\*\*([^*]{1,60}?)\s*(?:[:：]\s*\*\*|\*\*\s*[:：])\s*(\S.*)$")
_COLON_HEADING = re.compile(r"^\s*([^\s\-*+•>#|`\d].{0,39}?)\s*[:：]\s*$")
_LABEL_SPLIT = re.compile(r"^([^:：]{1,60}?)\s*[:：]\s*(\S.*)$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_BULLET = re.compile(r"^\s*(?:>\s*)*(?:[-*+•·]|\d{1,3}[.)]|\(\d{1,3}\))\s+")
_ITEM_NO = re.compile(r"^\s*(?:>\s*)*\(?(\d{1,3})[.)]\s")
_BOUNDARY = re.compile(
    r"[。！？；]+|[.!?;]+(?=[\s\"')\]*_`]|$)|(?P<bullet>\s[•·]\s)")
_TERMINAL_END = re.compile(r"[.!?;:。！？；：]\W*$")
_CONTINUATION_START = re.compile(r"^\s*[a-z0-9(\[\"'`]")
_TABLE_ROW = re.compile(r"^\s*\|")
_ABBREV = {"e.g", "i.e", "vs", "cf", "approx", "fig", "eq", "mr", "mrs", "dr", "st", "etc.,"}
_INITIALS = re.compile(r"^(?:[a-z]\.)+[a-z]$")
_BOLD_LINE = re.compile(r"^\s*(?:[-*+•·]\s+|\d{1,3}[.)]\s+)?\*\*([^*]+?)\*\*\s*$")
_SENTENCE_MARK = re.compile(r"[.!?;,。！？；，]")
_CJK = re.compile(r"[\u3400-\u9fff]")
_LEAD_IN = re.compile(r"^\s*([^\s\-*+•>#|`].{0,199}?)\s*[:：]\s*$")

def classify_section(heading: str) -> str:
    """``alternatives`` / ``root_cause`` / ``other`` for a section heading, by the detector
    grammar's default labels (rcaeval/grammar/defaults.yaml; a heading naming symptoms,
    contributing factors or impact is ``other``). The judge re-classifies headings with each
    detector's own grammar."""
    kind = heading_kind(heading)
    return {"alternatives": "alternatives", "conclusion": "root_cause"}.get(kind, "other")


def _strip_markup(s: str) -> str:
    return s.strip().strip("*_` ").rstrip(":：").strip().strip("*_` ").strip()


def _heading_like(text: str) -> bool:
    """Whether a whole-line bold text reads as a heading rather than a sentence: short (at
    most five words, 40 characters, ten CJK characters), no sentence punctuation and no
    causal cue of the default grammar."""
    return (len(text) <= 40 and len(text.split()) <= 5 and len(_CJK.findall(text)) <= 10
            and not _SENTENCE_MARK.search(text.rstrip(":：")) and not has_causal_cue(text))


def _bold_sentence(line: str) -> str | None:
    """The text of a whole-line bold span (``**...**``) when it is a sentence, not a heading:
    it starts with an inline label (``**Root cause: X**``, ``**结论：X**``; the label then
    scopes it like any ``Label: X`` line) or it does not read as a heading (long, punctuated,
    or carrying a causal cue)."""
    m = _BOLD_LINE.match(line)
    if not m:
        return None
    text = m.group(1).strip()
    lm = _LABEL_SPLIT.match(text)
    if lm and len(lm.group(1).split()) <= 6:
        return text
    if text.endswith((":", "：")) or _heading_like(text):
        return None
    return text


def _lead_in(line: str) -> str | None:
    """A line ending in a colon that introduces a list and names its kind by the default
    labels (alternatives, symptoms, conclusion): "I considered and rejected these:". It scopes
    the list items that follow it, like a heading, and only them."""
    if _BULLET.match(line):
        return None
    m = _LEAD_IN.match(line)
    if not m or len(m.group(1).split()) > 20:
        return None
    text = _strip_markup(m.group(1))
    return text if text and heading_kind(text) != "other" else None


def _heading(line: str) -> tuple[str, str, bool] | None:
    """``(heading, trailing content, colon lead-in)`` when a line opens a section, else
    ``None``.

    ``## Root cause: X`` and ``**Root cause:** X`` both give heading ``Root cause`` and content
    ``X``; a whole-line ``**Heading**`` or a short (≤ 40 chars, ≤ 5 words) non-bullet line
    ending in ``:`` gives just a heading.
    """
    m = _MD_HEADING.match(line)
    if m:
        head = _strip_markup(m.group(1))
        lm = _LABEL_SPLIT.match(head)
        if lm:
            return _strip_markup(lm.group(1)), lm.group(2).strip(), False
        return head, "", False
    m = _BOLD_LABEL.match(line)
    if m:
        return _strip_markup(m.group(1)), m.group(2).strip(), False
    m = _BOLD_HEADING.match(line)
    if m:
        return _strip_markup(m.group(1)), "", False
    m = _COLON_HEADING.match(line)
    if m and len(m.group(1).split()) <= 5 and not re.search(r"[.!?。！？]", m.group(1)):
        return _strip_markup(m.group(1)), "", True
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
    """``("heading", name)``, ``("list_heading", name)``, ``("restore", None)`` and
    ``("sentence", (line_no, text))`` events of a Markdown-ish text. Consecutive soft-wrapped
    lines are joined before sentence splitting; blank lines, bullets, headings, table rows and
    code-fence lines start new paragraphs. A whole-line bold sentence is a paragraph of its
    own. A colon lead-in (a short ``Label:`` line, or a longer line ending in ``:`` whose
    wording names alternatives, symptoms or the conclusion) followed by list items is a
    ``list_heading``: it scopes those items, and the first paragraph after the list is back
    under the enclosing heading (``restore``)."""
    para: list[tuple[int, str]] = []
    lines = [raw.rstrip("\r") for raw in text.split("\n")]
    item: list[str | None] = [None]  # the list item number of the open paragraph

    def flush() -> Iterator[tuple[str, Any]]:
        if not para:
            return
        joined, starts = "", []
        for no, part in para:
            joined += " " if joined else ""
            starts.append((len(joined), no))
            joined += part.strip()
        para.clear()
        number, item[0] = item[0], None
        for a, b in _sentence_spans(joined):
            no = next(n for off, n in reversed(starts) if off <= a)
            yield "sentence", (no, joined[a:b], number)

    def next_is_item(i: int) -> bool:
        for raw in lines[i + 1:]:
            if raw.strip():
                return bool(_BULLET.match(raw))
        return False

    in_fence = False
    lead = None  # None | "pending" (a lead-in, no item yet) | "items" (inside its list)
    in_item = False  # the open paragraph is a list item: a short unindented line ends it
    for no, raw in enumerate(lines, start=1):
        if _FENCE.match(raw):
            yield from flush()
            in_fence = not in_fence
            continue
        if in_fence or _TABLE_ROW.match(raw):
            yield from flush()
            para.append((no, raw))
            yield from flush()
            continue
        bold = _bold_sentence(raw)
        head = None if bold is not None else _heading(raw)
        lead_in = None
        if head is None and bold is None and next_is_item(no - 1):
            lead_in = _lead_in(raw)
            if lead_in is not None:
                head = (lead_in, "", True)
        if head is not None:
            yield from flush()
            name, content, scoped = head
            if headings:
                if scoped and next_is_item(no - 1):
                    lead = "pending"
                    yield "list_heading", name
                else:
                    lead = None
                    yield "heading", name
            else:
                content = " ".join(x for x in (name, content) if x)
            if content:
                para.append((no, content))
                yield from flush()
            continue
        if not raw.strip():
            yield from flush()
            in_item = False
            continue
        bullet = _BULLET.match(raw)
        if (bold is not None or bullet or not para or not _continues(para[-1][1], raw)
                or (in_item and not raw[:1].isspace() and len(para[-1][1].strip()) < 60)):
            yield from flush()
            in_item = bool(bullet)
            if bullet and lead == "pending":
                lead = "items"
            elif not bullet and lead is not None:
                if lead == "items":
                    yield "restore", None
                lead = None
            if bullet:
                num = _ITEM_NO.match(raw)
                item[0] = num.group(1) if num else None
            if bold is not None:
                para.append((no, bold))
                yield from flush()
                continue
            raw = raw[bullet.end():] if bullet else raw
        para.append((no, raw))
    yield from flush()


def flatten_output(output: str | None, followups: list[str] | None = None) -> pa.Table:
    """Sections and sentences of the final answer, then one ``followup-<n>`` section per
    follow-up answer. Text before the first heading is section 0 named ``''``."""
    b = TableBuilder("raw_output_sentence")
    section_idx, section, kind, sent_idx = 0, "", "other", 0
    enclosing = ("", "other")  # the last heading that is not a list lead-in
    for event, value in _blocks(output or "", headings=True):
        if event in ("heading", "list_heading", "restore"):
            if sent_idx or section_idx or section:
                section_idx += 1
            if event == "restore":
                section, kind = enclosing
            else:
                section, kind = value, classify_section(value)
                if event == "heading":
                    enclosing = (section, kind)
            sent_idx = 0
            continue
        b.add(section_idx=section_idx, section=section, section_kind=kind,
              sentence_idx=sent_idx, line_no=value[0], text=value[1], item=value[2])
        sent_idx += 1
    for n, answer in enumerate(followups or (), start=1):
        section_idx += 1
        for sent_idx, (_, (no, sentence, number)) in enumerate(_blocks(answer, headings=False)):
            b.add(section_idx=section_idx, section=f"followup-{n}", section_kind="followup",
                  sentence_idx=sent_idx, line_no=no, text=sentence, item=number)
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
