"""Case cards: one per judgment, built at indexing time, and the links between judgments.

``case_card_build`` is called once from ``services.document_index`` for every indexed document;
it does nothing for a document that is not a judgment, and never fails indexing. Cited cases
are linked to judgments of the same matter by ``case_cards_link`` (by neutral citation, or by
the distinctive words of both party names); loading many judgments at once defers the linking
to one pass at the end (``deferred_linking``).
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import logging
from collections.abc import Callable, Iterator
from typing import Any

from django.conf import settings
from django.db import transaction

from legalnav.documents.models import Document
from legalnav.matters.models import Matter
from legalnav.research.judgments import (
    CaseCardData,
    case_card,
    case_name_key,
    looks_like_judgment,
    names_match,
)
from legalnav.research.models import CaseCard

logger = logging.getLogger(__name__)

# The version of what the card reader (research.judgments.case_card) reads from a judgment. Raise
# it when a change reads existing judgments differently (2: the winner of an appeal "disposed
# of", from its operative order; 3: holdings as the court's reasoning sentences, scored; 4: a
# transcript's sides, what each was below, its public bodies and its contemnor; 5: an English
# judgment's outcome from the lead judgment's conclusion, not the concurrences or a dissent; 6:
# a judicial review's applicant is the claimant, "the appellant, the claimant below", "the
# appeal is brought by the tenant", a father and a mother as parties; 8: a transcript that names
# no parties is called by its title, "Re M (A Child)", a letter-spaced "B E T W E E N:", "-and-"
# at the end of a role line, "Claimant/Appellant/Tenant"),
# so that case_cards_refresh re-reads the cards built before.
CARD_READER_VERSION = 8

_DEFER_LINKING: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "defer_linking", default=False
)


@contextlib.contextmanager
def deferred_linking() -> Iterator[None]:
    """Build cards without linking citations after each one (a bulk load links once at the end
    with ``case_cards_link``)."""
    token = _DEFER_LINKING.set(True)
    try:
        yield
    finally:
        _DEFER_LINKING.reset(token)


def case_card_build(*, document: Document, enrich: bool = True) -> CaseCard | None:
    """Build (or rebuild) the case card of a judgment from its indexed text.

    A document becomes a judgment when it was uploaded as one or its text reads as one; when
    the uploader gave no title or kind, the case name and the kind are taken from the text.
    Returns None for a document that is not a judgment. Errors are logged, never raised:
    a judgment without a card is still searchable."""
    text = document.text or ""
    if not text.strip():
        return None
    is_judgment = document.kind == Document.Kind.JUDGMENT or looks_like_judgment(text)
    if not is_judgment:
        CaseCard.objects.filter(document=document).delete()
        return None
    try:
        data = case_card(text, title=document.title)
    except Exception:  # a parsing bug must not fail indexing
        logger.exception("building the case card of document %s failed", document.pk)
        # An older card stays as that reader left it, marked so that this reader does not try
        # (and log) it again at every refresh.
        CaseCard.objects.filter(document=document).update(failed_reader_version=CARD_READER_VERSION)
        return None
    values = _card_values(data, document=document, text=text)
    with transaction.atomic():
        card, _ = CaseCard.objects.update_or_create(document=document, defaults=values)
        update = _document_update(data, document=document)
        if update:
            Document.objects.filter(pk=document.pk).update(**update)
            for key, value in update.items():
                setattr(document, key, value)
    if not _DEFER_LINKING.get():
        case_cards_link(matter=document.matter, only=card)
    if enrich and settings.LLM_ENRICH_ON_INDEX:
        case_card_enrich(document=document)  # with Claude configured; never fails indexing
        card.refresh_from_db()
    return card


def _card_values(data: CaseCardData, *, document: Document, text: str) -> dict[str, object]:
    """The CaseCard fields from what the text gave, cut to the columns' lengths."""
    fields = data.as_json()
    fields.pop("parents")
    parents = [
        {
            "id": p.id,
            "start": p.start,
            "end": p.end,
            "first": p.first,
            "last": p.last,
            "heading": p.heading,
        }
        for p in data.parents
    ]
    return dict(
        case_name=(data.case_name or document.title)[:300],
        court=data.court[:200],
        decided=data.decided,
        case_number=data.case_number[:200],
        neutral_citation=data.neutral_citation[:80],
        judges=data.judges,
        appellants=data.appellants,
        respondents=data.respondents,
        appellant_role=data.appellant_role,
        respondent_role=data.respondent_role,
        appellant_label=data.appellant_label,
        respondent_label=data.respondent_label,
        proceeding=data.proceeding[:60],
        criminal=data.criminal,
        outcome=data.outcome,
        outcome_text=data.outcome_text[:300],
        outcome_paragraph=data.outcome_paragraph,
        winner=data.winner,
        judicial_treatment=data.judicial_treatment[:80],
        statutes=fields["statutes"],
        cases_cited=fields["cases_cited"],
        issues=fields["issues"],
        holdings=fields["holdings"],
        paragraph_count=data.paragraph_count,
        described=data.described,
        parents=parents,
        text_sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        reader_version=CARD_READER_VERSION,
        failed_reader_version=0,
    )


