"""Citations in answers, and the check every one of them gets before anyone sees it.

An answer cites a provision as ``[D3:s2.02]`` (document key, node id), or ``[D3] Section 2.02``
where the model saw whole documents. The checker reads an answer the way a careful reader does:

1. **Parse** it into citation markers, quotations and sentences. A quotation is any quoted
   run, whatever its style: straight or curly double quotes, single quotes (told apart from
   apostrophes), «guillemets», „German“ quotes, and Markdown block quotes (``> …``), on one line or
   across line breaks.
2. **Bind** every quotation to the marker it supports: the marker right after it; else the
   nearest marker before it in the same sentence; else the next one in that sentence; else the
   nearest on the same line; else a marker on the line after it (an attribution line below a
   block quote) or, failing that, on the line before. A quotation bound to nothing is itself a
   problem: it quotes the documents without saying where from.
3. **Check** each quotation against the text of the provision it is bound to, normalising only
   what is typographic: spacing, the style of quotation marks and dashes, a word hyphenated at a
   line break, a capital at the start of the quotation ("[T]he"), punctuation at its ends, and
   ellipses, which stand for gaps between pieces that must appear in order. Case, words,
   numbers and word order must be exactly as in the provision.

Each citation gets one verdict: ``verified`` (every quotation bound to it is verbatim in the
provision), ``unquoted`` (it exists but carries no quotation: weaker, shown as such),
``quote_not_found``, or ``no_such_provision``. A sentence that states a fact from the documents
(an amount, a percentage, a period, a date, a clause reference) on a line with no citation is
reported as ``uncited``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from legalnav.answers.sentences import split as split_sentences
from legalnav.core.text import normalise

# "[D3:s2.01]" (a node id) or "[D3] Clause 2.01" / "[D3] Section 2.01(a)" (a clause reference,
# used where the model saw whole documents rather than numbered provisions).
MARKER = re.compile(
    r"\[(D\d+):([^\]\s]{1,200})\]|\[(D\d+)\]\s*(?:Clause|Section|Article|§)?\s*"
    r"([0-9]{1,3}(?:\.[0-9]{1,3})*(?:\([a-zA-Z0-9]{1,5}\))*|[IVXLC]{1,6}\b)"
)

VERIFIED = "verified"
UNQUOTED = "unquoted"
NOT_FOUND = "quote_not_found"
NO_SUCH = "no_such_provision"
ELIDED = "quote_elided"
UNCITED = "uncited"
VERDICTS = {
    VERIFIED: "Quotation verified word for word",
    ELIDED: "Quotation's ellipsis leaves out words that change its meaning",
    UNQUOTED: "Cited without a quotation: the provision exists, the wording was not checked",
    NOT_FOUND: "Quotation not found in the cited provision",
    NO_SUCH: "No such document or provision in this matter",
    UNCITED: "States something from the documents without a citation",
}
PROBLEMS = {
    NOT_FOUND: "quoted text is not in the cited provision",
    ELIDED: "the “…” leaves out words that change the meaning",
    NO_SUCH: "no such document or provision in this matter",
}

# Double-quote styles (body: no blank line). Straight quotes pair in order of appearance.
_DOUBLE = re.compile(
    r"“((?:(?!\n\s*\n)[^”])+?)”"
    r"|„((?:(?!\n\s*\n)[^“”])+?)[“”]"
    r"|«\s?((?:(?!\n\s*\n)[^»])+?)\s?»"
    r"|‹\s?((?:(?!\n\s*\n)[^›])+?)\s?›"
    r'|"((?:(?!\n\s*\n)[^"])+?)"'
    r"|[＂「『]((?:(?!\n\s*\n)[^＂」』])+?)[＂」』]"
)
# Single quotes: the opening one at a word's start, the closing one at a word's end followed by
# a space or punctuation, so that apostrophes ("the Buyer's", "’s") are not taken for quotes.
_SINGLE = re.compile(
    r"(?:(?<=^)|(?<=[\s(\[{—–-]))[‘']((?=\S)(?:(?!\n\s*\n).)+?(?<=\S))[’'](?=$|[\s.,;:!?)\]}—–-])",
    re.S | re.M,
)
_BLOCK_LINE = re.compile(r"^[ \t]*>[ \t]?(.*)$", re.M)
_LETTERS = re.compile(r"[A-Za-z].*[A-Za-z]", re.S)
# What may stand between a quotation and the marker right after it.
_GLUE = re.compile(r"[\s,.;:)\]—–-]{0,6}")

# A statement of fact from the documents: money, a percentage, a period, a year, a clause.
_FACT = re.compile(
    r"[$€£]\s?\d|\b\d+(?:\.\d+)?\s?(?:%|per\s?cent|percent)"
    r"|\b\d+\s+(?:business\s+|calendar\s+)?(?:days?|weeks?|months?|years?)\b"
    r"|\b(?:19|20)\d\d\b"
    r"|\b(?:Section|Article|Clause|Schedule|Exhibit|Annex|Paragraph)\s+[0-9IVXL]",
    re.I,
)


def states_fact(text: str) -> bool:
    """Whether a line would be read as stating a fact from the documents (and so need a
    citation): an amount, a percentage, a period, a year or a clause reference."""
    return bool(_FACT.search(text))


_WS = re.compile(r"\s+")
_ELLIPSIS = re.compile(r"\s*(?:\[\s*(?:\.\s*){3}\]|\[\s*…\s*\]|…|\.\s?\.\s?\.)\s*")
_BRACKETED_LETTER = re.compile(r"\[([A-Za-z])\]")
_END_PUNCT = " \t\n.,;:!?'"


# Between the two readings of one provision in a checkable text (see checkable_text): no
# quotation contains it, so none can match across it.
READINGS_SEPARATOR = " \u241e "


def checkable_text(raw: str, clean_parts: list[str]) -> str:
    """What a quotation from a provision is checked against: the provision as the reader shows
    it (its clauses' text, page numbers and running headers removed) and as the file has it
    (the same span, line breaks tidied). An answerer may have been shown either; a quotation
    must be verbatim in one of them, never across the two."""
    clean = " ".join(p for p in clean_parts if p).strip()
    if not clean or normalise(clean) == normalise(raw):
        return raw
    return f"{clean}{READINGS_SEPARATOR}{raw}"


def quotation_pieces(quote: str) -> list[str]:
    """The runs of a quotation that must appear, in order, in the provision (ellipses are
    gaps); empty when the quotation has no words to check."""
    pieces = []
    for piece in _ELLIPSIS.split(normalise(quote)):
        piece = _BRACKETED_LETTER.sub(r"\1", piece).strip(_END_PUNCT)
        if _LETTERS.search(piece) or re.search(r"\d", piece):
            pieces.append(piece)
    return pieces


def _find(haystack: str, piece: str, start: int) -> int:
    found = haystack.find(piece, start)
    if found >= 0 or not piece[:1].isalpha():
        return found
    # A quotation may capitalise (or lower-case) its first letter to fit the sentence.
    return haystack.find(piece[0].swapcase() + piece[1:], start)


# Each piece of a quotation with gaps must be a run of at least this many words: otherwise
# "shall … not" could stitch single words from anywhere in the provision into a new sentence.
MIN_WORDS_PER_ELIDED_PIECE = 3


def quote_in(quote: str, text: str) -> bool | None:
    """Whether the quotation is verbatim in ``text`` (None: nothing in it to check)."""
    pieces = quotation_pieces(quote)
    if not pieces:
        return None
    if len(pieces) > 1 and any(len(p.split()) < MIN_WORDS_PER_ELIDED_PIECE for p in pieces):
        return False
    haystack = normalise(text)
    pos = 0
    for piece in pieces:
        at = _find(haystack, piece, pos)
        if at < 0:
            return False
        pos = at + len(piece)
    return True


# Words whose omission can turn a provision's meaning round: a negation, an exception, a
# condition or a carve-out. A quotation whose "…" drops one is not verbatim in any useful sense.
_REVERSING = re.compile(
    r"\b(?:not|no|never|nor|neither|none|cannot|can't|won't|shan't|except|excepting|unless|"
    r"provided(?:\s+(?:that|however))?|save|other\s+than|subject\s+to|notwithstanding|"
    r"excluding|exclusive\s+of|without|only\s+if|if\s+and\s+only\s+if|but)\b",
    re.IGNORECASE,
)
ELIDED_WORDS_SHOWN = 160
EDGE_WORDS = 4


def elided_reversal(quote: str, text: str) -> str | None:
    """What a verbatim quotation's ellipses leave out of ``text`` when that includes a word that
    can reverse the meaning ("not", "except …", "unless …", "provided that …"): the words left
    out (shortened), or None when every gap is harmless."""
    pieces = quotation_pieces(quote)
    if len(pieces) < 2:
        return None
    haystack = normalise(text)
    found: list[tuple[int, int]] = []
    pos = 0
    for piece in pieces:
        at = _find(haystack, piece, pos)
        if at < 0:
            return None
        found.append((at, at + len(piece)))
        pos = at + len(piece)
    for (_, end), (start, _) in itertools.pairwise(found):
        gap = haystack[end:start].strip(_END_PUNCT + " ")
        words = gap.split()
        # What governs the words either side of the gap: the first and last few words left out
        # ("shall … assign" drops "not"; "… change in the financial terms" drops "with no
        # additional"). A long gap's middle qualifies text the quotation does not keep.
        edges = " ".join(words[:EDGE_WORDS]) + " | " + " ".join(words[-EDGE_WORDS:])
        if _REVERSING.search(edges):
            return gap if len(gap) <= ELIDED_WORDS_SHOWN else gap[: ELIDED_WORDS_SHOWN - 1] + "…"
    return None


# --- parsing -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Marker:
    doc_key: str
    node_id: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Quotation:
    text: str
    start: int
    end: int
    style: str  # double | single | guillemet | block


@dataclass(slots=True)
class Parsed:
    markers: list[Marker]
    quotations: list[Quotation]
    bound: dict[int, list[Quotation]]  # marker index -> its quotations, in order
    unbound: list[Quotation]
    uncited: list[str]  # sentences stating facts with no citation on their line
    # quotation start -> the other marker it may belong to (markers on both sides of it in its
    # clause): when it is not verbatim in the one it is bound to but is in this one, it moves
    alternates: dict[int, int] = field(default_factory=dict)


def _markers(answer: str) -> list[Marker]:
    out = []
    for m in MARKER.finditer(answer):
        if m.group(1):
            out.append(Marker(m.group(1), m.group(2)[:200], m.start(), m.end()))
        else:
            out.append(Marker(m.group(3), f"clause:{m.group(4)}"[:200], m.start(), m.end()))
    return out


def _mask(text: str, spans: list[tuple[int, int]]) -> str:
    chars = list(text)
    for a, b in spans:
        for i in range(a, b):
            if chars[i] != "\n":
                chars[i] = " "
    return "".join(chars)


def _quotations(answer: str, markers: list[Marker]) -> list[Quotation]:
    masked = _mask(answer, [(m.start, m.end) for m in markers])
    found: list[Quotation] = []
    for m in _DOUBLE.finditer(masked):
        idx = next(i for i in range(1, 7) if m.group(i) is not None)
        body = answer[m.start(idx) : m.end(idx)]
        if _LETTERS.search(body) or re.search(r"\d", body):
            style = "guillemet" if idx in (3, 4) else "double"
            found.append(Quotation(body, m.start(), m.end(), style))
    masked = _mask(masked, [(q.start, q.end) for q in found])
    for m in _SINGLE.finditer(masked):
        body = answer[m.start(1) : m.end(1)]
        if _LETTERS.search(body):
            found.append(Quotation(body, m.start(), m.end(), "single"))
    # Markdown block quotes: consecutive "> " lines. Their words are a quotation unless the
    # block carries quotation marks of its own (those are the quotations then).
    lines = list(_BLOCK_LINE.finditer(answer))
    blocks: list[list[re.Match[str]]] = []
    for line in lines:
        if blocks and answer[blocks[-1][-1].end() : line.start()] == "\n":
            blocks[-1].append(line)
        else:
            blocks.append([line])
    for block in blocks:
        start, end = block[0].start(), block[-1].end()
        if any(start <= q.start < end for q in found):
            continue
        body = " ".join(MARKER.sub(" ", ln.group(1)) for ln in block)
        body = re.sub(r"^[\s—–-]+|[\s—–-]+$", "", _WS.sub(" ", body))
        if _LETTERS.search(body):
            found.append(Quotation(body, start, end, "block"))
    return sorted(found, key=lambda q: q.start)


def _line_spans(answer: str) -> list[tuple[int, int]]:
    spans, pos = [], 0
    for line in answer.split("\n"):
        spans.append((pos, pos + len(line)))
        pos += len(line) + 1
    return spans


def _line_of(spans: list[tuple[int, int]], offset: int) -> int:
    for i, (a, b) in enumerate(spans):
        if a <= offset <= b:
            return i
    return len(spans) - 1


def _bind(
    answer: str,
    q: Quotation,
    markers: list[Marker],
    spans: list[tuple[int, int]],
) -> list[int]:
    """The markers the quotation belongs to, the likeliest first (empty: none). A second one is
    the other side of its clause, tried when the first does not hold the quotation."""
    # 1. The marker right after it ("“…” [D1:s9]").
    for i, m in enumerate(markers):
        if m.start >= q.end:
            if _GLUE.fullmatch(answer[q.end : m.start]):
                return [i]
            break
    first_line, last_line = _line_of(spans, q.start), _line_of(spans, max(q.start, q.end - 1))
    line_start, line_end = spans[first_line][0], spans[last_line][1]
    # 2. In its clause (its sentence cut at ";" and ":"): the marker that closes the clause, after
    # the quotation; else the nearest one before it. With markers on both sides, the other one
    # is the alternate.
    sentence = _sentence_around(answer, line_start, line_end, q.start)
    if sentence is not None:
        s_start, s_end = sentence
        c_start, c_end = _clause_around(answer, s_start, max(s_end, q.end), q, markers)
        after = [i for i, m in enumerate(markers) if m.start >= q.end and m.end <= c_end]
        before = [i for i, m in enumerate(markers) if c_start <= m.start and m.end <= q.start]
        if after or before:
            return (after[:1] + before[-1:]) if after else before[-1:]
        # 3. In its sentence: the nearest marker before it, else the next one after it.
        before = [i for i, m in enumerate(markers) if s_start <= m.start and m.end <= q.start]
        if before:
            return [before[-1]]
        after = [
            i for i, m in enumerate(markers) if m.start >= q.end and m.end <= max(s_end, q.end)
        ]
        if after:
            return [after[0]]
    # 4. On the same line(s): the next marker, else the one before.
    after = [i for i, m in enumerate(markers) if q.end <= m.start <= line_end]
    if after:
        return [after[0]]
    before = [i for i, m in enumerate(markers) if line_start <= m.start and m.end <= q.start]
    if before:
        return [before[-1]]
    # 5. The next non-empty line when it only attributes ("[D1:s9]", "— [D1:s9]"), or any next
    # line under a block quote; then the line before, when it introduces the quotation
    # ("Section 9 [D1:s9] provides:").
    block = q.style == "block" or _BLOCK_LINE.match(answer[line_start:line_end]) is not None
    for j in range(last_line + 1, len(spans)):
        a, b = spans[j]
        if answer[a:b].strip():
            on_line = [i for i, m in enumerate(markers) if a <= m.start <= b]
            if on_line and (block or _attribution(answer[a:b])):
                return [on_line[0]]
            break
    for j in range(first_line - 1, -1, -1):
        a, b = spans[j]
        if answer[a:b].strip():
            on_line = [i for i, m in enumerate(markers) if a <= m.start <= b]
            if on_line and (block or answer[a:b].rstrip().endswith(":")):
                return [on_line[-1]]
            break
    return []


_CLAUSE_END = re.compile(r"[;:]")


def _clause_around(
    answer: str, start: int, end: int, q: Quotation, markers: list[Marker]
) -> tuple[int, int]:
    """The clause of the sentence [start, end) that holds the quotation: cut at ";" and ":"
    outside the quotation and the markers ("[D1:s9]" has a colon of its own)."""
    c_start, c_end = start, end
    for m in _CLAUSE_END.finditer(answer, start, end):
        at = m.start()
        if q.start <= at < q.end or any(k.start <= at < k.end for k in markers):
            continue
        if m.start() < q.start:
            c_start = m.end()
        elif m.start() >= q.end:
            c_end = m.start()
            break
    return c_start, c_end


def _attribution(line: str) -> bool:
    """A line that does nothing but name a source: "[D1:s9]", "— [D1:s9]", "(Source: [D1:s9])"."""
    rest = re.sub(r"[\s\W_]+", " ", MARKER.sub(" ", line)).strip().lower()
    return len(rest) <= 12


def _sentence_around(
    answer: str, line_start: int, line_end: int, at: int
) -> tuple[int, int] | None:
    for s in split_sentences(answer[line_start:line_end]):
        if line_start + s.start <= at < line_start + s.end:
            return line_start + s.start, line_start + s.end
    return None


def _uncited(answer: str, markers: list[Marker], quotations: list[Quotation]) -> list[str]:
    spans = _line_spans(answer)
    with_marker = {_line_of(spans, m.start) for m in markers}
    in_quote = set()
    for q in quotations:
        for j in range(_line_of(spans, q.start), _line_of(spans, max(q.start, q.end - 1)) + 1):
            in_quote.add(j)
    out = []
    for j, (a, b) in enumerate(spans):
        line = answer[a:b]
        if j in with_marker or j in in_quote or not line.strip() or _BLOCK_LINE.match(line):
            continue
        # A line that introduces the cited line below it ("Section 9 provides:") is covered.
        nxt = next((k for k in range(j + 1, len(spans)) if answer[slice(*spans[k])].strip()), None)
        if (
            nxt is not None
            and line.rstrip().endswith(":")
            and (nxt in with_marker or _BLOCK_LINE.match(answer[slice(*spans[nxt])]))
        ):
            continue
        for s in split_sentences(line):
            if _FACT.search(s.text):
                out.append(s.text)
    return out


def parse(answer: str) -> Parsed:
    markers = _markers(answer)
    quotations = _quotations(answer, markers)
    spans = _line_spans(answer)
    bound: dict[int, list[Quotation]] = {}
    unbound = []
    alternates: dict[int, int] = {}
    for q in quotations:
        candidates = _bind(answer, q, markers, spans)
        if not candidates:
            unbound.append(q)
            continue
        bound.setdefault(candidates[0], []).append(q)
        if len(candidates) > 1:
            alternates[q.start] = candidates[1]
    return Parsed(
        markers, quotations, bound, unbound, _uncited(answer, markers, quotations), alternates
    )


# --- checking ----------------------------------------------------------------------------------


@dataclass(slots=True)
class CitationCheck:
    """One row per (marker, quotation), or one per marker without a quotation."""

    doc_key: str
    node_id: str
    quote: str = ""
    ok: bool = True
    problem: str = ""
    verdict: str = UNQUOTED
    cited_text: str | None = None  # the provision's text when it was checked (None: no such)
    marker_start: int = -1


@dataclass(slots=True)
class Validation:
    checks: list[CitationCheck] = field(default_factory=list)
    uncited: list[str] = field(default_factory=list)  # facts stated with no citation
    unbound: list[str] = field(default_factory=list)  # quotations that cite nothing

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks) and not self.uncited and not self.unbound

    @property
    def problems(self) -> list[str]:
        out = [f"[{c.doc_key}:{c.node_id}] {c.problem}" for c in self.checks if not c.ok]
        out += [f"quotation with no citation: “{q}”" for q in self.unbound]
        out += [f"no citation for: {s}" for s in self.uncited]
        return out

    def levels(self) -> dict[str, int]:
        counts = {v: 0 for v in VERDICTS}
        for c in self.checks:
            counts[c.verdict] += 1
        counts[UNCITED] = len(self.uncited) + len(self.unbound)
        return counts

    def as_dict(self) -> dict[str, object]:
        return {
            "ok": self.ok,
            "citations": len({(c.doc_key, c.node_id) for c in self.checks}),
            "quotes": sum(1 for c in self.checks if c.quote),
            "levels": self.levels(),
            "uncited": self.uncited,
            "unbound": self.unbound,
            "problems": self.problems,
        }


def extract(answer: str) -> list[tuple[str, str, list[str]]]:
    """(doc_key, node_id, quotations bound to it) for each marker, in the answer's order."""
    parsed = parse(answer)
    return [
        (
            m.doc_key,
            m.node_id,
            [q.text for q in parsed.bound.get(i, []) if quotation_pieces(q.text)],
        )
        for i, m in enumerate(parsed.markers)
    ]


def validate(
    answer: str, lookup: Callable[[str, str], str | None], *, known: Sequence[str] = ()
) -> Validation:
    """``lookup(doc_key, node_id)`` returns the node's text, or None when it does not exist; a
    node id of the form "clause:2.01" asks the lookup to resolve a printed clause reference.
    ``known`` are texts the answer may repeat without a citation: the user's own question (an
    answer that restates it states nothing from the documents)."""
    parsed = parse(answer)
    echoed = [normalise(k) for k in known if k]

    def said_by_user(text: str) -> bool:
        pieces = quotation_pieces(text)
        return bool(pieces) and any(all(p in k for p in pieces) for k in echoed)

    result = Validation(
        uncited=[s for s in parsed.uncited if not said_by_user(s)],
        unbound=[_WS.sub(" ", q.text).strip() for q in parsed.unbound if not said_by_user(q.text)],
    )
    texts: dict[tuple[str, str], str | None] = {}

    def text_of(marker: Marker) -> str | None:
        key = (marker.doc_key, marker.node_id)
        if key not in texts:
            texts[key] = lookup(*key)
        return texts[key]

    # A quotation with markers on both sides of its clause goes to the other one when that is
    # where its words are ("the law of “New York” [D1:s9]; the amendment changed notice to
    # “sixty (60)” days [D2:s1]").
    for i in list(parsed.bound):
        for q in list(parsed.bound[i]):
            other = parsed.alternates.get(q.start)
            if other is None or not quotation_pieces(q.text):
                continue
            here, there = text_of(parsed.markers[i]), text_of(parsed.markers[other])
            if not (here and quote_in(q.text, here)) and there and quote_in(q.text, there):
                parsed.bound[i].remove(q)
                parsed.bound.setdefault(other, []).append(q)
    for i, m in enumerate(parsed.markers):
        key = (m.doc_key, m.node_id)
        if key not in texts:
            texts[key] = lookup(*key)
        text = texts[key]
        if text is None:
            result.checks.append(
                CitationCheck(
                    m.doc_key, m.node_id, ok=False, problem=PROBLEMS[NO_SUCH], verdict=NO_SUCH,
                    marker_start=m.start,
                )
            )  # fmt: skip
            continue
        quotes = [q for q in parsed.bound.get(i, []) if quotation_pieces(q.text)]
        if not quotes:
            result.checks.append(
                CitationCheck(m.doc_key, m.node_id, verdict=UNQUOTED, cited_text=text,
                              marker_start=m.start)
            )  # fmt: skip
            continue
        for q in sorted(quotes, key=lambda q: q.start):
            ok = bool(quote_in(q.text, text))
            verdict, problem = (VERIFIED, "") if ok else (NOT_FOUND, PROBLEMS[NOT_FOUND])
            left_out = elided_reversal(q.text, text) if ok else None
            if left_out:
                ok, verdict = False, ELIDED
                problem = f"{PROBLEMS[ELIDED]}: it leaves out “{left_out}”"
            result.checks.append(
                CitationCheck(
                    m.doc_key,
                    m.node_id,
                    _WS.sub(" ", q.text).strip(),
                    ok,
                    problem,
                    verdict,
                    text,
                    m.start,
                )
            )
    return result
