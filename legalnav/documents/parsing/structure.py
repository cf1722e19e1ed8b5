"""Structure: turn an agreement's text into a tree of clause nodes.

The parser walks the text line by line. A line may open a node (an article, a section, a
sub-clause, a definition, a recital, a signature block, a schedule/exhibit/annex, a table of
contents); every other line is text of the innermost open node. Which node a new label nests
under follows the numbering: structural labels (articles, "5.17", attachments) have a fixed
rank, enumerations ("(a)", "(i)", "(A)", "(1)") nest in the order they appear, and each label
must continue its sibling's sequence, which rejects a "(b)" or "2.17" that only starts a line
because of hard wrapping.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from legalnav.documents.parsing.layout import (
    Line,
    clean_span,
    continues,
    ends_sentence,
    mark_artifacts,
    split_lines,
    split_long_lines,
    wrap_width,
)
from legalnav.documents.parsing.numbering import (
    alpha_ordinal,
    article_number,
    decimal_tuple,
    normalise_decimal,
    roman_to_int,
)

ATTACHMENT_KINDS = {
    "schedule": "sch",
    "exhibit": "ex",
    "annex": "annex",
    "appendix": "app",
}

# Ranks of structural nodes: lower ranks contain higher ones.
RANK_ATTACHMENT = 0
RANK_TOP = 1  # preamble, table of contents, recitals, articles, signature blocks
RANK_DECIMAL = 2  # + depth - 1: "5." = 2, "5.17" = 3, "5.17.1" = 4
_LEAF_TOPS = {"preamble", "toc", "recitals", "signatures"}


@dataclass(slots=True)
class ParsedNode:
    kind: str
    ref: str  # as printed: "Section 5.17", "(a)", "ARTICLE V", "Schedule 1.1"
    label: str  # normalised: "5.17", "a", "5", "1.1", or the defined term
    heading: str
    start: int
    end: int
    first_line: int
    last_line: int
    rank: int
    style: str  # numbering style, for sequence checks: "dec", "p_a", "p_i", "def", …
    ordinal: int = 0
    scope: str = ""  # node id of the attachment the node sits in ("" for the main body)
    parent: int | None = None
    level: int = 0
    subtree_end: int = 0
    node_id: str = ""
    text: str = ""
    children: list[int] = field(default_factory=list)
    # Filled by enrichment.
    flags: dict[str, bool] = field(default_factory=dict)
    summary: str = ""
    keywords: list[str] = field(default_factory=list)

    @property
    def dynamic(self) -> bool:
        return self.rank < 0


@dataclass(slots=True)
class TocEntry:
    kind: str  # "article" | "section"
    label: str  # normalised, as a node's label would be
    scope: str
    text: str


@dataclass(slots=True)
class Structure:
    text: str
    lines: list[Line]
    nodes: list[ParsedNode]
    toc_entries: list[TocEntry]
    width: int


# --- line patterns ----------------------------------------------------------------------------

_TOC_TITLE = re.compile(
    r"^(?:TABLE\s+OF\s+CONTENTS|CONTENTS|INDEX|INDEX\s+OF\s+(?:DEFINED\s+TERMS|DEFINITIONS|TERMS)|"
    r"DEFINED\s+TERMS\s+INDEX|LIST\s+OF\s+DEFINED\s+TERMS)\s*(?:\((?:continued|cont\.?)\))?\s*:?$",
    re.IGNORECASE,
)
_ARTICLE = re.compile(
    r"^(ARTICLE|Article|ART\.)\s+([IVXLC]+|\d{1,3}|[A-Z])(?![\w.]*\d)\b\.?\s*(?:[:\-–—.]\s*)?(.*)$"
)
# How a contents or defined-terms index line ends: a page number, or the section it points to.
_TOC_LINE_END = re.compile(
    r"(?:(?:\s|\.{2,}|…)\d{1,3}|\s\d{1,3}(?:\.\d{1,3})+(?:\([a-zA-Z0-9]{1,4}\))*|\s(?:Recitals?|Preamble)"
    r"|[-–]\s*\d{1,3}\s*[-–])$"
)
# A contents page flattened into one line: "1.1 Affiliate 7 1.2 Agreement 7 1.3 …".
_TOC_RUN = re.compile(r"\b\d{1,3}(?:\.\d{1,3})*\.?\s+[A-Z\[][^\d]{1,80}?\s\d{1,3}\b")
_INLINE_SECTION = re.compile(r"\s(?:SECTION|Section)\s+\d{1,3}\.\d")
_ROMAN_ARTICLE = re.compile(r"^([IVX]{1,5})\.\s+([A-Z][A-Z0-9 ,;:&'’\-–—]{2,80})$")
# A label may be glued to its heading where a tab was lost in conversion: "Section 1.1Amounts".
_SECTION = re.compile(
    r"^(SECTION|Section|Sec\.|§)\s*(\d{1,3}(?:\.\d{1,3}){0,3}[A-Za-z]?)(?:\s*\.)?(?=[\s:“\"]|[A-Z][a-z]|$)\s*:?\s*(.*)$"
)
_DECIMAL = re.compile(r"^(\d{1,3}(?:\.\d{1,3}){1,3})\.?(?=[\s“\"]|[A-Z][a-z]|$)\s*(.*)$")
_TOP_NUMBER = re.compile(r"^(\d{1,3})\.(?=\s|$|[A-Z][a-z])\s*(.*)$")
_PAREN = re.compile(r"^\(([a-z]{1,5}|[A-Z]{1,5}|\d{1,3})\)\s*(.*)$")
_LETTER_DOT = re.compile(r"^([A-Z])\.\s+(?=[A-Z“\"(])(.*)$")
_DEFINITION = re.compile(
    r"^[“\"]([^”\"\n]{1,100}?)[”\"](?:\s*(?:and|or)\s*[“\"][^”\"\n]{1,80}[”\"])?\s*"
    r"(?:\([^)\n]{0,80}\)\s*)?[:,]?\s*"
    r"(?:means|shall\s+mean|mean|has\s+the\s+meaning|shall\s+have\s+the\s+meaning|have\s+the\s+meaning|"
    r"is\s+defined|shall\s+include|includes|refers\s+to|shall\s+refer|as\s+used|:)"
)
_ATTACHMENT = re.compile(
    r"^(SCHEDULE|Schedule|EXHIBIT|Exhibit|ANNEX|Annex|APPENDIX|Appendix)\s+"
    r"([A-Z]{1,3}(?:-\d{1,3})?|\d{1,3}(?:\.\d{1,3})*(?:\([a-z0-9]{1,4}\))?|[IVXLC]{1,6})"
    r"(?![\w])\.?\s*(.*)$"
)
_RECITALS_TITLE = re.compile(
    r"^(?:RECITALS?|Recitals?|W\s*I\s*T\s*N\s*E\s*S\s*S\s*E\s*T\s*H|WITNESSETH|Witnesseth|"
    r"BACKGROUND|Background|PRELIMINARY\s+STATEMENTS?|Preliminary\s+Statements?)\s*[:.]?$"
)
_WHEREAS = re.compile(r"^WHEREAS\b|^Whereas,")
_NOW_THEREFORE = re.compile(r"^NOW,?\s+THEREFORE\b|^Now,?\s+[Tt]herefore\b")
_SIGNATURES = re.compile(r"^IN\s+WITNESS\s+WHEREOF|^In\s+Witness\s+Whereof")
_EDGAR_EXHIBIT = re.compile(r"^(?:EXHIBIT|Exhibit|EX-)\s*\d+(?:\.\d+)*\b")

_NOT_TEXT = re.compile(r"[\s.:\-–—]")
_SMALL_WORDS = {
    "of",
    "and",
    "the",
    "to",
    "for",
    "in",
    "on",
    "or",
    "a",
    "an",
    "by",
    "with",
    "at",
    "as",
    "upon",
    "under",
    "from",
    "its",
    "their",
    "into",
    "than",
    "other",
    "vs",
    "not",
    "no",
}
_WORD = re.compile(r"[A-Za-z][A-Za-z'’\-]*")


def looks_like_title(s: str, max_words: int = 14) -> bool:
    words = _WORD.findall(s)
    if not words or len(words) > max_words:
        return False
    if not words[0][0].isupper():
        return False
    big = [w for w in words if w.lower() not in _SMALL_WORDS]
    if not big:
        return False
    caps = sum(1 for w in big if w[0].isupper())
    return caps / len(big) >= 0.75


def is_prose(s: str) -> bool:
    """A line of running text rather than a title: long, with many lower-case words."""
    if len(s) < 50:
        return False
    words = [w for w in _WORD.findall(s) if w.lower() not in _SMALL_WORDS]
    if len(words) < 5:
        return False
    lower = sum(1 for w in words if w[0].islower())
    return lower / len(words) >= 0.35


def split_heading(rest: str) -> tuple[str, bool]:
    """Split a heading off the text that follows a label.

    Returns (heading, whole_rest_is_heading). "Definitions. The following terms…" gives
    ("Definitions", False); "ORGANIZATIONAL MATTERS" gives ("ORGANIZATIONAL MATTERS", True).
    """
    rest = rest.strip()
    if not rest:
        return "", True
    m = re.match(r"^([A-Z“\"\[][^.:]{0,110}?)[.:]\s+(?=\S)", rest)
    if m and looks_like_title(m.group(1)):
        return m.group(1).strip(), False
    cand = rest.rstrip(".:").strip()
    if len(cand) <= 110 and looks_like_title(cand, max_words=16) and not cand.endswith(","):
        return cand, True
    if rest.isupper() and len(rest) <= 110:
        return rest.rstrip(".:"), True
    return "", False


# --- the parser -------------------------------------------------------------------------------


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        lines = split_lines(text)
        mark_artifacts(lines)
        self.lines = split_long_lines(lines)
        # "Table of Contents" printed on every page is a link back to the contents (EDGAR HTML
        # filings), not a contents page: treat it as page furniture.
        titles: dict[str, list[Line]] = {}
        for ln in self.lines:
            if ln.text and len(ln.text) < 40 and _TOC_TITLE.match(ln.text):
                titles.setdefault(ln.text.lower(), []).append(ln)
        for repeated in titles.values():
            if len(repeated) >= 3:
                kept = False  # the first occurrence that lists provisions is the real contents
                for ln in repeated:
                    if not kept and self._lists_contents(ln.index):
                        kept = True
                    else:
                        ln.artifact = True
        self.width = wrap_width(self.lines)
        # Text wrapped at a margin (EDGAR .txt) breaks lines mid-sentence; text with one
        # paragraph per line (HTML, DOCX, most CUAD contracts) does not.
        self.hard_wrapped = self.width <= 130
        self.nodes: list[ParsedNode] = []
        self.stack: list[int] = []
        self.toc_entries: list[TocEntry] = []
        self.scope = ""
        self.last_decimal: dict[str, tuple[int, ...]] = {}
        self.last_article: dict[str, int] = {}
        self.body_started = False  # a numbered heading has been seen (EDGAR cover lines precede)
        self.contents_pending: set[str] = set()  # scopes with a contents page but no body yet

    # -- node bookkeeping --

    def _open(self, node: ParsedNode) -> int:
        idx = len(self.nodes)
        node.parent = self.stack[-1] if self.stack else None
        node.level = len(self.stack)
        if node.kind in ATTACHMENT_KINDS:
            node.scope = ""
        else:
            node.scope = self.scope
        if node.parent is not None:
            parent = self.nodes[node.parent]
            parent.children.append(idx)
            # A child that starts on its parent's line ends the parent's own text there.
            if parent.last_line == node.first_line and parent.end > node.start:
                parent.end = node.start
        self.nodes.append(node)
        self.stack.append(idx)
        return idx

    def _pop_for_rank(self, rank: int) -> None:
        while self.stack:
            top = self.nodes[self.stack[-1]]
            # Numbered sections close a preamble, recitals or signature block: only articles
            # and attachments contain them.
            if top.dynamic or top.rank >= rank or (rank > RANK_TOP and top.kind in _LEAF_TOPS):
                self.stack.pop()
            else:
                break

    def _find_style(self, style: str) -> int | None:
        for pos in range(len(self.stack) - 1, -1, -1):
            node = self.nodes[self.stack[pos]]
            if node.style == style:
                return pos
            if not node.dynamic and style != "def":
                # Enumerations do not continue across a structural boundary.
                return None
        return None

    def _top_style_ordinal(self, style: str) -> int | None:
        pos = self._find_style(style)
        return None if pos is None else self.nodes[self.stack[pos]].ordinal

    # -- label recognition --

    def _paren_style(self, label: str) -> tuple[str, int] | None:
        """Decide the style and ordinal of "(x)": alpha, roman, upper alpha, upper roman, digit."""
        if label.isdigit():
            return "p_1", int(label)
        lower = label.islower()
        if not (lower or label.isupper()):
            return None
        a_style, r_style = ("p_a", "p_i") if lower else ("p_A", "p_I")
        a_ord = alpha_ordinal(label)
        r_ord = roman_to_int(label) if set(label.lower()) <= set("ivxl") else None
        prev_a = self._top_style_ordinal(a_style)
        prev_r = self._top_style_ordinal(r_style)
        if a_ord is not None and prev_a is not None and a_ord == prev_a + 1:
            return a_style, a_ord
        if r_ord is not None and ((prev_r is not None and r_ord == prev_r + 1) or r_ord == 1):
            return r_style, r_ord
        if a_ord is not None and (a_ord == 1 or (prev_a is not None and a_ord == prev_a + 1)):
            return a_style, a_ord
        return None

    def _sequence_ok(self, style: str, ordinal: int) -> bool:
        prev = self._top_style_ordinal(style)
        if prev is None:
            return ordinal == 1
        return ordinal == prev + 1

    def _decimal_ok(self, numbers: tuple[int, ...], keyword: bool) -> bool:
        last = self.last_decimal.get(self.scope)
        art = self.last_article.get(self.scope)
        if last is None:
            first_ok = numbers[0] <= 2 or (art is not None and numbers[0] in (art, art + 1))
            return first_ok and (keyword or all(n <= 3 for n in numbers[1:]))
        if numbers <= last:
            return False
        if numbers[0] > max(last[0], art or 0) + 2:
            return False
        if numbers[0] > last[0]:
            # A new major number starts its sections again at 1 ("2.1", "2.01", "3.1.1").
            if any(n > (3 if i == 0 else 1) for i, n in enumerate(numbers[1:])):
                return False
            if numbers[0] > last[0] + 1 and len(numbers) > 1 and numbers[1] > 1:
                return False
        if (
            len(numbers) >= 2
            and numbers[0] == last[0]
            and len(last) >= 2
            and numbers[1] > last[1] + 6
        ):
            return False
        return True

    # -- main loop --

    def parse(self) -> Structure:
        lines = self.lines
        first_content = next((ln for ln in lines if ln.text and not ln.artifact), None)
        start = first_content.content_start if first_content else 0
        self._open(
            ParsedNode("preamble", "", "preamble", "Preamble", start, start, 0, 0, RANK_TOP, "top")
        )
        prev: Line | None = None
        prev_heading_only = False
        blank_before = True
        content_lines_seen = 0
        i = 0
        n = len(lines)
        while i < n:
            ln = lines[i]
            if ln.artifact:
                i += 1
                continue
            if not ln.text:
                blank_before = True
                i += 1
                continue
            # A new label counts only at a paragraph start: after a blank line, a heading, a
            # sentence end, or a line well short of the wrap width (hard-wrapped lines run to
            # the margin; a short line ended its paragraph).
            boundary = (
                blank_before
                or prev is None
                or prev_heading_only
                or not self.hard_wrapped
                or ends_sentence(prev.text)
                or (len(prev.text) < 0.6 * self.width and not continues(prev.text))
            )
            content_lines_seen += 1

            if _TOC_TITLE.match(ln.text) and not self._in_kind("toc"):
                end_i = self._toc_end(i)
                self._pop_for_rank(RANK_TOP)
                toc = ParsedNode(
                    "toc",
                    "",
                    "toc",
                    "Table of Contents",
                    ln.content_start,
                    lines[end_i].content_end,
                    i,
                    end_i,
                    RANK_TOP,
                    "top",
                )
                self._open(toc)
                self._collect_toc_entries(i, end_i)
                self.contents_pending.add(self.scope)
                # What follows the contents (title, parties) is a fresh preamble.
                nxt = self._next_content(end_i + 1)
                if nxt is not None:
                    self._pop_for_rank(RANK_TOP)
                    self._open(
                        ParsedNode(
                            "preamble",
                            "",
                            "preamble",
                            "Preamble",
                            lines[nxt].content_start,
                            lines[nxt].content_start,
                            nxt,
                            nxt,
                            RANK_TOP,
                            "top",
                        )
                    )
                prev = lines[end_i]
                prev_heading_only = True
                blank_before = True
                i = end_i + 1
                continue

            opened = self._try_heading(ln, boundary, content_lines_seen)
            if opened:
                top = self.nodes[self.stack[-1]]
                # A line holding only a label and heading ends like a sentence for the next line.
                label_text = top.ref if top.heading in top.ref else top.ref + top.heading
                prev_heading_only = (
                    len(_NOT_TEXT.sub("", ln.text)) <= len(_NOT_TEXT.sub("", label_text)) + 2
                )
                # A heading alone on its line ("ARTICLE 1") takes the next short line as title.
                if (
                    not top.heading
                    and top.kind
                    in ("article", "schedule", "exhibit", "annex", "appendix", "section")
                    and top.end == ln.content_end
                    and top.end - top.start <= len(top.ref) + 2
                ):
                    j = self._next_content(i + 1)
                    if j is not None and j - i <= 3:
                        cand = lines[j].text
                        if (
                            len(cand) <= 100
                            and not self._is_label_line(cand)
                            and (cand.isupper() or looks_like_title(cand))
                        ):
                            top.heading = cand.rstrip(".:")
                            top.end = lines[j].content_end
                            top.last_line = j
                            prev = lines[j]
                            prev_heading_only = True
                            blank_before = False
                            i = j + 1
                            continue
            else:
                top = self.nodes[self.stack[-1]]
                top.end = ln.content_end
                top.last_line = i
                prev_heading_only = False
            prev = ln
            blank_before = False
            i += 1
        return self._finish()

    def _in_kind(self, kind: str) -> bool:
        return any(self.nodes[k].kind == kind for k in self.stack)

    def _next_content(self, i: int) -> int | None:
        while i < len(self.lines):
            ln = self.lines[i]
            if ln.text and not ln.artifact:
                return i
            i += 1
        return None

    def _is_label_line(self, s: str) -> bool:
        return bool(
            _ARTICLE.match(s)
            or _SECTION.match(s)
            or _DECIMAL.match(s)
            or _PAREN.match(s)
            or _TOP_NUMBER.match(s)
            or _ATTACHMENT.match(s)
            or _DEFINITION.match(s)
        )

    def _try_heading(
        self, ln: Line, boundary: bool, seen: int, s: str | None = None, off: int | None = None
    ) -> bool:
        """Open the node(s) that the line (or the part of it from ``off``) starts, if any."""
        if s is None or off is None:
            s = ln.text
            off = ln.content_start
        # Signature block.
        if boundary and _SIGNATURES.match(s):
            self._pop_for_rank(RANK_TOP)
            self._open(
                ParsedNode(
                    "signatures",
                    "",
                    "signatures",
                    "Signatures",
                    off,
                    ln.content_end,
                    ln.index,
                    ln.index,
                    RANK_TOP,
                    "top",
                )
            )
            return True
        # Schedules, exhibits, annexes, appendices.
        m = _ATTACHMENT.match(s)
        if m and boundary and self._attachment_ok(ln, m, seen):
            kind = m.group(1).lower()
            label = m.group(2)
            rest = m.group(3).strip(" -–—:.")
            self._pop_for_rank(RANK_ATTACHMENT)
            self.scope = ""
            node = ParsedNode(
                kind,
                f"{m.group(1)} {label}",
                label.upper() if not label[0].isdigit() else label,
                rest if rest else "",
                off,
                ln.content_end,
                ln.index,
                ln.index,
                RANK_ATTACHMENT,
                "attachment",
            )
            idx = self._open(node)
            self.scope = f"{ATTACHMENT_KINDS[kind]}{node.label}"
            self.nodes[idx].scope = ""
            self.last_decimal.pop(self.scope, None)
            self.last_article.pop(self.scope, None)
            return True
        # Recitals.
        if boundary and _RECITALS_TITLE.match(s) and not self._in_kind("recitals"):
            self._pop_for_rank(RANK_TOP)
            self._open(
                ParsedNode(
                    "recitals",
                    s,
                    "recitals",
                    "Recitals",
                    off,
                    ln.content_end,
                    ln.index,
                    ln.index,
                    RANK_TOP,
                    "top",
                )
            )
            return True
        if boundary and (
            _WHEREAS.match(s) or (_NOW_THEREFORE.match(s) and self._in_kind("recitals"))
        ):
            if not self._in_kind("recitals"):
                self._pop_for_rank(RANK_TOP)
                self._open(
                    ParsedNode(
                        "recitals",
                        "",
                        "recitals",
                        "Recitals",
                        off,
                        off,
                        ln.index,
                        ln.index,
                        RANK_TOP,
                        "top",
                    )
                )
            pos = self._find_style("whereas")
            if pos is not None:
                del self.stack[pos:]
            else:
                while self.nodes[self.stack[-1]].kind != "recitals":
                    self.stack.pop()
            count = (
                sum(
                    1
                    for c in self.nodes[self.stack[-1]].children
                    if self.nodes[c].style == "whereas"
                )
                + 1
            )
            is_now = bool(_NOW_THEREFORE.match(s))
            self._open(
                ParsedNode(
                    "recital",
                    "NOW, THEREFORE" if is_now else "WHEREAS",
                    "now-therefore" if is_now else str(count),
                    "Agreement to the terms" if is_now else "",
                    off,
                    ln.content_end,
                    ln.index,
                    ln.index,
                    -1,
                    "whereas",
                    count,
                )
            )
            return True
        # Articles.
        m = _ARTICLE.match(s)
        if m and boundary:
            num = article_number(m.group(2))
            rest = m.group(3)
            prev_art = self.last_article.get(self.scope)
            upper_kw = m.group(1) in ("ARTICLE", "ART.")
            inline = _INLINE_SECTION.search(rest)
            title_part = rest[: inline.start()] if inline else rest
            if (
                num is not None
                and (prev_art is None or num > prev_art)
                and (
                    upper_kw
                    or not title_part
                    or looks_like_title(split_heading(title_part)[0] or title_part[:60])
                )
                and (prev_art is None or num <= prev_art + 3)
            ):
                heading, _ = split_heading(title_part)
                self._open_article(ln, off, f"{m.group(1)} {m.group(2)}", num, heading)
                if inline:
                    # "ARTICLE 1. DEFINITIONS Section 1.1 Defined Terms. …" on one line.
                    sub_off = off + len(s) - len(rest) + inline.start() + 1
                    self._try_heading(ln, True, seen, s[sub_off - off :], sub_off)
                return True
        m = _ROMAN_ARTICLE.match(s)
        if m and boundary:
            num = roman_to_int(m.group(1))
            prev_art = self.last_article.get(self.scope)
            if (
                num is not None
                and (prev_art is None or num == prev_art + 1)
                and (num == 1 or prev_art)
            ):
                self._open_article(ln, off, f"{m.group(1)}.", num, m.group(2).strip())
                return True
        # Sections: "Section 5.17", "5.17", "5.".
        m = _SECTION.match(s)
        keyword = True
        if not m:
            keyword = False
            m = _DECIMAL.match(s)
        if m and boundary:
            raw = m.group(2) if keyword else m.group(1)
            rest = m.group(3) if keyword else m.group(2)
            label = normalise_decimal(raw)
            numbers = decimal_tuple(label)
            if (
                numbers
                and self._decimal_ok(numbers, keyword)
                and (not rest or rest[:1].isupper() or rest[:1] in '“"([')
            ):
                ref = f"{m.group(1)} {raw}" if keyword else raw
                self._open_decimal(ln, off, ref, label, numbers, rest)
                return True
        m = _TOP_NUMBER.match(s)
        if (
            m
            and boundary
            and (not m.group(2) or m.group(2)[:1].isupper() or m.group(2)[:1] in '“"(')
        ):
            numbers = (int(m.group(1)),)
            last = self.last_decimal.get(self.scope)
            # Inside articles, or after "5.17"-style numbering, a bare "7." is a list item.
            plausible = self.last_article.get(self.scope) is None and (
                last is None or len(last) == 1 or numbers[0] == last[0] + 1
            )
            if plausible and not m.group(2):
                # "6." alone on its line is a heading only if a title follows it.
                j = self._next_content(ln.index + 1)
                nxt = self.lines[j].text if j is not None else ""
                plausible = bool(nxt) and (nxt.isupper() or looks_like_title(nxt))
            if plausible and self._decimal_ok(numbers, False):
                self._open_decimal(ln, off, f"{m.group(1)}.", str(numbers[0]), numbers, m.group(2))
                return True
        # Enumerations: "(a)", "(i)", "(A)", "(1)".
        m = _PAREN.match(s)
        if m and boundary:
            return self._open_paren_chain(ln, off, s)
        m = _LETTER_DOT.match(s)
        if m and boundary:
            ordinal = ord(m.group(1)) - 64
            if self._sequence_ok("d_A", ordinal) and len(s) > 3:
                pos = self._find_style("d_A")
                if pos is not None:
                    del self.stack[pos:]
                heading, _ = split_heading(m.group(2))
                self._open(
                    ParsedNode(
                        "clause",
                        f"{m.group(1)}.",
                        m.group(1),
                        heading,
                        off,
                        ln.content_end,
                        ln.index,
                        ln.index,
                        -1,
                        "d_A",
                        ordinal,
                    )
                )
                return True
        # Definitions: “Term” means …
        m = _DEFINITION.match(s)
        if m and boundary:
            term = m.group(1).strip()
            if term[:1].isupper() or term[:1].isdigit():
                pos = self._find_style("def")
                if pos is not None:
                    del self.stack[pos:]
                self._open(
                    ParsedNode(
                        "definition",
                        f"“{term}”",
                        term,
                        term,
                        off,
                        ln.content_end,
                        ln.index,
                        ln.index,
                        -1,
                        "def",
                    )
                )
                return True
        return False

    def _attachment_ok(self, ln: Line, m: re.Match[str], seen: int) -> bool:
        s = ln.text
        if len(s) > 110:
            return False
        if seen <= 3 and _EDGAR_EXHIBIT.match(s):
            return False  # the EDGAR exhibit number printed at the top of the filing
        if not self.body_started and not self._in_kind("signatures"):
            return False  # lists of schedules and exhibits that follow a contents page
        if self.scope in self.contents_pending:
            return False  # the same, for an agreement attached with its own contents page
        # A line followed at once by another attachment label is an entry in a list of
        # attachments, not the attachment itself.
        j = ln.index
        for _ in range(3):
            j = self._next_content(j + 1)
            if j is None or is_prose(self.lines[j].text):
                break
            nxt = _ATTACHMENT.match(self.lines[j].text)
            if nxt and nxt.group(1).lower() == m.group(1).lower():
                return False
        rest = m.group(3).strip()
        if rest.startswith("(") and ")" in rest:
            # "Schedule 3.1(m)(i) sets forth …" is a sentence, "Schedule 1 (Commitments)" a title.
            inner_end = rest.index(")") + 1
            after = rest[inner_end:].strip()
            if after and not (looks_like_title(after) or after.isupper()):
                return False
            if not after:
                return True
            rest = after
        if rest.startswith(("to ", "of ")):
            # "Schedule 1 to Credit Agreement" is a title; "Schedule 1 to the Agreement is
            # hereby amended" is a sentence.
            tail = re.sub(r"^(?:to|of)\s+(?:the\s+)?", "", rest)
            if not (looks_like_title(tail.strip(" -–—:.")) or tail.isupper()):
                return False
            return True
        if rest.endswith((",", ";")) or rest[:1].islower():
            return False
        if rest and not (
            looks_like_title(rest.strip(" -–—:."))
            or rest.isupper()
            or rest.startswith(("-", "–", "—", ":"))
        ):
            return False
        upper = m.group(1).isupper()
        if not upper and rest and rest[-1:] == "." and not looks_like_title(rest):
            return False
        return True

    def _open_article(self, ln: Line, off: int, ref: str, num: int, heading: str) -> None:
        self._pop_for_rank(RANK_TOP)
        self._open(
            ParsedNode(
                "article",
                ref,
                str(num),
                heading,
                off,
                ln.content_end,
                ln.index,
                ln.index,
                RANK_TOP,
                "article",
                num,
            )
        )
        self.last_article[self.scope] = num
        self.body_started = True
        self.contents_pending.discard(self.scope)

    def _open_decimal(
        self, ln: Line, off: int, ref: str, label: str, numbers: tuple[int, ...], rest: str
    ) -> None:
        rank = RANK_DECIMAL + len(numbers) - 1
        self._pop_for_rank(rank)
        heading, _ = split_heading(rest)
        self._open(
            ParsedNode(
                "section",
                ref,
                label,
                heading,
                off,
                ln.content_end,
                ln.index,
                ln.index,
                rank,
                f"dec{len(numbers)}",
                numbers[-1],
            )
        )
        self.last_decimal[self.scope] = numbers
        self.body_started = True
        self.contents_pending.discard(self.scope)
        # "Section 2.1 (a) text": the first sub-clause starts on the heading line.
        self._inline_children(ln, rest)

    def _inline_children(self, ln: Line, rest: str) -> None:
        stripped = rest
        heading, whole = split_heading(rest)
        if heading and not whole:
            idx = rest.find(heading) + len(heading) + 1
            stripped = rest[idx:].lstrip()
        if not stripped.startswith("("):
            return
        pos = ln.raw.rfind(stripped)
        if pos < 0:
            return
        self._open_paren_chain(ln, ln.start + pos, stripped, only_first=True)

    def _open_paren_chain(self, ln: Line, off: int, s: str, only_first: bool = False) -> bool:
        """Open "(a)" and any nested first labels on the same line: "(a) (i) text"."""
        opened = False
        depth = 0
        while depth < 3:
            m = _PAREN.match(s)
            if not m:
                break
            label = m.group(1)
            decided = self._paren_style(label)
            if decided is None:
                break
            style, ordinal = decided
            if opened and ordinal != 1:
                break
            if only_first and ordinal != 1:
                break
            pos = self._find_style(style)
            if pos is not None:
                if ordinal != self.nodes[self.stack[pos]].ordinal + 1:
                    break
                del self.stack[pos:]
            elif ordinal != 1:
                break
            rest = m.group(2)
            heading, _ = split_heading(rest)
            self._open(
                ParsedNode(
                    "clause",
                    f"({label})",
                    label,
                    heading,
                    off,
                    ln.content_end,
                    ln.index,
                    ln.index,
                    -1,
                    style,
                    ordinal,
                )
            )
            opened = True
            depth += 1
            consumed = len(s) - len(rest)
            off += consumed
            s = rest
            if not s.startswith("("):
                break
        return opened

    # -- table of contents --

    def _toc_end(self, i: int) -> int:
        lines = self.lines
        last = i
        seen: set[tuple[str, str]] = set()
        first_keys: list[tuple[str, str]] = []
        highest: dict[str, tuple[int, ...]] = {}
        j = i + 1
        content_since_last = 0
        terms_index = False  # inside an index of defined terms: entries point anywhere
        while j < len(lines):
            ln = lines[j]
            if ln.artifact or not ln.text:
                j += 1
                continue
            t = ln.text
            if _TOC_TITLE.match(t):
                terms_index = terms_index or "TERM" in t.upper() or "DEFINITION" in t.upper()
                last = j
                j += 1
                continue
            if terms_index:
                if is_prose(t) and not self._toc_resumes(j):
                    break
                if len(t) <= 90:
                    last = j
                j += 1
                continue
            key = self._toc_key(t)
            if key is not None:
                order = _toc_order(key)
                if key in first_keys or (
                    order is not None and key[0] in highest and order < highest[key[0]]
                ):
                    break  # the body restarts the numbering the contents listed
                if len(first_keys) < 3 and key not in seen:
                    first_keys.append(key)
                if order is not None:
                    highest[key[0]] = max(order, highest.get(key[0], order))
                seen.add(key)
                last = j
                content_since_last = 0
            elif (
                _TOC_LINE_END.search(t)
                or re.fullmatch(r"(?:Page|PAGE|\d{1,3}|[ivxlc]{1,6})", t)
                or len(_TOC_RUN.findall(t)) >= 3
            ):
                last = j
                content_since_last = 0
            elif is_prose(t) and not _ATTACHMENT.match(t) and not self._toc_resumes(j):
                break  # prose: the agreement itself has begun
            else:
                content_since_last += 1
                if content_since_last > 8:
                    break
            j += 1
        return last

    def _lists_contents(self, i: int) -> bool:
        """Whether the lines after a contents title really list numbered provisions."""
        keys = 0
        seen = 0
        k = i + 1
        while k < len(self.lines) and seen < 15:
            t = self.lines[k].text
            k += 1
            if not t or self.lines[k - 1].artifact:
                continue
            seen += 1
            if self._toc_key(t) is not None or len(_TOC_RUN.findall(t)) >= 2:
                keys += 1
        return keys >= 3

    def _toc_resumes(self, j: int) -> bool:
        """Whether contents-like lines follow within a few lines (a long entry title wrapped
        across lines, or an entry that reads like prose)."""
        seen = 0
        k = j + 1
        while k < len(self.lines) and seen < 4:
            ln = self.lines[k]
            k += 1
            if ln.artifact or not ln.text:
                continue
            seen += 1
            t = ln.text
            if (
                self._toc_key(t) is not None
                or re.search(r"(?:\s{2,}|\.{2,}|…|\t)\d{1,3}$", t)
                or re.fullmatch(r"\d{1,3}", t)
            ):
                return True
        return False

    @staticmethod
    def _toc_key(t: str) -> tuple[str, str] | None:
        m = _ARTICLE.match(t)
        if m:
            num = article_number(m.group(2))
            if num is not None:
                return ("article", str(num))
        m = _SECTION.match(t) or _DECIMAL.match(t)
        if m:
            label = m.group(2) if m.re is _SECTION else m.group(1)
            return ("section", normalise_decimal(label))
        m = _ATTACHMENT.match(t)
        if m:
            return (m.group(1).lower(), m.group(2).upper())
        return None

    def _collect_toc_entries(self, i: int, end_i: int) -> None:
        seen: set[tuple[str, str]] = set()
        for ln in self.lines[i + 1 : end_i + 1]:
            if ln.artifact or not ln.text:
                continue
            for m in re.finditer(r"\b(?:ARTICLE|Article)\s+([IVXLC]+|\d{1,3})\b", ln.text):
                num = article_number(m.group(1))
                if num is not None:
                    seen.add(("article", str(num)))
            for m in re.finditer(
                r"(?:(?:Section|SECTION)\s+|^|(?<=\s))(\d{1,2}\.\d{1,3}(?:\.\d{1,3})?)(?=[\s.]|$)",
                ln.text,
            ):
                seen.add(("section", normalise_decimal(m.group(1))))
        for kind, label in sorted(seen):
            self.toc_entries.append(TocEntry(kind, label, self.scope, ""))

    # -- finishing --

    def _finish(self) -> Structure:
        nodes = self.nodes
        # Drop empty implicit preambles (a contents page followed straight by ARTICLE I).
        keep = [
            k
            for k, nd in enumerate(nodes)
            if not (nd.kind == "preamble" and nd.end <= nd.start and not nd.children)
        ]
        if len(keep) != len(nodes):
            remap = {old: new for new, old in enumerate(keep)}
            kept = [nodes[k] for k in keep]
            for nd in kept:
                nd.parent = remap.get(nd.parent) if nd.parent is not None else None
                nd.children = [remap[c] for c in nd.children if c in remap]
            nodes = kept
        # Subtree ends, then clean text.
        for k in range(len(nodes) - 1, -1, -1):
            nd = nodes[k]
            nd.subtree_end = max([nd.end] + [nodes[c].subtree_end for c in nd.children])
        for nd in nodes:
            nd.end = max(nd.end, nd.start)
            nd.text = clean_span(
                self.lines, nd.first_line, nd.last_line, nd.start, nd.end, self.width
            )
        _assign_ids(nodes)
        self.nodes = nodes
        return Structure(self.text, self.lines, nodes, self.toc_entries, self.width)


def _toc_order(key: tuple[str, str]) -> tuple[int, ...] | None:
    if key[0] == "section":
        return decimal_tuple(key[1]) or None
    if key[0] == "article" and key[1].isdigit():
        return (int(key[1]),)
    return None


def _slug(s: str, limit: int = 48) -> str:
    s = re.sub(r"[^A-Za-z0-9]+", "-", s).strip("-").lower()
    return s[:limit].rstrip("-") or "x"


def _assign_ids(nodes: list[ParsedNode]) -> None:
    """Stable, readable node ids: "art5", "s5.17", "s5.17(a)(i)", "def:lender", "exA/s1.01"."""
    used: dict[str, int] = {}
    for nd in nodes:
        parent = nodes[nd.parent] if nd.parent is not None else None
        prefix = f"{nd.scope}/" if nd.scope else ""
        if nd.kind in ATTACHMENT_KINDS:
            base = f"{ATTACHMENT_KINDS[nd.kind]}{nd.label}"
        elif nd.kind == "article":
            base = f"{prefix}art{nd.label}"
        elif nd.kind == "section":
            base = f"{prefix}s{nd.label}"
        elif nd.kind == "clause" and parent is not None:
            base = f"{parent.node_id}({nd.label})"
        elif nd.kind == "definition":
            base = f"{prefix}def:{_slug(nd.label)}"
        elif nd.kind == "recital" and parent is not None:
            base = f"{parent.node_id}.{nd.label}"
        else:
            base = f"{prefix}{nd.kind}"
        count = used.get(base, 0) + 1
        used[base] = count
        nd.node_id = base if count == 1 else f"{base}~{count}"


def parse_structure(text: str) -> Structure:
    """Parse an extracted text into a flat, document-ordered list of nodes with parent links."""
    return _Parser(text).parse()