def case_cards_refresh(*, matter: Matter) -> int:
    """Re-read the case cards of ``matter`` that an older card reader built (their judgments'
    text is already indexed: nothing is re-parsed into clauses or re-embedded; Claude's
    enrichment is kept, not asked again), then link citations once (at the end of the
    enclosing ``deferred_linking``, when there is one). Returns how many were re-read: a card
    whose judgment fails to parse keeps the older reader's reading, is logged, and is not
    counted, and is marked so that this reader version does not try it again (a newer one
    does: ``case_cards_stale`` counts such cards); a document that no longer reads as a
    judgment loses its card and is not counted either."""
    stale = list(
        Document.objects.filter(
            matter=matter,
            status=Document.Status.INDEXED,
            case_card__reader_version__lt=CARD_READER_VERSION,
        ).exclude(case_card__failed_reader_version=CARD_READER_VERSION)
    )
    if not stale:
        return 0
    deferred = _DEFER_LINKING.get()
    reread = 0
    with deferred_linking():
        for document in stale:
            reread += case_card_build(document=document, enrich=False) is not None
    if not deferred:
        case_cards_link(matter=matter)
    return reread


def case_cards_stale(*, matter: Matter) -> int:
    """How many of ``matter``'s case cards an older card reader built and the present one
    failed to re-read: research still takes those judgments' stances from the older reading."""
    return CaseCard.objects.filter(
        document__matter=matter,
        document__status=Document.Status.INDEXED,
        reader_version__lt=CARD_READER_VERSION,
        failed_reader_version=CARD_READER_VERSION,
    ).count()


def _document_update(data: CaseCardData, *, document: Document) -> dict[str, object]:
    """What the card changes on its document: the kind (now a judgment), and the title and
    the date where the uploader gave none."""
    update: dict[str, object] = {}
    if document.kind != Document.Kind.JUDGMENT and (
        document.guess_metadata or document.kind == Document.Kind.AGREEMENT
    ):
        update["kind"] = Document.Kind.JUDGMENT
    if document.guess_metadata and data.case_name:
        update["title"] = data.case_name[:300]
    # The decision date is the judgment's date (a date parsed from the text may be any
    # date it mentions) unless the uploader gave one.
    if data.decided is not None and (document.effective_date is None or document.guess_metadata):
        update["effective_date"] = data.decided
    return update


def case_cards_link(*, matter: Matter, only: CaseCard | None = None) -> int:
    """Link cited cases to judgments of the same matter; returns how many citations point at a
    judgment of the matter afterwards.

    With ``only``, links that card's citations against every judgment and every other card's
    citations against it (what adding one judgment can change); without it, relinks them all."""
    cards = list(
        CaseCard.objects.filter(document__matter=matter).only(
            "id", "document_id", "case_name", "neutral_citation", "cases_cited"
        )
    )
    if not cards:
        return 0
    # An inverted index from a distinctive word of a party name to the cards that have it, so
    # each citation is compared with a handful of candidates rather than every judgment.
    by_word: dict[str, list[CaseCard]] = {}
    by_citation: dict[str, CaseCard] = {}
    for c in cards:
        left, right = case_name_key(c.case_name)
        for w in left | right:
            by_word.setdefault(w, []).append(c)
        if c.neutral_citation:
            by_citation[_norm_citation(c.neutral_citation)] = c

    def target_of(entry: dict[str, object], source: CaseCard) -> int | None:
        citation = _norm_citation(str(entry.get("citation") or ""))
        if citation and citation in by_citation and by_citation[citation].pk != source.pk:
            return by_citation[citation].document_id
        name = str(entry.get("name") or "")
        left, right = case_name_key(name)
        candidates: dict[int, CaseCard] = {}
        for w in left | right:
            for c in by_word.get(w, ()):
                candidates[c.pk] = c
        found = {
            c.document_id
            for c in candidates.values()
            if c.pk != source.pk and names_match(name, c.case_name)
        }
        # Two judgments of the matter that both fit the name: linking either could be wrong.
        return found.pop() if len(found) == 1 else None

    changed: list[CaseCard] = []
    linked = 0
    for c in cards:
        if only is not None and c.pk != only.pk:
            # Another card: only citations that could point at the new judgment may change.
            entries = c.cases_cited or []
            dirty = False
            for entry in entries:
                if entry.get("document_id"):
                    continue
                target = target_of(entry, c)
                if target == only.document_id:
                    entry["document_id"] = target
                    dirty = True
            if dirty:
                changed.append(c)
            linked += sum(1 for e in entries if e.get("document_id"))
            continue
        dirty = False
        for entry in c.cases_cited or []:
            target = target_of(entry, c)
            if entry.get("document_id") != target:
                entry["document_id"] = target
                dirty = True
            linked += 1 if target else 0
        if dirty:
            changed.append(c)
    if changed:
        CaseCard.objects.bulk_update(changed, ["cases_cited"], batch_size=200)
    return linked


