"""Tables of contents (and indices of defined terms): where one ends, which provisions it lists,
and the "Table of Contents" links printed on every page that are not a contents page at all."""

from __future__ import annotations

import re

from legalnav.documents.parsing.layout import Line
from legalnav.documents.parsing.numbering import article_number, decimal_tuple, normalise_decimal
from legalnav.documents.parsing.structure.nodes import TocEntry
from legalnav.documents.parsing.structure.patterns import (
    ARTICLE,
    ATTACHMENT,
    DECIMAL,
    SECTION,
    TOC_LINE_END,
    TOC_RUN,
    TOC_TITLE,
    is_prose,
)


def mark_contents_links(lines: list[Line]) -> None:
    """Mark as page furniture a contents title printed on every page: "Table of Contents" at
    the top of each page is a link back to the contents (EDGAR HTML filings), not a contents
    page."""
    titles: dict[str, list[Line]] = {}
    for ln in lines:
        if ln.text and len(ln.text) < 40 and TOC_TITLE.match(ln.text):
            titles.setdefault(ln.text.lower(), []).append(ln)
    for repeated in titles.values():
        if len(repeated) >= 3:
            kept = False  # the first occurrence that lists provisions is the real contents
            for ln in repeated:
                if not kept and lists_contents(lines, ln.index):
                    kept = True
                else:
                    ln.artifact = True


def toc_end(lines: list[Line], i: int) -> int:
    """The index of the last line of the contents page whose title is on line i."""
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
        if TOC_TITLE.match(t):
            terms_index = terms_index or "TERM" in t.upper() or "DEFINITION" in t.upper()
            last = j
            j += 1
            continue
        if terms_index:
            if is_prose(t) and not toc_resumes(lines, j):
                break
            if len(t) <= 90:
                last = j
            j += 1
            continue
        key = toc_key(t)
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
            TOC_LINE_END.search(t)
            or re.fullmatch(r"(?:Page|PAGE|\d{1,3}|[ivxlc]{1,6})", t)
            or len(TOC_RUN.findall(t)) >= 3
        ):
            last = j
            content_since_last = 0
        elif is_prose(t) and not ATTACHMENT.match(t) and not toc_resumes(lines, j):
            break  # prose: the agreement itself has begun
        else:
            content_since_last += 1
            if content_since_last > 8:
                break
        j += 1
    return last


def lists_contents(lines: list[Line], i: int) -> bool:
    """Whether the lines after a contents title really list numbered provisions."""
    keys = 0
    seen = 0
    k = i + 1
    while k < len(lines) and seen < 15:
        t = lines[k].text
        k += 1
        if not t or lines[k - 1].artifact:
            continue
        seen += 1
        if toc_key(t) is not None or len(TOC_RUN.findall(t)) >= 2:
            keys += 1
    return keys >= 3


def toc_resumes(lines: list[Line], j: int) -> bool:
    """Whether contents-like lines follow within a few lines (a long entry title wrapped
    across lines, or an entry that reads like prose)."""
    seen = 0
    k = j + 1
    while k < len(lines) and seen < 4:
        ln = lines[k]
        k += 1
        if ln.artifact or not ln.text:
            continue
        seen += 1
        t = ln.text
        if (
            toc_key(t) is not None
            or re.search(r"(?:\s{2,}|\.{2,}|…|\t)\d{1,3}$", t)
            or re.fullmatch(r"\d{1,3}", t)
        ):
            return True
    return False


def toc_key(t: str) -> tuple[str, str] | None:
    m = ARTICLE.match(t)
    if m:
        num = article_number(m.group(2))
        if num is not None:
            return ("article", str(num))
    m = SECTION.match(t) or DECIMAL.match(t)
    if m:
        label = m.group(2) if m.re is SECTION else m.group(1)
        return ("section", normalise_decimal(label))
    m = ATTACHMENT.match(t)
    if m:
        return (m.group(1).lower(), m.group(2).upper())
    return None


def toc_entries(lines: list[Line], i: int, end_i: int, scope: str) -> list[TocEntry]:
    """The articles and sections a contents page lists, as entries of ``scope``."""
    seen: set[tuple[str, str]] = set()
    for ln in lines[i + 1 : end_i + 1]:
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
    return [TocEntry(kind, label, scope, "") for kind, label in sorted(seen)]


def _toc_order(key: tuple[str, str]) -> tuple[int, ...] | None:
    if key[0] == "section":
        return decimal_tuple(key[1]) or None
    if key[0] == "article" and key[1].isdigit():
        return (int(key[1]),)
    return None
