"""Page furniture and layout: which lines of an extracted text are page numbers, page breaks and
running headers, and how to turn a span of the text into clean verbatim node text.

Pure functions over strings; no Django.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

_PAGE_BREAK = re.compile(r"^(?:-{10,}|_{10,}|={10,}|\*{10,}|\f+|<PAGE>\s*\d*)$", re.IGNORECASE)
_PAGE_NUMBER = re.compile(
    r"^(?:page\s+)?[-–—(]?\s*(?:\d{1,4}|[ivxlc]{1,7}|[A-Z]{1,2}-\d{1,3}|\d{1,3}-\d{1,3})\s*[-–—)]?"
    r"(?:\s+of\s+\d{1,4})?$",
    re.IGNORECASE,
)
_SPACES = re.compile(r"[ \t\u00a0\u2002\u2003\u2009]+")


@dataclass(slots=True)
class Line:
    index: int
    start: int  # offset of the first character of the raw line
    end: int  # offset just past the raw line's last character (before the newline)
    raw: str
    text: str  # stripped
    artifact: bool = False  # page number, page break or running header/footer

    @property
    def blank(self) -> bool:
        return not self.text

    @property
    def content_start(self) -> int:
        """Offset of the first non-blank character of the line."""
        return self.start + (len(self.raw) - len(self.raw.lstrip()))

    @property
    def content_end(self) -> int:
        return self.start + len(self.raw.rstrip())


def split_lines(text: str) -> list[Line]:
    """Split on "\\n" only (str.splitlines also breaks on form feeds and other separators, which
    would shift offsets relative to what the protocol calls a line)."""
    lines: list[Line] = []
    pos = 0
    n = len(text)
    i = 0
    while pos <= n:
        nl = text.find("\n", pos)
        end = n if nl == -1 else nl
        raw = text[pos:end]
        if raw.endswith("\r"):
            raw = raw[:-1]
        lines.append(Line(i, pos, pos + len(raw), raw, raw.strip(" \t\r\u00a0\u200b\ufeff")))
        i += 1
        if nl == -1:
            break
        pos = nl + 1
    return lines


def mark_artifacts(lines: list[Line]) -> None:
    """Mark page breaks, page numbers and running headers/footers as artifacts.

    A page number only counts near a page break (or, in a text without breaks, alone between
    blank lines), so that a lone "5" inside a table survives. A running header is a short line
    that repeats at least three times, mostly right next to page breaks; only the occurrences
    next to a break are removed.
    """
    breaks = [ln.index for ln in lines if ln.text and _PAGE_BREAK.match(ln.text)]
    for i in breaks:
        lines[i].artifact = True
    has_breaks = bool(breaks)

    near: set[int] = set()
    for b in breaks:
        for direction in (-1, 1):
            seen = 0
            j = b + direction
            while 0 <= j < len(lines) and seen < 4:
                if lines[j].text:
                    near.add(j)
                    seen += 1
                j += direction

    for ln in lines:
        if ln.artifact or not ln.text or len(ln.text) > 24:
            continue
        if _PAGE_NUMBER.match(ln.text):
            if ln.index in near:
                ln.artifact = True
            elif not has_breaks:
                prev_blank = ln.index == 0 or lines[ln.index - 1].blank
                next_blank = ln.index + 1 >= len(lines) or lines[ln.index + 1].blank
                if prev_blank and next_blank and ln.text.isdigit():
                    ln.artifact = True

    if not has_breaks:
        return
    counts = Counter(ln.text for ln in lines if ln.text and len(ln.text) <= 120 and not ln.artifact)
    repeated = {t for t, c in counts.items() if c >= 3}
    if not repeated:
        return
    near_counts: Counter[str] = Counter()
    for i in near:
        if lines[i].text in repeated:
            near_counts[lines[i].text] += 1
    running = {t for t in repeated if near_counts[t] >= max(3, 0.5 * counts[t])}
    for i in near:
        if lines[i].text in running:
            lines[i].artifact = True


# Where a long line holds several provisions (a PDF page or an HTML paragraph flattened into one
# line, as in many CUAD contracts), a new provision starts after a sentence end or a wide gap.
_INLINE_START = re.compile(
    r"(?:(?<=[.:;])\s+|\s{3,})(?="
    r"\d{1,3}(?:\.\d{1,3})+\.?\s+[A-Z“\"(]"
    r"|\d{1,3}\.\s+[A-Z“\"]"
    r"|\((?:[a-z]{1,4}|[A-Z]|\d{1,2})\)\s+\S"
    r"|(?:Section|SECTION|ARTICLE|Article)\s+[\dIVX]"
    r"|(?:SCHEDULE|EXHIBIT|ANNEX|APPENDIX)\s+[A-Z0-9]"
    r"|WHEREAS\b|IN WITNESS WHEREOF|NOW,? THEREFORE"
    r"|[“\"][A-Z][^”\"]{0,80}[”\"]\s+(?:means|shall mean)\b"
    r")"
)
LONG_LINE = 250


def split_long_lines(lines: list[Line]) -> list[Line]:
    """Cut lines longer than LONG_LINE where a numbered provision starts inside them.

    The pieces keep exact offsets into the text, so nodes built from them still point at the
    source. Ordinary hard-wrapped lines (about 80 characters) are never touched.
    """
    if not any(len(ln.raw) > LONG_LINE for ln in lines):
        return lines
    out: list[Line] = []
    for ln in lines:
        cuts = [0]
        if len(ln.raw) > LONG_LINE and not ln.artifact:
            cuts += [m.end() for m in _INLINE_START.finditer(ln.raw)]
        cuts.append(len(ln.raw))
        for a, b in zip(cuts, cuts[1:], strict=False):
            if b <= a:
                continue
            raw = ln.raw[a:b]
            if a and not raw.strip():
                continue
            out.append(
                Line(
                    len(out),
                    ln.start + a,
                    ln.start + b,
                    raw,
                    raw.strip(" \t\r\u00a0\u200b\ufeff"),
                    ln.artifact,
                )
            )
    return out


def wrap_width(lines: list[Line]) -> int:
    """The width at which the text was hard-wrapped (90th percentile of line lengths)."""
    lengths = sorted(len(ln.text) for ln in lines if ln.text and not ln.artifact)
    if not lengths:
        return 80
    return max(40, lengths[int(len(lengths) * 0.9)])


_END_CHARS = frozenset('.:;!?”"’)]')


def ends_sentence(text: str) -> bool:
    # An endswith test, not a regex: a "$"-anchored search scans the whole line.
    text = text.rstrip()
    return bool(text) and (
        text[-1] in _END_CHARS or text.endswith(("; and", "; or", ", and", ", or", "—", "–"))
    )


_CONTINUES = re.compile(
    r"(?:\b(?:in|of|to|the|a|an|by|with|under|pursuant|and|or|for|from|at|on|as|than|that|which|"
    r"per|into|upon|its|their|such|any|each|this|Section|Sections|Article|Articles|Schedule|"
    r"Exhibit|clause|clauses|paragraph)|[,(])$"
)


def continues(text: str) -> bool:
    """A line that ends mid-phrase ("… given to it in", "… pursuant to Section") runs on."""
    return bool(_CONTINUES.search(text[-24:]))


_ENUM_START = re.compile(
    r"^(?:\(\w{1,5}\)|[“\"]|\d+(?:\.\d+)*\.?\s|[A-Z]\.\s|Section\s|SECTION\s|ARTICLE\s)"
)


def clean_span(lines: list[Line], first: int, last: int, start: int, end: int, width: int) -> str:
    """Verbatim text of [start, end) with page furniture dropped and layout line breaks joined.

    ``first``..``last`` are the indexes of the lines the span touches. A line break is kept as a
    paragraph break where the source shows one (a blank line, or a short line ending a sentence
    followed by an enumerated or quoted item); a blank gap left by a page break in mid-sentence
    is joined.
    """
    paragraphs: list[list[str]] = []
    current: list[str] = []
    gap = False  # blank line(s) since the last content line
    gap_was_page_break = False
    prev_line: Line | None = None
    for i in range(first, last + 1):
        ln = lines[i]
        if ln.artifact:
            gap_was_page_break = True
            continue
        if not ln.text:
            gap = True
            continue
        s = max(ln.start, start)
        e = min(ln.end, end)
        if s >= e:
            continue
        piece = ln.raw[s - ln.start : e - ln.start].strip()
        if not piece:
            continue
        piece = _SPACES.sub(" ", piece)
        if current and prev_line is not None:
            prev_text = current[-1]
            breaks = False
            if gap:
                # A blank run caused by a page break in mid-sentence does not end a paragraph.
                breaks = not (
                    gap_was_page_break and not ends_sentence(prev_text) and piece[:1].islower()
                )
            elif ends_sentence(prev_text) and (
                len(prev_line.text) < width - 12 or _ENUM_START.match(piece)
            ):
                breaks = True
            if breaks:
                paragraphs.append(current)
                current = []
        current.append(piece)
        prev_line = ln
        gap = False
        gap_was_page_break = False
    if current:
        paragraphs.append(current)
    out = []
    for para in paragraphs:
        buf = para[0]
        for piece in para[1:]:
            if buf.endswith("-") and len(buf) > 1 and buf[-2].isalpha() and piece[:1].isalpha():
                buf += piece
            else:
                buf += " " + piece
        out.append(buf)
    return "\n".join(out)


def tidy(raw: str) -> str:
    """A readable version of an arbitrary slice of a document: page furniture dropped, layout
    line breaks joined. For ranges that are not a single node (a heading with its sub-clauses)."""
    lines = split_lines(raw)
    mark_artifacts(lines)
    return _SPACES.sub(
        " ", " ".join(ln.text for ln in lines if ln.text and not ln.artifact)
    ).strip()
