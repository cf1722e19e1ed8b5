"""Render a parsed HTML tree to lines of text the way a browser lays it out.

Block elements start new lines, visible vertical margins become blank lines,
table rows with several filled cells are flattened onto one line, and CSS page
breaks, ``<hr>`` and EDGAR ``<PAGE>`` tags become :data:`_PB` sentinels.
"""

from __future__ import annotations

import re
from typing import Any, Final

from .lines import _PB, _WS_RE

#: Table-cell separator inside a line; a private-use character so whitespace
#: collapsing leaves it alone, replaced by two spaces when the line is finished.
_CELL: Final = "\ue000"
_CELL_RE: Final = re.compile(r"\s*(?:\ue000\s*)+")

_DROP_TAGS: Final = frozenset(
    {"script", "style", "head", "title", "meta", "link", "noscript", "template", "ix:header"}
)
#: Blocks that a browser separates from their neighbours by a margin (a blank
#: line in text) unless the inline style zeroes it.
_GAP_BLOCKS: Final = frozenset(
    {
        "p",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "blockquote",
        "pre",
        "ul",
        "ol",
        "dl",
        "table",
        "listing",
        "xmp",
        "plaintext",
        "figure",
    }
)
#: Blocks that only start a new line.
_LINE_BLOCKS: Final = frozenset(
    {
        "div",
        "center",
        "li",
        "tr",
        "td",
        "th",
        "dd",
        "dt",
        "address",
        "article",
        "aside",
        "caption",
        "fieldset",
        "footer",
        "form",
        "header",
        "main",
        "nav",
        "section",
        "tbody",
        "thead",
        "tfoot",
        "body",
        "html",
        "document",
        "text",
        "hgroup",
        "details",
        "summary",
        "figcaption",
        "legend",
        "menu",
        "dir",
    }
)
_PRE_TAGS: Final = frozenset({"pre", "listing", "xmp", "plaintext"})
_CELL_TAGS: Final = frozenset({"td", "th"})

_PAGE_BREAK_STYLE_RE: Final = re.compile(
    r"(?:page-break-|break-)(before|after)\s*:\s*(always|page|left|right|recto|verso)",
    re.IGNORECASE,
)
_DISPLAY_NONE_RE: Final = re.compile(r"display\s*:\s*none", re.IGNORECASE)
_MARGIN_RE: Final = re.compile(r"(?<![\w-])margin(-top|-bottom)?\s*:\s*([^;]+)", re.IGNORECASE)
_LENGTH_RE: Final = re.compile(r"^(-?[\d.]+)\s*(pt|px|em|rem|in|cm|mm|pc|ex|%)?$", re.IGNORECASE)

#: Vertical margin (in points) from which a block is shown with a blank line.
_GAP_PT: Final = 6.0
_POINTS_PER_UNIT: Final[dict[str, float]] = {
    "pt": 1.0,
    "px": 0.75,
    "em": 12.0,
    "rem": 12.0,
    "in": 72.0,
    "cm": 28.35,
    "mm": 2.835,
    "pc": 12.0,
    "ex": 6.0,
    "": 0.75,
    "%": 0.0,
}


def _style_points(value: str) -> float | None:
    m = _LENGTH_RE.match(value.strip().lower().replace("!important", "").strip())
    if not m:
        return None
    try:
        number = float(m.group(1))
    except ValueError:
        return None
    return number * _POINTS_PER_UNIT[m.group(2) or ""]


def _vertical_gaps(tag: str, style: str) -> tuple[bool, bool]:
    """Whether a block has a visible margin above / below it.

    Browsers give ``<p>`` and headings a 1em margin by default; EDGAR
    generators either rely on that or set ``margin-top:12pt`` on ``<div>``s.
    Turning a visible margin into a blank line keeps paragraph structure for
    both styles without inventing blank lines inside address blocks that use
    ``margin:0``.
    """
    default = 12.0 if tag in _GAP_BLOCKS else 0.0
    top = bottom = default
    for m in _MARGIN_RE.finditer(style):
        side, raw = (m.group(1) or "").lower(), m.group(2).strip()
        if side == "-top":
            top = _style_points(raw) or 0.0
        elif side == "-bottom":
            bottom = _style_points(raw) or 0.0
        else:
            parts = [(_style_points(p) or 0.0) for p in raw.split()]
            if parts:
                top = parts[0]
                bottom = parts[2] if len(parts) >= 3 else parts[0]
    return top >= _GAP_PT, bottom >= _GAP_PT


