"""The document reader: a document's clauses with their cross-references as links, defined terms
marked with their definitions, amendments shown beside the clauses they change, and flags.

Document text is untrusted. It reaches the page only through ``_render``, which escapes every
piece of text and every attribute value with ``html.escape(..., quote=True)`` (what Django's
``escape`` does) before joining them; nothing here passes document text to ``mark_safe``
unescaped, and the tests feed it ``<script>`` and attribute-breaking quotes. The clause HTML is
built in Python rather than in a template loop because a long credit agreement has tens of
thousands of text pieces and the template engine is about ten times slower at that.
"""

from __future__ import annotations

import html
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache

from django.db.models import F
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

from legalnav.documents.models import CrossReference, DefinedTerm, Document, Node
from legalnav.documents.parsing.trie import trie_pattern
from legalnav.documents.selectors import document_nodes

# Flags worth a badge (hasParty and isTocEntry are on most nodes or shown otherwise).
FLAG_BADGES: tuple[tuple[str, str, str], ...] = (
    ("is_definition", "definition", "A definition"),
    ("has_money", "money", "Mentions an amount of money"),
    ("has_date", "date", "Mentions a date or period"),
    ("has_percentage", "%", "Mentions a percentage"),
    ("has_liability_limit", "liability cap", "Limits liability"),
    ("has_condition", "condition", "States a condition"),
)

# Kinds that stay out of the outline: there are many of them and they sit inside sections.
_OUTLINE_SKIP = {Node.Kind.CLAUSE, Node.Kind.DEFINITION, Node.Kind.PARAGRAPH}

_AMENDING_KINDS = {Document.Kind.AMENDMENT, Document.Kind.SIDE_LETTER}


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


@dataclass(frozen=True, slots=True)
class Span:
    """A marked stretch of one node's text: [start, end) with the tag that wraps it."""

    start: int
    end: int
    kind: str  # "xref" | "xref-doc" | "xref-missing" | "term" | "dfn" | "mark"
    href: str = ""
    title: str = ""
    term_id: int = 0


@dataclass(frozen=True, slots=True)
class TermDef:
    id: int
    term: str
    node_id: str  # where it is defined
    excerpt: str


@dataclass(frozen=True, slots=True)
class AmendmentNote:
    """A provision of another document that changes (or refers to) a clause of this one."""

    amends: bool  # True: an amendment or side letter; False: another document referring here
    document_id: int
    document_key: str
    document_title: str
    effective_date: date | None
    node_id: str
    node_label: str
    excerpt: str
    href: str


@dataclass(slots=True)
class ReaderNode:
    node: Node
    html: SafeString
    badges: list[tuple[str, str]] = field(default_factory=list)
    notes: list[AmendmentNote] = field(default_factory=list)

    @property
    def in_outline(self) -> bool:
        return not self.node.is_toc_entry and self.node.kind not in _OUTLINE_SKIP

    @property
    def amended(self) -> bool:
        return any(n.amends for n in self.notes)

    @property
    def indent(self) -> int:
        return min(self.node.level, 6)

    @property
    def show_heading(self) -> bool:
        """A heading the text does not already open with ("2.4 Missed Milestones ...")."""
        heading = self.node.heading
        return bool(heading) and heading.casefold() not in self.node.text[:160].casefold()

    @property
    def outline_label(self) -> str:
        """The heading, or for an untitled clause its opening words after its number."""
        if self.node.heading:
            return self.node.heading
        text = self.node.text
        ref = self.node.ref
        if ref and text.startswith(ref):
            text = text[len(ref) :]
        words = " ".join(text.split())
        if not words:
            return self.node.get_kind_display()
        if len(words) <= 48:
            return words
        cut = words.rfind(" ", 0, 48)
        return words[: cut if cut > 20 else 48].rstrip(",;:") + "…"