def _norm_citation(citation: str) -> str:
    return " ".join(citation.replace("[", " ").replace("]", " ").split()).lower()


# --- optional Claude enrichment -----------------------------------------------------------------

ENRICH_HEAD_CHARS = 6000  # the header and opening paragraphs sent to Claude
ENRICH_TAIL_CHARS = 6000  # the closing paragraphs (the order and the reasons just before it)
ENRICH_MAX_TOKENS = 1200


def case_card_enrich(*, document: Document, provider: object | None = None) -> dict[str, object]:
    """Ask Claude for a judgment's issues, holdings, outcome and party labels, each with a quote
    that must be verbatim in the judgment; keep only what passes, under ``CaseCard.enrichment``.

    What the text gave deterministically is kept; Claude fills the outcome and the party labels
    only where the rules found none. Returns the enrichment (``{"error": …}`` when the call
    failed: enrichment never fails indexing). One ledger row per call (purpose "enrichment")."""
    from legalnav.core.text import normalise
    from legalnav.llm import prompts
    from legalnav.llm.providers import LLMError, get_provider
    from legalnav.research import prompts as research_prompts

    provider = provider or get_provider()
    card = CaseCard.objects.filter(document=document).first()
    if provider is None or card is None:
        return {}
    text = document.text or ""
    prompt = research_prompts.case_card_prompt(
        doc_id=document.key, title=card.case_name, text=_enrich_excerpt(text)
    )
    try:
        completion = provider.complete(  # type: ignore[attr-defined]
            system=prompt.system,
            messages=prompt.messages,
            max_tokens=ENRICH_MAX_TOKENS,
            purpose="enrichment",
            matter_id=document.matter_id,
        )
    except LLMError as exc:
        enrichment: dict[str, object] = {"error": str(exc)[:500]}
        CaseCard.objects.filter(pk=card.pk).update(enrichment=enrichment)
        return enrichment
    data = prompts.parse_json_object(completion.text) or {}
    haystack = normalise(text)
    dropped: list[str] = []

    def verbatim(quote: object) -> bool:
        return isinstance(quote, str) and bool(quote.strip()) and normalise(quote) in haystack

    enrichment = {
        "model": completion.model,
        "issues": _quoted_items(data, "issues", verbatim=verbatim, dropped=dropped),
        "holdings": _quoted_items(data, "holdings", verbatim=verbatim, dropped=dropped),
        "dropped": dropped,
    }
    update = _enriched_outcome(
        data, card=card, enrichment=enrichment, dropped=dropped, verbatim=verbatim
    )
    for side in ("appellant_label", "respondent_label"):
        label = str(data.get(side) or "").strip().lower()[:20]
        if label:
            enrichment[side] = label
            if not getattr(card, side):
                update[side] = label
    update["enrichment"] = enrichment
    CaseCard.objects.filter(pk=card.pk).update(**update)
    return enrichment


def _enrich_excerpt(text: str) -> str:
    """What Claude reads of a judgment: its opening and, for a long one, its closing."""
    excerpt = text[:ENRICH_HEAD_CHARS]
    if len(text) > ENRICH_HEAD_CHARS:
        excerpt += "\n[…]\n" + text[max(ENRICH_HEAD_CHARS, len(text) - ENRICH_TAIL_CHARS) :]
    return excerpt


def _quoted_items(
    data: dict[str, Any],
    key: str,
    *,
    verbatim: Callable[[object], bool],
    dropped: list[str],
) -> list[dict[str, str]]:
    """The first four items of ``data[key]`` whose quote is verbatim in the judgment; the
    others are noted in ``dropped``."""
    kept = []
    for item in data.get(key) or []:
        if not isinstance(item, dict):
            continue
        if verbatim(item.get("quote")):
            kept.append({"text": str(item.get("text", ""))[:400], "quote": str(item["quote"])})
        else:
            dropped.append(f"{key}: {str(item.get('quote', ''))[:120]}")
    return kept[:4]


def _enriched_outcome(
    data: dict[str, Any],
    *,
    card: CaseCard,
    enrichment: dict[str, object],
    dropped: list[str],
    verbatim: Callable[[object], bool],
) -> dict[str, object]:
    """Record Claude's outcome in ``enrichment`` when its quote is verbatim (else note it as
    dropped); the card's update, which takes the outcome only where the rules found none."""
    update: dict[str, object] = {}
    outcome = data.get("outcome")
    if outcome in CaseCard.Outcome.values and verbatim(data.get("outcome_quote")):
        enrichment["outcome"] = outcome
        enrichment["outcome_quote"] = data["outcome_quote"]
        if card.outcome == CaseCard.Outcome.UNKNOWN and outcome != CaseCard.Outcome.UNKNOWN:
            update["outcome"] = outcome
            update["outcome_text"] = str(data["outcome_quote"])[:300]
            update["winner"] = {
                "allowed": "appellant",
                "remanded": "appellant",
                "dismissed": "respondent",
                "partly_allowed": "mixed",
            }.get(str(outcome), "unknown")
    elif outcome:
        dropped.append(f"outcome: {str(data.get('outcome_quote', ''))[:120]}")
    return update
