"""The node tree as the parser builds it: the stack of open nodes, the numbering rules that decide
where a new label nests and whether it continues its sibling's sequence, and the openers of
numbered nodes (articles, decimal sections, enumerations)."""

from __future__ import annotations

from legalnav.documents.parsing.layout import Line
from legalnav.documents.parsing.numbering import alpha_ordinal, roman_to_int
from legalnav.documents.parsing.structure.nodes import (
    ATTACHMENT_KINDS,
    LEAF_TOPS,
    RANK_DECIMAL,
    RANK_TOP,
    ParsedNode,
)
from legalnav.documents.parsing.structure.patterns import PAREN, split_heading


class Tree:
    """Nodes in document order, and the stack of those still open (innermost last)."""

    def __init__(self) -> None:
        self.nodes: list[ParsedNode] = []
        self.stack: list[int] = []
        self.scope = ""
        self.last_decimal: dict[str, tuple[int, ...]] = {}
        self.last_article: dict[str, int] = {}
        self.body_started = False  # a numbered heading has been seen (EDGAR cover lines precede)
        self.contents_pending: set[str] = set()  # scopes with a contents page but no body yet

    # -- node bookkeeping --

    def open_node(self, node: ParsedNode) -> int:
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

    def open_on_line(
        self,
        ln: Line,
        off: int,
        kind: str,
        ref: str,
        label: str,
        heading: str,
        rank: int,
        style: str,
        ordinal: int = 0,
    ) -> int:
        """Open a node that starts at ``off`` on line ``ln`` and runs, for now, to that line's
        end (``open_node``); its index."""
        node = ParsedNode(
            kind,
            ref,
            label,
            heading,
            off,
            ln.content_end,
            ln.index,
            ln.index,
            rank,
            style,
            ordinal,
        )
        return self.open_node(node)

    def pop_for_rank(self, rank: int) -> None:
        while self.stack:
            top = self.nodes[self.stack[-1]]
            # Numbered sections close a preamble, recitals or signature block: only articles
            # and attachments contain them.
            if top.dynamic or top.rank >= rank or (rank > RANK_TOP and top.kind in LEAF_TOPS):
                self.stack.pop()
            else:
                break

    def find_style(self, style: str) -> int | None:
        for pos in range(len(self.stack) - 1, -1, -1):
            node = self.nodes[self.stack[pos]]
            if node.style == style:
                return pos
            if not node.dynamic and style != "def":
                # Enumerations do not continue across a structural boundary.
                return None
        return None

    def top_style_ordinal(self, style: str) -> int | None:
        pos = self.find_style(style)
        return None if pos is None else self.nodes[self.stack[pos]].ordinal

    # -- numbering --

    def paren_style(self, label: str) -> tuple[str, int] | None:
        """Decide the style and ordinal of "(x)": alpha, roman, upper alpha, upper roman, digit."""
        if label.isdigit():
            return "p_1", int(label)
        lower = label.islower()
        if not (lower or label.isupper()):
            return None
        a_style, r_style = ("p_a", "p_i") if lower else ("p_A", "p_I")
        a_ord = alpha_ordinal(label)
        r_ord = roman_to_int(label) if set(label.lower()) <= set("ivxl") else None
        prev_a = self.top_style_ordinal(a_style)
        prev_r = self.top_style_ordinal(r_style)
        if a_ord is not None and prev_a is not None and a_ord == prev_a + 1:
            return a_style, a_ord
        if r_ord is not None and ((prev_r is not None and r_ord == prev_r + 1) or r_ord == 1):
            return r_style, r_ord
        if a_ord is not None and (a_ord == 1 or (prev_a is not None and a_ord == prev_a + 1)):
            return a_style, a_ord
        return None

    def sequence_ok(self, style: str, ordinal: int) -> bool:
        prev = self.top_style_ordinal(style)
        if prev is None:
            return ordinal == 1
        return ordinal == prev + 1

    def decimal_ok(self, numbers: tuple[int, ...], keyword: bool) -> bool:
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

    def in_kind(self, kind: str) -> bool:
        return any(self.nodes[k].kind == kind for k in self.stack)

    # -- opening numbered nodes --

    def open_article(self, ln: Line, off: int, ref: str, num: int, heading: str) -> None:
        self.pop_for_rank(RANK_TOP)
        self.open_on_line(ln, off, "article", ref, str(num), heading, RANK_TOP, "article", num)
        self.last_article[self.scope] = num
        self.body_started = True
        self.contents_pending.discard(self.scope)

    def open_decimal(
        self, ln: Line, off: int, ref: str, label: str, numbers: tuple[int, ...], rest: str
    ) -> None:
        rank = RANK_DECIMAL + len(numbers) - 1
        self.pop_for_rank(rank)
        heading, _ = split_heading(rest)
        self.open_on_line(
            ln, off, "section", ref, label, heading, rank, f"dec{len(numbers)}", numbers[-1]
        )
        self.last_decimal[self.scope] = numbers
        self.body_started = True
        self.contents_pending.discard(self.scope)
        # "Section 2.1 (a) text": the first sub-clause starts on the heading line.
        self.inline_children(ln, rest)

    def inline_children(self, ln: Line, rest: str) -> None:
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
        self.open_paren_chain(ln, ln.start + pos, stripped, only_first=True)

    def open_paren_chain(self, ln: Line, off: int, s: str, only_first: bool = False) -> bool:
        """Open "(a)" and any nested first labels on the same line: "(a) (i) text"."""
        opened = False
        depth = 0
        while depth < 3:
            m = PAREN.match(s)
            if not m:
                break
            label = m.group(1)
            decided = self.paren_style(label)
            if decided is None:
                break
            style, ordinal = decided
            if opened and ordinal != 1:
                break
            if only_first and ordinal != 1:
                break
            pos = self.find_style(style)
            if pos is not None:
                if ordinal != self.nodes[self.stack[pos]].ordinal + 1:
                    break
                del self.stack[pos:]
            elif ordinal != 1:
                break
            rest = m.group(2)
            heading, _ = split_heading(rest)
            self.open_on_line(ln, off, "clause", f"({label})", label, heading, -1, style, ordinal)
            opened = True
            depth += 1
            consumed = len(s) - len(rest)
            off += consumed
            s = rest
            if not s.startswith("("):
                break
        return opened