@dataclass(slots=True)
class ReaderPage:
    document: Document
    nodes: list[ReaderNode]
    terms: list[TermDef]
    amended_by: list[Document]

    @property
    def outline(self) -> list[ReaderNode]:
        return [n for n in self.nodes if n.in_outline]

    @property
    def amended_count(self) -> int:
        return sum(1 for n in self.nodes if n.amended)


# --- finding text -------------------------------------------------------------------------------


def _find(text: str, needle: str, pos: int) -> tuple[int, int] | None:
    """Where ``needle`` occurs in ``text`` at or after ``pos``: exactly, else with any run of
    whitespace between its words (node text joins hard-wrapped lines)."""
    if not needle:
        return None
    i = text.find(needle, pos)
    if i >= 0:
        return i, i + len(needle)
    words = needle.split()
    if not words:
        return None
    m = re.compile(r"\s+".join(re.escape(w) for w in words)).search(text, pos)
    return (m.start(), m.end()) if m else None


_SENTENCE_END = re.compile(r"[.!?;:](?=\s)|\n")


def _clip(text: str, start: int, end: int, *, before: int = 160, after: int = 220) -> str:
    """The sentence around text[start:end], cut to a readable length with ellipses."""
    s = 0
    for m in _SENTENCE_END.finditer(text, max(0, start - before), start):
        s = m.end()
    if start - s > before or s == 0 and start > before:
        s = text.find(" ", start - before, start) + 1 or start - before
    after_end = _SENTENCE_END.search(text, end)
    e = after_end.end() if after_end else len(text)
    if e - end > after:
        e = text.rfind(" ", end, end + after)
        e = e if e > end else end + after
    out = text[s:e].strip()
    return ("…" if s > 0 else "") + out + ("…" if e < len(text) else "")


def _quoted(term: str, text: str) -> re.Match[str] | None:
    """Where the term is defined in the text: its quoted occurrence ("Term" or “Term”)."""
    return re.search(r"[“\"](" + re.escape(term) + r")[”\"]", text)


def _term_excerpt(term: str, text: str) -> str:
    m = _quoted(term, text)
    if m is None:
        return text[:300] + ("…" if len(text) > 300 else "")
    return _clip(text, m.start(), m.end(), before=140, after=160)


@lru_cache(maxsize=128)
def _terms_pattern(terms: tuple[str, ...]) -> re.Pattern[str] | None:
    """One whole-word pattern for all of a document's defined terms (plurals too, as the parser
    finds their uses), written as a trie so that a long agreement is scanned in one pass; the
    longest term wins ("Credit Agreement Party" over "Credit Agreement"). Cached: compiling it
    is the slow part."""
    if not terms:
        return None
    return re.compile(r"(?<![\w-])(" + trie_pattern(list(terms)) + r")(?:s|es|’s|'s)?(?![\w-])")


def _node_label(node: Node) -> str:
    """How a provision is named to a reader: "Section 2.2 Payments", "(a)", "Preamble"."""
    label = f"{node.ref} {node.heading}".strip()
    return label or node.get_kind_display() or node.node_id


# --- rendering ----------------------------------------------------------------------------------


def _tag(span: Span, piece: str) -> str:
    """The span's text wrapped in its tag; every value is escaped (quotes too, for attributes).
    Plain ``html.escape`` rather than ``format_html``: same escaping, several times faster, and
    a long agreement has thousands of these."""
    text = _esc(piece)
    if span.kind in ("xref", "xref-doc"):
        return (
            f'<a class="{span.kind}" href="{_esc(span.href)}" title="{_esc(span.title)}">{text}</a>'
        )
    if span.kind == "xref-missing":
        return f'<span class="xref-missing" title="{_esc(span.title)}">{text}</span>'
    if span.kind == "term":
        return (
            f'<a class="term" href="{_esc(span.href)}" aria-describedby="def-{span.term_id:d}" '
            f'data-term="{span.term_id:d}">{text}</a>'
        )
    if span.kind == "dfn":
        return f'<dfn class="term-def">{text}</dfn>'
    return f"<mark>{text}</mark>"


