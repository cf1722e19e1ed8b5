"""Parent chunks: runs of whole consecutive paragraphs, cut at headings and at a size limit, that
keep a line of reasoning together; a retrieved paragraph is shown with its parent."""

from __future__ import annotations

import re
from dataclasses import dataclass

from legalnav.research.judgments.paragraphs import Paragraph, paragraphs

PARENT_TARGET_CHARS = 3500
PARENT_MAX_CHARS = 6000


@dataclass(slots=True)
class ParentChunk:
    id: str  # "P0" is the header; "P1", "P2" … in order
    start: int
    end: int
    first: int  # first and last paragraph numbers in it
    last: int
    heading: str = ""

    @property
    def label(self) -> str:
        if self.first == 0 and self.last == 0:
            return "header"
        return f"¶{self.first}" if self.first == self.last else f"¶¶{self.first}–{self.last}"


def parent_chunks(
    text: str,
    paras: list[Paragraph] | None = None,
    *,
    target: int = PARENT_TARGET_CHARS,
    limit: int = PARENT_MAX_CHARS,
) -> list[ParentChunk]:
    """Runs of whole consecutive paragraphs that keep a line of reasoning together.

    A new parent starts at a printed section heading ("Discussion", "Ground 2"), and once the
    current one has reached ``target`` characters, or would pass ``limit`` with the next
    paragraph. A paragraph is never split: one longer than ``limit`` is a parent of its own.
    A judgment without numbered paragraphs is cut at blank lines the same way."""
    paras = paragraphs(text) if paras is None else paras
    if not paras:
        paras = _blank_line_blocks(text)
    out: list[ParentChunk] = []
    cur: list[Paragraph] = []

    def close() -> None:
        if not cur:
            return
        first, last = cur[0], cur[-1]
        ident = (
            "P0"
            if first.number == 0 and not first.numbered
            else f"P{len(out) + (0 if out and out[0].id == 'P0' else 1)}"
        )
        out.append(
            ParentChunk(ident, first.start, last.end, first.number, last.number, first.heading)
        )
        cur.clear()

    for p in paras:
        if not p.numbered and p.number == 0:
            close()
            cur.append(p)
            close()
            continue
        size = (cur[-1].end - cur[0].start) if cur else 0
        if cur and (p.heading or size >= target or size + (p.end - p.start) > limit):
            close()
        cur.append(p)
    close()
    return out


def _blank_line_blocks(text: str) -> list[Paragraph]:
    out: list[Paragraph] = []
    n = 0
    for m in re.finditer(r"\S(?:.|\n(?![ \t]*\n))*", text):
        n += 1
        out.append(Paragraph(n, m.start(), m.end(), numbered=False))
    return out