class _HtmlRenderer:
    """Walks an lxml tree and builds lines, iteratively.

    An explicit stack rather than recursion, because unclosed-tag soup and
    repeated EDGAR ``<PAGE>`` tags nest arbitrarily deep and would hit Python's
    recursion limit on large filings.
    """

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.cur: list[str] = []
        self.cur_pre = False
        self.pre_depth = 0
        self.flat_depth = 0  # >0 inside a table row rendered on one line
        self.pre_first_text = False

    # -- line building -----------------------------------------------------

    def end_line(self, *, force: bool = False) -> None:
        """Finish the current line; ``force`` keeps it even if empty (``<br><br>``)."""
        raw = "".join(self.cur)
        if self.cur_pre:
            line = raw.replace("\xa0", " ").rstrip()
        else:
            line = _WS_RE.sub(" ", raw)
            line = _CELL_RE.sub("  ", line) if _CELL in line else line
            line = line.strip()
        if line or force:
            self.lines.append(line)
        self.cur = []
        self.cur_pre = False

    def gap(self) -> None:
        self.end_line()
        if self.lines and self.lines[-1] != "":
            self.lines.append("")

    def boundary(self, gap: bool) -> None:
        if self.flat_depth:
            self.cur.append(" ")
        elif gap:
            self.gap()
        else:
            self.end_line()

    def page_break(self) -> None:
        if self.flat_depth:
            self.cur.append(" ")
            return
        self.end_line()
        self.lines.append(_PB)

    def text(self, s: str | None) -> None:
        if not s:
            return
        if self.pre_depth and not self.flat_depth:
            if self.pre_first_text:
                # HTML ignores one newline right after <pre>.
                self.pre_first_text = False
                if s.startswith("\r\n"):
                    s = s[2:]
                elif s.startswith("\n"):
                    s = s[1:]
            s = s.replace("\r\n", "\n").replace("\r", "\n")
            for i, chunk in enumerate(s.split("\n")):
                if i:
                    self.end_line(force=True)
                pages = chunk.split("\f")
                for j, part in enumerate(pages):
                    if j:
                        self.page_break()
                    if part:
                        self.cur.append(part)
                        self.cur_pre = True
            return
        self.cur.append(s)

    # -- tree walk ---------------------------------------------------------

    def render(self, root: Any) -> list[str]:
        stack: list[tuple[str, Any]] = [("start", root)]
        while stack:
            kind, item = stack.pop()
            if kind == "text":
                self.text(item)
            elif kind == "end":
                self._end(item)
            else:
                self._start(item, stack)
        self.end_line()
        return self.lines

    def _start(self, el: Any, stack: list[tuple[str, Any]]) -> None:
        tag = el.tag.lower() if isinstance(el.tag, str) else None
        if tag is None or tag in _DROP_TAGS:
            return  # comments, processing instructions, dropped subtrees
        style = el.get("style") or ""
        if style and _DISPLAY_NONE_RE.search(style):
            return  # e.g. hidden inline-XBRL facts

        if tag == "tr" and not self.flat_depth:
            cells = [c for c in el if isinstance(c.tag, str) and c.tag.lower() in _CELL_TAGS]
            filled = sum(1 for c in cells if c.text_content().replace("\xa0", " ").strip())
            flatten = filled > 1
        else:
            flatten = False

        gap_before = gap_after = False
        if tag in _GAP_BLOCKS or tag in _LINE_BLOCKS:
            gap_before, gap_after = _vertical_gaps(tag, style)
            self.boundary(gap_before)
        if tag == "hr" or tag == "page":
            self.page_break()
        elif tag == "br":
            if self.flat_depth:
                self.cur.append(" ")
            else:
                self.end_line(force=True)
        if tag in _CELL_TAGS and self.flat_depth:
            self.cur.append(_CELL)

        breaks = _PAGE_BREAK_STYLE_RE.findall(style) if style else []
        if any(side.lower() == "before" for side, _ in breaks):
            self.page_break()
        if tag in _PRE_TAGS:
            self.pre_depth += 1
            self.pre_first_text = True
        if flatten:
            self.flat_depth += 1

        stack.append(("end", (el, tag, gap_after, flatten, breaks)))
        for child in reversed(el):
            stack.append(("text", child.tail))
            stack.append(("start", child))
        stack.append(("text", el.text))

    def _end(self, item: tuple[Any, str, bool, bool, list[tuple[str, str]]]) -> None:
        _el, tag, gap_after, flatten, breaks = item
        if tag in _PRE_TAGS:
            self.end_line()
            self.pre_depth -= 1
        if flatten:
            self.flat_depth -= 1
        if tag in _GAP_BLOCKS or tag in _LINE_BLOCKS:
            self.boundary(gap_after)
        if tag in _CELL_TAGS and self.flat_depth:
            self.cur.append(_CELL)
        if any(side.lower() == "after" for side, _ in breaks):
            self.page_break()
