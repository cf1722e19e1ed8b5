"""The line loop: each line either opens a node (``headings``) or is text of the innermost open
node; a contents page is read as one node; at the end the nodes get their text and ids."""

from __future__ import annotations

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
from legalnav.documents.parsing.structure.contents import (
    mark_contents_links,
    toc_end,
    toc_entries,
)
from legalnav.documents.parsing.structure.headings import RECOGNISERS
from legalnav.documents.parsing.structure.nodes import (
    RANK_TOP,
    ParsedNode,
    Structure,
    TocEntry,
    assign_ids,
)
from legalnav.documents.parsing.structure.patterns import (
    NOT_TEXT,
    TOC_TITLE,
    is_label_line,
    looks_like_title,
    next_content,
)
from legalnav.documents.parsing.structure.tree import Tree

# Kinds whose label may stand alone on its line, with the title on the next one.
_TITLED_ON_NEXT_LINE = ("article", "schedule", "exhibit", "annex", "appendix", "section")


class Parser(Tree):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text
        lines = split_lines(text)
        mark_artifacts(lines)
        self.lines = split_long_lines(lines)
        mark_contents_links(self.lines)
        self.width = wrap_width(self.lines)
        # Text wrapped at a margin (EDGAR .txt) breaks lines mid-sentence; text with one
        # paragraph per line (HTML, DOCX, most CUAD contracts) does not.
        self.hard_wrapped = self.width <= 130
        self.toc_entries: list[TocEntry] = []

    def parse(self) -> Structure:
        lines = self.lines
        first_content = next((ln for ln in lines if ln.text and not ln.artifact), None)
        start = first_content.content_start if first_content else 0
        self.open_node(
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
            boundary = self._starts_paragraph(prev, blank_before, prev_heading_only)
            content_lines_seen += 1

            if TOC_TITLE.match(ln.text) and not self.in_kind("toc"):
                end_i = self._open_contents(i)
                prev = lines[end_i]
                prev_heading_only = True
                blank_before = True
                i = end_i + 1
                continue

            opened = self.try_heading(ln, boundary, content_lines_seen)
            if opened:
                prev_heading_only = self._heading_only(ln)
                j = self._take_title_line(i)
                if j is not None:
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

    def _starts_paragraph(self, prev: Line | None, blank_before: bool, heading_only: bool) -> bool:
        # A new label counts only at a paragraph start: after a blank line, a heading, a
        # sentence end, or a line well short of the wrap width (hard-wrapped lines run to
        # the margin; a short line ended its paragraph).
        return (
            blank_before
            or prev is None
            or heading_only
            or not self.hard_wrapped
            or ends_sentence(prev.text)
            or (len(prev.text) < 0.6 * self.width and not continues(prev.text))
        )

    def _open_contents(self, i: int) -> int:
        """Open the table of contents whose title is on line i, and a fresh preamble after it;
        the index of the contents' last line."""
        lines = self.lines
        ln = lines[i]
        end_i = toc_end(lines, i)
        self.pop_for_rank(RANK_TOP)
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
        self.open_node(toc)
        self.toc_entries.extend(toc_entries(lines, i, end_i, self.scope))
        self.contents_pending.add(self.scope)
        # What follows the contents (title, parties) is a fresh preamble.
        nxt = next_content(lines, end_i + 1)
        if nxt is not None:
            self.pop_for_rank(RANK_TOP)
            self.open_node(
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
        return end_i

    def _heading_only(self, ln: Line) -> bool:
        """Whether the line that opened the innermost node holds only its label and heading:
        such a line ends like a sentence for the next line."""
        top = self.nodes[self.stack[-1]]
        label_text = top.ref if top.heading in top.ref else top.ref + top.heading
        return len(NOT_TEXT.sub("", ln.text)) <= len(NOT_TEXT.sub("", label_text)) + 2

    def _take_title_line(self, i: int) -> int | None:
        """A heading alone on its line ("ARTICLE 1") takes the next short line as its title:
        the index of that line, once taken, or None."""
        lines = self.lines
        ln = lines[i]
        top = self.nodes[self.stack[-1]]
        if (
            not top.heading
            and top.kind in _TITLED_ON_NEXT_LINE
            and top.end == ln.content_end
            and top.end - top.start <= len(top.ref) + 2
        ):
            j = next_content(lines, i + 1)
            if j is not None and j - i <= 3:
                cand = lines[j].text
                if (
                    len(cand) <= 100
                    and not is_label_line(cand)
                    and (cand.isupper() or looks_like_title(cand))
                ):
                    top.heading = cand.rstrip(".:")
                    top.end = lines[j].content_end
                    top.last_line = j
                    return j
        return None

    def try_heading(
        self, ln: Line, boundary: bool, seen: int, s: str | None = None, off: int | None = None
    ) -> bool:
        """Open the node(s) that the line (or the part of it from ``off``) starts, if any."""
        if s is None or off is None:
            s = ln.text
            off = ln.content_start
        # Every kind of node opens only at a paragraph start.
        if not boundary:
            return False
        return any(recognise(self, ln, seen, s, off) for recognise in RECOGNISERS)

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
        assign_ids(nodes)
        self.nodes = nodes
        return Structure(self.text, self.lines, nodes, self.toc_entries, self.width)


def parse_structure(text: str) -> Structure:
    """Parse an extracted text into a flat, document-ordered list of nodes with parent links."""
    return Parser(text).parse()