def _render(text: str, spans: Iterable[Span]) -> SafeString:
    """Escaped text with the given non-overlapping spans wrapped in their tags."""
    out: list[str] = []
    pos = 0
    for span in sorted(spans, key=lambda s: s.start):
        if span.start < pos:  # overlaps an earlier span: leave it as text
            continue
        out.append(_esc(text[pos : span.start]))
        out.append(_tag(span, text[span.start : span.end]))
        pos = span.end
    out.append(_esc(text[pos:]))
    # Every piece above went through _esc (html.escape with quote=True), so the joined string
    # is safe to put in a page.
    return mark_safe("".join(out))  # noqa: S308


def _overlaps(start: int, end: int, taken: Sequence[tuple[int, int]]) -> bool:
    return any(start < b and a < end for a, b in taken)


# --- the reader ---------------------------------------------------------------------------------


# The node fields the reader shows (besides the id, parent and node id every reader loads).
_READER_FIELDS = (
    "order",
    "level",
    "kind",
    "ref",
    "heading",
    "text",
    *(f for f, _, _ in FLAG_BADGES),
    "is_toc_entry",
)


def document_reader(*, document: Document) -> ReaderPage:
    """Everything the reader shows for one document, in six queries whatever its size: its nodes,
    their outgoing references, its defined terms and their uses, the provisions of other
    documents that point into it, and the documents that amend it."""
    nodes = document_nodes(document=document, fields=_READER_FIELDS)
    refs_by_node = _outgoing_references(document)
    terms = _defined_terms(document)
    notes = _incoming_notes(document)
    amended_by = _amending_documents(document)
    doc_url = reverse("document-detail", args=[document.pk])
    reader_nodes = [
        ReaderNode(
            node=node,
            html=_node_html(node, refs_by_node.get(node.pk, ()), terms, document, doc_url),
            badges=[(label, title) for f, label, title in FLAG_BADGES if getattr(node, f)],
            notes=notes.get(node.pk, []),
        )
        for node in nodes
    ]
    shown = {n.pk for n in nodes}
    term_defs = [
        TermDef(
            id=t.pk,
            term=t.term,
            node_id=t.defining_node.node_id,
            excerpt=_term_excerpt(t.term, t.defining_node.text),
        )
        for t in terms.terms
        if t.defining_node_id in shown
    ]
    return ReaderPage(document=document, nodes=reader_nodes, terms=term_defs, amended_by=amended_by)


# --- what the reader loads ----------------------------------------------------------------------


def _outgoing_references(document: Document) -> dict[int, list[CrossReference]]:
    """Each node's references, in the order they occur (one query). Resolved ones carry their
    target, in this document or another of the same matter, to be linked."""
    refs_by_node: dict[int, list[CrossReference]] = defaultdict(list)
    for ref in (
        CrossReference.objects.filter(source__document=document)
        .select_related("target__document")
        .only(
            "id",
            "source_id",
            "text",
            "start",
            "kind",
            "unresolved_reason",
            "target_ref",
            "target__id",
            "target__node_id",
            "target__ref",
            "target__heading",
            "target__kind",
            "target__document__id",
            "target__document__matter_id",
            "target__document__title",
        )
        .order_by("source_id", "start", "id")
    ):
        refs_by_node[ref.source_id].append(ref)
    return refs_by_node


@dataclass(slots=True)
class _Terms:
    """A document's defined terms: where each is defined and which nodes use it."""

    terms: list[DefinedTerm]  # by term
    by_id: dict[int, DefinedTerm]
    by_text: dict[str, DefinedTerm]
    uses: dict[int, set[int]]  # node pk -> the terms it uses
    defined_in: dict[int, set[int]]  # node pk -> the terms it defines
    pattern: re.Pattern[str] | None  # any of the terms, as a whole word


