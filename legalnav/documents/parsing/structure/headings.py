"""Heading recognition: one recogniser per kind of node a line may open.

Each recogniser looks at a line (or the part of it from ``off``) that starts a paragraph and
either opens the node(s) it recognises and returns True, or changes nothing and returns False.
``RECOGNISERS`` is the order the parser tries them in: the first that opens a node wins, so a
signature block or an attachment is seen before an article, an article before a section, and a
section before an enumeration or a definition.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from legalnav.documents.parsing.layout import Line
from legalnav.documents.parsing.numbering import (
    article_number,
    decimal_tuple,
    normalise_decimal,
    roman_to_int,
)
from legalnav.documents.parsing.structure.nodes import (
    ATTACHMENT_KINDS,
    RANK_ATTACHMENT,
    RANK_TOP,
    ParsedNode,
)
from legalnav.documents.parsing.structure.patterns import (
    ARTICLE,
    ATTACHMENT,
    DECIMAL,
    DEFINITION,
    EDGAR_EXHIBIT,
    INLINE_SECTION,
    LETTER_DOT,
    NOW_THEREFORE,
    PAREN,
    RECITALS_TITLE,
    ROMAN_ARTICLE,
    SECTION,
    SIGNATURES,
    TOP_NUMBER,
    WHEREAS,
    is_prose,
    looks_like_title,
    next_content,
    split_heading,
)

if TYPE_CHECKING:
    from legalnav.documents.parsing.structure.parser import Parser

# (parser, line, content lines seen so far, text from the offset, offset) -> opened
Recogniser = Callable[["Parser", Line, int, str, int], bool]


def _signatures(p: Parser, ln: Line, seen: int, s: str, off: int) -> bool:
    """A signature block: "IN WITNESS WHEREOF"."""
    if not SIGNATURES.match(s):
        return False
    p.pop_for_rank(RANK_TOP)
    p.open_on_line(ln, off, "signatures", "", "signatures", "Signatures", RANK_TOP, "top")
    return True


def _attachment(p: Parser, ln: Line, seen: int, s: str, off: int) -> bool:
    """Schedules, exhibits, annexes, appendices: each starts a scope of its own."""
    m = ATTACHMENT.match(s)
    if not (m and _attachment_ok(p, ln, m, seen)):
        return False
    kind = m.group(1).lower()
    label = m.group(2)
    rest = m.group(3).strip(" -–—:.")
    p.pop_for_rank(RANK_ATTACHMENT)
    p.scope = ""
    name = label.upper() if not label[0].isdigit() else label
    idx = p.open_on_line(
        ln, off, kind, f"{m.group(1)} {label}", name, rest, RANK_ATTACHMENT, "attachment"
    )
    p.scope = f"{ATTACHMENT_KINDS[kind]}{name}"
    p.nodes[idx].scope = ""
    p.last_decimal.pop(p.scope, None)
    p.last_article.pop(p.scope, None)
    return True


def _attachment_ok(p: Parser, ln: Line, m: re.Match[str], seen: int) -> bool:
    s = ln.text
    if len(s) > 110:
        return False
    if seen <= 3 and EDGAR_EXHIBIT.match(s):
        return False  # the EDGAR exhibit number printed at the top of the filing
    if not p.body_started and not p.in_kind("signatures"):
        return False  # lists of schedules and exhibits that follow a contents page
    if p.scope in p.contents_pending:
        return False  # the same, for an agreement attached with its own contents page
    # A line followed at once by another attachment label is an entry in a list of
    # attachments, not the attachment itself.
    j = ln.index
    for _ in range(3):
        k = next_content(p.lines, j + 1)
        if k is None or is_prose(p.lines[k].text):
            break
        nxt = ATTACHMENT.match(p.lines[k].text)
        if nxt and nxt.group(1).lower() == m.group(1).lower():
            return False
        j = k
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


def _recitals_title(p: Parser, ln: Line, seen: int, s: str, off: int) -> bool:
    """A recitals title: "RECITALS", "WITNESSETH", "Background"."""
    if not (RECITALS_TITLE.match(s) and not p.in_kind("recitals")):
        return False
    p.pop_for_rank(RANK_TOP)
    p.open_on_line(ln, off, "recitals", s, "recitals", "Recitals", RANK_TOP, "top")
    return True


def _recital(p: Parser, ln: Line, seen: int, s: str, off: int) -> bool:
    """A "WHEREAS" recital, or the "NOW, THEREFORE" that closes the recitals; recitals without
    a title open an untitled recitals node."""
    if not (WHEREAS.match(s) or (NOW_THEREFORE.match(s) and p.in_kind("recitals"))):
        return False
    if not p.in_kind("recitals"):
        p.pop_for_rank(RANK_TOP)
        p.open_node(
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
    pos = p.find_style("whereas")
    if pos is not None:
        del p.stack[pos:]
    else:
        while p.nodes[p.stack[-1]].kind != "recitals":
            p.stack.pop()
    count = sum(1 for c in p.nodes[p.stack[-1]].children if p.nodes[c].style == "whereas") + 1
    is_now = bool(NOW_THEREFORE.match(s))
    p.open_on_line(
        ln,
        off,
        "recital",
        "NOW, THEREFORE" if is_now else "WHEREAS",
        "now-therefore" if is_now else str(count),
        "Agreement to the terms" if is_now else "",
        -1,
        "whereas",
        count,
    )
    return True


def _article(p: Parser, ln: Line, seen: int, s: str, off: int) -> bool:
    """An article: "ARTICLE V", "Article 5. Covenants", "ART. 5"."""
    m = ARTICLE.match(s)
    if not m:
        return False
    num = article_number(m.group(2))
    rest = m.group(3)
    prev_art = p.last_article.get(p.scope)
    upper_kw = m.group(1) in ("ARTICLE", "ART.")
    inline = INLINE_SECTION.search(rest)
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
        p.open_article(ln, off, f"{m.group(1)} {m.group(2)}", num, heading)
        if inline:
            # "ARTICLE 1. DEFINITIONS Section 1.1 Defined Terms. …" on one line.
            sub_off = off + len(s) - len(rest) + inline.start() + 1
            p.try_heading(ln, True, seen, s[sub_off - off :], sub_off)
        return True
    return False


def _roman_article(p: Parser, ln: Line, seen: int, s: str, off: int) -> bool:
    """An article numbered by a bare roman numeral with a capitalised title: "IV. COVENANTS"."""
    m = ROMAN_ARTICLE.match(s)
    if not m:
        return False
    num = roman_to_int(m.group(1))
    prev_art = p.last_article.get(p.scope)
    if num is not None and (prev_art is None or num == prev_art + 1) and (num == 1 or prev_art):
        p.open_article(ln, off, f"{m.group(1)}.", num, m.group(2).strip())
        return True
    return False


def _section(p: Parser, ln: Line, seen: int, s: str, off: int) -> bool:
    """A decimal section: "Section 5.17", "5.17"."""
    m = SECTION.match(s)
    keyword = True
    if not m:
        keyword = False
        m = DECIMAL.match(s)
    if not m:
        return False
    raw = m.group(2) if keyword else m.group(1)
    rest = m.group(3) if keyword else m.group(2)
    label = normalise_decimal(raw)
    numbers = decimal_tuple(label)
    if (
        numbers
        and p.decimal_ok(numbers, keyword)
        and (not rest or rest[:1].isupper() or rest[:1] in '“"([')
    ):
        ref = f"{m.group(1)} {raw}" if keyword else raw
        p.open_decimal(ln, off, ref, label, numbers, rest)
        return True
    return False


def _top_number(p: Parser, ln: Line, seen: int, s: str, off: int) -> bool:
    """A top-level section numbered "5." in an agreement without articles."""
    m = TOP_NUMBER.match(s)
    if not (m and (not m.group(2) or m.group(2)[:1].isupper() or m.group(2)[:1] in '“"(')):
        return False
    numbers = (int(m.group(1)),)
    last = p.last_decimal.get(p.scope)
    # Inside articles, or after "5.17"-style numbering, a bare "7." is a list item.
    plausible = p.last_article.get(p.scope) is None and (
        last is None or len(last) == 1 or numbers[0] == last[0] + 1
    )
    if plausible and not m.group(2):
        # "6." alone on its line is a heading only if a title follows it.
        j = next_content(p.lines, ln.index + 1)
        nxt = p.lines[j].text if j is not None else ""
        plausible = bool(nxt) and (nxt.isupper() or looks_like_title(nxt))
    if plausible and p.decimal_ok(numbers, False):
        p.open_decimal(ln, off, f"{m.group(1)}.", str(numbers[0]), numbers, m.group(2))
        return True
    return False


def _enumeration(p: Parser, ln: Line, seen: int, s: str, off: int) -> bool:
    """Enumerations: "(a)", "(i)", "(A)", "(1)", and any first labels nested on the same line.

    A line that starts with "(" and is not a label in sequence opens nothing; no recogniser
    after this one matches a line that starts with "(" either."""
    return bool(PAREN.match(s)) and p.open_paren_chain(ln, off, s)


def _letter_dot(p: Parser, ln: Line, seen: int, s: str, off: int) -> bool:
    """Capital letters as labels: "A. Purchase Price", in sequence."""
    m = LETTER_DOT.match(s)
    if not m:
        return False
    ordinal = ord(m.group(1)) - 64
    if p.sequence_ok("d_A", ordinal) and len(s) > 3:
        pos = p.find_style("d_A")
        if pos is not None:
            del p.stack[pos:]
        heading, _ = split_heading(m.group(2))
        p.open_on_line(ln, off, "clause", f"{m.group(1)}.", m.group(1), heading, -1, "d_A", ordinal)
        return True
    return False


def _definition(p: Parser, ln: Line, seen: int, s: str, off: int) -> bool:
    """Definitions: “Term” means …"""
    m = DEFINITION.match(s)
    if not m:
        return False
    term = m.group(1).strip()
    if term[:1].isupper() or term[:1].isdigit():
        pos = p.find_style("def")
        if pos is not None:
            del p.stack[pos:]
        p.open_on_line(ln, off, "definition", f"“{term}”", term, term, -1, "def")
        return True
    return False


RECOGNISERS: tuple[Recogniser, ...] = (
    _signatures,
    _attachment,
    _recitals_title,
    _recital,
    _article,
    _roman_article,
    _section,
    _top_number,
    _enumeration,
    _letter_dot,
    _definition,
)
