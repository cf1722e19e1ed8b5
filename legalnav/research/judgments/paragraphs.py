"""A judgment's numbered paragraphs and its sentences: the units every other reading of the text
(parent chunks, citations, findings) points back to."""

from __future__ import annotations

import re
from dataclasses import dataclass

# "1.  Petitioner Masud Khan prays …", "12. In view of …", "105. For the reasons …"
_NUMBERED = re.compile(r"^[ \t]*(\d{1,3})\.[ \t]+(?=\S)", re.MULTILINE)
_HEADING_LINE = re.compile(r"^[ \t]*([A-Z][A-Za-z0-9 ,:;'’()\-–]{2,80})[ \t]*$", re.MULTILINE)


@dataclass(slots=True)
class Paragraph:
    number: int  # as printed ("12." -> 12); unnumbered text gets 0 (the header) or follows on
    start: int  # offsets into the judgment text, end exclusive
    end: int
    numbered: bool = True
    heading: str = ""  # the section heading printed just above it, if any ("Discussion")

    @property
    def label(self) -> str:
        return f"¶{self.number}" if self.numbered else "header"


def paragraphs(text: str) -> list[Paragraph]:
    """The judgment's numbered paragraphs, in order, each running to the next one (quotations
    and unnumbered continuation lines stay with the paragraph that introduces them).

    A number must continue the sequence (1, 2, 3 …; a skip of a few is tolerated, for
    paragraphs lost in the report) so that a "2." that only starts a line inside a quoted list
    does not open a paragraph. The text before paragraph 1 is the header (number 0)."""
    found: list[tuple[int, int]] = []  # (number, start)
    expected = 1
    for m in _NUMBERED.finditer(text):
        n = int(m.group(1))
        if not found:
            if n > 3:
                continue
        elif not (expected <= n <= expected + 3):
            continue
        found.append((n, m.start()))
        expected = n + 1
    out: list[Paragraph] = []
    if not found:
        return out
    first = found[0][1]
    if text[:first].strip():
        out.append(Paragraph(0, 0, first, numbered=False))
    for i, (n, start) in enumerate(found):
        end = found[i + 1][1] if i + 1 < len(found) else len(text)
        out.append(Paragraph(n, start, _rstrip(text, start, end)))
    # A heading line that closes a paragraph ("Discussion" above 40.) belongs to the next one.
    for i in range(1, len(out)):
        prev, cur = out[i - 1], out[i]
        tail = text[prev.start : prev.end]
        matches = list(_HEADING_LINE.finditer(tail))
        last = matches[-1] if matches else None
        if last is not None and last.end() >= len(tail.rstrip()) and _is_heading(last.group(1)):
            cut = prev.start + last.start()
            if cut > prev.start:
                cur.heading = last.group(1).strip()
                prev.end = _rstrip(text, prev.start, cut)
    return out


def _rstrip(text: str, start: int, end: int) -> int:
    while end > start and text[end - 1].isspace():
        end -= 1
    return end


_NOT_HEADINGS = re.compile(r"^(?:Appeals? (?:allowed|dismissed)|Order accordingly)", re.I)


def _is_heading(line: str) -> bool:
    words = line.split()
    if not 1 <= len(words) <= 8 or line.rstrip().endswith((".", ",", ";", ":")):
        return False
    if _NOT_HEADINGS.match(line):
        return False
    return sum(1 for w in words if w[:1].isupper()) >= max(1, len(words) // 2)


def paragraph_at(paras: list[Paragraph], offset: int) -> Paragraph | None:
    """The paragraph holding a character offset (None before the first one)."""
    lo, hi = 0, len(paras)
    while lo < hi:
        mid = (lo + hi) // 2
        if paras[mid].start <= offset:
            lo = mid + 1
        else:
            hi = mid
    if lo == 0:
        return None
    return paras[lo - 1]


_SENTENCE_END = re.compile(
    r"(?<!\bv)(?<!\bvs)(?<!\bNo)(?<!\bno)(?<!\bArt)(?<!\bs)(?<!\bss)(?<!\bSec)(?<!\bCr)(?<!\bAnr)(?<!\bOrs)"
    r"(?<!\bpp)(?<!\bp)(?<!\bpara)(?<!\bparas)(?<!\bJ)(?<!\bMr)(?<!\bMrs)(?<!\bDr)(?<!\bSh)(?<!\bSmt)(?<!\bLtd)(?<!\bCo)(?<!\bInc)(?<!\bBros)(?<!\bCorpn)(?<!\bviz)(?<!\bi\.e)(?<!\be\.g)"
    r"(?<![A-Z])[.;?!](?=\s+[A-Z(“\"']|\s*\n)"
)


def sentences(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """(start, end) spans of the sentences in text[start:end], abbreviations ("v.", "No.",
    "s.", "Art.", initials) not ending one."""
    end = len(text) if end is None else end
    out: list[tuple[int, int]] = []
    pos = start
    for m in _SENTENCE_END.finditer(text, start, end):
        stop = m.end()
        if text[pos:stop].strip():
            a = pos
            while a < stop and text[a].isspace():
                a += 1
            out.append((a, stop))
        pos = stop
    if text[pos:end].strip():
        a = pos
        while a < end and text[a].isspace():
            a += 1
        out.append((a, _rstrip(text, a, end)))
    return out