def _defined_terms(document: Document) -> _Terms:
    """The document's defined terms and their uses (two queries)."""
    terms = list(
        DefinedTerm.objects.filter(document=document)
        .select_related("defining_node")
        .only("id", "term", "defining_node__id", "defining_node__node_id", "defining_node__text")
        .order_by("term")
    )
    uses: dict[int, set[int]] = defaultdict(set)
    for node_pk, term_pk in DefinedTerm.used_in.through.objects.filter(
        definedterm__document=document
    ).values_list("node_id", "definedterm_id"):
        uses[node_pk].add(term_pk)
    defined_in: dict[int, set[int]] = defaultdict(set)
    for t in terms:
        defined_in[t.defining_node_id].add(t.pk)
    return _Terms(
        terms=terms,
        by_id={t.pk: t for t in terms},
        by_text={t.term: t for t in terms},
        uses=uses,
        defined_in=defined_in,
        pattern=_terms_pattern(tuple(sorted({t.term for t in terms}))),
    )


def _incoming_notes(document: Document) -> dict[int, list[AmendmentNote]]:
    """For each node, the provisions of other documents of the matter that point into it (one
    query): amendments and side letters first, then by date."""
    notes: dict[int, list[AmendmentNote]] = defaultdict(list)
    seen: set[tuple[int, int]] = set()
    incoming = (
        CrossReference.objects.filter(
            target__document=document, source__document__matter_id=document.matter_id
        )
        .exclude(source__document=document)
        .select_related("source__document")
        .only(
            "id",
            "text",
            "target_id",
            "source__id",
            "source__node_id",
            "source__ref",
            "source__heading",
            "source__kind",
            "source__text",
            "source__order",
            "source__document__id",
            "source__document__title",
            "source__document__kind",
            "source__document__amends_id",
            "source__document__effective_date",
        )
    )
    for ref in incoming:
        src, target_id = ref.source, ref.target_id
        if target_id is None or (src.pk, target_id) in seen:
            continue
        seen.add((src.pk, target_id))
        notes[target_id].append(_amendment_note(ref, document))
    for items in notes.values():
        items.sort(key=lambda n: (not n.amends, n.effective_date or date.max, n.document_id))
    return notes


def _amendment_note(ref: CrossReference, document: Document) -> AmendmentNote:
    src = ref.source
    doc = src.document
    found = _find(src.text, ref.text, 0)
    return AmendmentNote(
        amends=doc.amends_id == document.pk or doc.kind in _AMENDING_KINDS,
        document_id=doc.pk,
        document_key=doc.key,
        document_title=doc.title,
        effective_date=doc.effective_date,
        node_id=src.node_id,
        node_label=_node_label(src),
        excerpt=_clip(src.text, *found) if found else _clip(src.text, 0, 0),
        href=reverse("document-detail", args=[doc.pk]) + f"#{src.node_id}",
    )


def _amending_documents(document: Document) -> list[Document]:
    return list(
        Document.objects.filter(matter_id=document.matter_id, amends=document)
        .only("id", "title", "kind", "effective_date", "status", "matter_id")
        .order_by(F("effective_date").asc(nulls_last=True), "id")
    )


# --- one node's text ----------------------------------------------------------------------------


def _node_html(
    node: Node,
    refs: Iterable[CrossReference],
    terms: _Terms,
    document: Document,
    doc_url: str,
) -> SafeString:
    """The node's text, escaped, with its references linked and its terms marked. References
    come first; a term that overlaps one is left as text."""
    taken: list[tuple[int, int]] = []
    spans = _reference_spans(node.text, refs, document, doc_url, taken)
    spans += _term_spans(node, terms, taken)
    return _render(node.text, spans)


def _reference_spans(
    text: str,
    refs: Iterable[CrossReference],
    document: Document,
    doc_url: str,
    taken: list[tuple[int, int]],
) -> list[Span]:
    """Each reference found in the text, in order, as a link (or a "not found" mark); adds
    what it marks to ``taken``."""
    spans: list[Span] = []
    pos = 0
    for ref in refs:
        found = _find(text, ref.text, pos)
        if found is None or _overlaps(*found, taken):
            continue
        pos = found[1]
        span = _ref_span(ref, found, document, doc_url)
        if span is not None:
            spans.append(span)
            taken.append(found)
    return spans


def _term_spans(node: Node, terms: _Terms, taken: list[tuple[int, int]]) -> list[Span]:
    """The terms of the node outside ``taken`` (which grows with them): the quoted, defining
    occurrence of a term defined here, and the first use of each other term, linked to its
    definition (hover or focus shows it; marking every use would bury the text and the
    keyboard in links)."""
    defined = terms.defined_in.get(node.pk, set())
    term_ids = terms.uses.get(node.pk, set()) | defined
    if not term_ids:
        return []
    text = node.text
    spans: list[Span] = []
    for pk in defined:
        q = _quoted(terms.by_id[pk].term, text)
        if q is not None and not _overlaps(q.start(1), q.end(1), taken):
            spans.append(Span(q.start(1), q.end(1), "dfn"))
            taken.append((q.start(1), q.end(1)))
    linked: set[int] = set(defined)
    for m in terms.pattern.finditer(text) if terms.pattern is not None else ():
        term = terms.by_text.get(m.group(1))
        if (
            term is None
            or term.pk not in term_ids
            or term.pk in linked
            or _overlaps(m.start(), m.end(), taken)
        ):
            continue
        linked.add(term.pk)
        spans.append(
            Span(m.start(), m.end(), "term", href=f"#{term.defining_node.node_id}", term_id=term.pk)
        )
        taken.append((m.start(), m.end()))
    return spans


def _ref_span(
    ref: CrossReference, found: tuple[int, int], document: Document, doc_url: str
) -> Span | None:
    start, end = found
    target = ref.target
    if target is None:
        if ref.unresolved_reason == "missing":
            return Span(start, end, "xref-missing", title="Not found in this document")
        return None  # a statute or an instrument outside the matter: plain text
    label = _node_label(target)
    if target.document_id == document.pk:
        return Span(start, end, "xref", href=f"#{target.node_id}", title=label)
    other = target.document
    if other.matter_id != document.matter_id:
        return None  # never link out of the matter
    return Span(
        start,
        end,
        "xref-doc",
        href=reverse("document-detail", args=[other.pk]) + f"#{target.node_id}",
        title=f"{other.title} · {label}",
    )


# --- one node, for the citation panel -------------------------------------------------------------

_QUOTES = "\"'“”‘’"
_ELLIPSIS = re.compile(r"\s*(?:…|\.\.\.)\s*")


def _phrase_pattern(phrase: str) -> re.Pattern[str] | None:
    words = phrase.split()
    if not words:
        return None
    parts = []
    for w in words:
        # Straight and curly quotes match each other; everything else literally, any case.
        parts.append(
            "".join(f"[{re.escape(_QUOTES)}]" if c in _QUOTES else re.escape(c) for c in w)
        )
    return re.compile(r"\s+".join(parts), re.IGNORECASE)


def highlight(text: str, quote: str) -> tuple[SafeString, bool]:
    """The node text, escaped, with each part of the quotation (split at ellipses) marked.
    Returns the HTML and whether every part was found verbatim."""
    spans: list[Span] = []
    all_found = True
    for part in _ELLIPSIS.split(quote.strip()):
        pattern = _phrase_pattern(part.strip(_QUOTES + " "))
        if pattern is None:
            continue
        m = pattern.search(text)
        if m is None:
            all_found = False
            continue
        spans.append(Span(m.start(), m.end(), "mark"))
    if not spans:
        all_found = False
    return _render(text, spans), all_found
