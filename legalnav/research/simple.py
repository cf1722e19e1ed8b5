"""The simple route: a listing or lookup answered from case cards (every matching judgment,
not the top few), or a short hybrid search answered extractively (or by Claude)."""

from __future__ import annotations

import re
from typing import Any

from legalnav.answers.core import prompt_provision
from legalnav.answers.models import Question, ResearchStep
from legalnav.answers.offline import SILENCE, Provision, answer_offline
from legalnav.llm import prompts
from legalnav.research import listing as listing_mod
from legalnav.research.context import (
    LISTING_SHOWN,
    SIMPLE_K,
    MatterView,
    Piece,
    Result,
    Trace,
    clean_quote,
    header_piece,
    offline_record,
    outcome_piece,
    paragraph_piece,
    piece_at,
    query_completion,
    quotable,
    search_mode,
    validate_result,
)
from legalnav.research.search import PassageHit

_LISTING_CUE = re.compile(
    r"^(?:which|list|show|find|how many|count|give me|are there|is there|judgments|cases|decisions)\b|"
    r"\b(?:which|what)\s+(?:cases|judgments|decisions|appeals)\b|\blist\b|\bhow many\b|\bshow me\b",
    re.I,
)


def answer_simple(trace: Trace, query: Question, m: MatterView, provider: Any) -> Result:  # noqa: ANN401
    with trace.step("listing", question=query.question) as rec:
        filters = listing_mod.read_filters(query.question, m.views)
        rec.outputs = {
            "filters": filters.describe(),
            "named_judgment": m.name(filters.case_doc) if filters.case_doc is not None else "",
        }
        metadata_only = [d for d in filters.describe() if not d.startswith("mentions")]
        use_listing = (
            filters.lookup
            or metadata_only
            or (filters.phrase and _LISTING_CUE.search(query.question.strip()))
        )
        if use_listing:
            result = _lookup(m, filters) if filters.lookup else _listing(m, filters)
            rec.outputs.update(
                {
                    "kind": result.kind,
                    "judgments": [
                        {"document": p.key(m), "case": m.name(p.doc), "why": p.found_by}
                        for p in result.pieces
                    ],
                }
            )
        else:
            rec.status, rec.note = ResearchStep.Status.SKIPPED, "not a listing: searched instead"
            result = None
    if result is None:
        result = _retrieve_and_answer(trace, query, m, provider)
    with trace.step("validate", citations=len(re.findall(r"\[D\d+:", result.text))) as rec:
        validate_result(m, result, question=query.question)
        rec.outputs = {"removed": result.removed, "validation": result.validation}
    return result


def _lookup(m: MatterView, f: listing_mod.Filters) -> Result:
    """A fact about one named judgment, from its case card, cited to where the text says it."""
    doc = f.case_doc
    assert doc is not None
    card = m.cards.get(doc)
    name = m.name(doc)
    dk = m.documents[doc].key
    header = header_piece(m, doc)
    pieces = [header] if header else []
    cite = f"[{dk}:{header.node_id(m)}]" if header else ""
    if card is None:
        return Result(
            f"{name}: no case card could be read from this document.", "offline", "lookup", pieces
        )
    fact = f.fact
    if fact == "judges":
        text = f"{name}: judgment delivered by {', '.join(card.judges) or 'a judge not named in the report'} {cite}"
    elif fact == "decided":
        text = f"{name} was decided on {card.decided.isoformat() if card.decided else 'a date the report does not give'}. {cite}"
    elif fact in ("appellant", "respondent"):
        names = card.appellants if fact == "appellant" else card.respondents
        label = card.appellant_label if fact == "appellant" else card.respondent_label
        text = (
            f"{name}: the {fact} was {', '.join(names) or 'not named'}"
            + (f" (the {label})" if label else "")
            + f". {cite}"
        )
    elif fact == "statutes":
        rows = [
            f"{s['name']}"
            + (f" (sections {', '.join(s['sections'][:8])})" if s.get("sections") else "")
            for s in card.statutes
        ]
        text = (
            f"{name} cites: "
            + ("; ".join(rows) if rows else "no statute that could be identified")
            + f". {cite}"
        )
    elif fact == "case_number":
        text = f"{name}: {card.case_number or card.neutral_citation or 'no case number in the report'}. {cite}"
    elif fact == "cases_cited":
        rows = [
            f"{c['name']}" + (f" ({c['treatment']}: {c['cue']})" if c.get("cue") else "")
            for c in card.cases_cited[:20]
        ]
        text = f"{name} cites {len(card.cases_cited)} cases: " + "; ".join(rows) + f". {cite}"
    elif fact == "paragraph" and f.paragraph is not None:
        piece = paragraph_piece(m, doc, f.paragraph)
        if piece is None:
            return Result(f"{name} has no paragraph {f.paragraph}.", "offline", "lookup", pieces)
        pieces = [piece]
        quote = quotable(piece.text, 60)
        text = f"Paragraph {f.paragraph} of {name}: “{quote}” [{dk}:{piece.node_id(m)}]"
    else:  # outcome or a summary of the card
        out = outcome_piece(m, doc)
        if out is not None:
            pieces.append(out)
        said = f"“{card.outcome_text}” [{dk}:{out.node_id(m)}]" if out and card.outcome_text else ""
        who = f"{', '.join(card.appellants[:2])}" + (
            f" (the {card.appellant_label})" if card.appellant_label else ""
        )
        text = (
            f"{name} ({card.court or 'court not stated'}, {card.decided.isoformat() if card.decided else 'undated'}) {cite}: "
            f"appeal brought by {who or 'a party not named'}; outcome: {card.get_outcome_display().lower()}"
            + (f", won by the {card.winner}" if card.winner not in ("unknown", "mixed") else "")
            + (f". The report closes: {said}" if said else ".")
        )
    return Result(text, "offline", "lookup", pieces)


def _listing(m: MatterView, f: listing_mod.Filters) -> Result:
    """Every judgment that passes the filters, in date order, each cited to the passage that
    shows why (the phrase, the closing order, or the header for metadata)."""
    metadata = [d for d in f.describe() if not d.startswith("mentions")]
    passing: dict[int, list[str]] = {}
    for v in m.views:
        reasons = listing_mod.card_passes(v, f) if metadata else ["matches"]
        if reasons:
            passing[v.doc] = reasons
    if not m.views and not metadata:
        passing = {i: ["matches"] for i in range(len(m.documents))}
    phrase_pieces: dict[int, Piece] = {}
    loose: list[int] = []
    if f.phrase:
        hits = listing_mod.phrase_hits(m.search.corpus, f.phrase)
        for d in list(passing):
            found = hits.get(d, [])
            exact = [h for h in found if h.exact]
            if exact:
                phrase_pieces[d] = piece_at(
                    m, PassageHit(exact[0].row, d, 0.0), f"mentions ‘{exact[0].snippet}’"
                )
                passing[d] = passing[d] + [
                    f"mentions ‘{exact[0].snippet}’ ({len(exact)} passage{'s' if len(exact) > 1 else ''})"
                ]
            else:
                if found:
                    loose.append(d)
                del passing[d]
    order = sorted(
        passing,
        key=lambda d: (
            m.dated(d) or "9999",
            d,
        ),
    )
    pieces: list[Piece] = []
    lines = []
    described = "; ".join(f.describe()) or "every judgment"
    lines.append(
        f"{len(order)} judgment{'s' if len(order) != 1 else ''} of this matter match ({described})."
    )
    for n, d in enumerate(order[:LISTING_SHOWN], 1):
        piece: Piece | None = phrase_pieces.get(d)
        if piece is None and f.outcome:
            piece = outcome_piece(m, d)
        if piece is None and (f.statutes or f.sections):
            piece = _statute_piece(m, d, f)
        citing = _citing_entry(m, d, f) if f.cites else None
        if piece is None and citing is not None:
            piece = _first_paragraph_piece(m, d, citing.get("paragraphs") or [])
        if piece is None:
            piece = header_piece(m, d)
        why = "; ".join(r for r in passing[d] if r != "matches")
        if piece is None:
            lines.append(f"{n}. {m.name(d)} ({m.dated(d) or 'undated'}){': ' + why if why else ''}")
            continue
        piece.found_by = why or "listing"
        pieces.append(piece)
        quote = ""
        if d in phrase_pieces:
            quote = f"“{_sentence_with(piece.text, f.phrase)}” "
        elif f.outcome and m.cards.get(d) and m.cards[d].outcome_text:
            quote = f"“{m.cards[d].outcome_text}” "
        elif citing is not None and citing.get("sentence"):
            quote = f"“{clean_quote(str(citing['sentence']))}” "
        lines.append(
            f"{n}. {m.name(d)} ({m.dated(d) or 'undated'}){': ' + why if why else ''} {quote}[{piece.key(m)}:{piece.node_id(m)}]"
        )
    if len(order) > LISTING_SHOWN:
        lines.append(f"… and {len(order) - LISTING_SHOWN} more (the full list is in the trace).")
    if loose:
        names = ", ".join(m.name(d) for d in loose[:10])
        lines.append(
            f"Not counted: {len(loose)} judgment{'s' if len(loose) != 1 else ''} use all of these words "
            f"but not together ({names}{' …' if len(loose) > 10 else ''})."
        )
    if not order:
        lines = [f"No judgment of this matter matches ({described})."]
    return Result("\n".join(lines), "offline", "listing", pieces)


def _citing_entry(m: MatterView, doc: int, f: listing_mod.Filters) -> dict[str, Any] | None:
    card = m.cards.get(doc)
    for entry in (card.cases_cited if card else []) or []:
        if listing_mod.names_match(f.cites, str(entry.get("name", ""))):
            return entry
    return None


def _first_paragraph_piece(m: MatterView, doc: int, numbers: list[int]) -> Piece | None:
    for number in numbers:
        if number:
            piece = paragraph_piece(m, doc, int(number))
            if piece is not None:
                return piece
    return None


def _statute_piece(m: MatterView, doc: int, f: listing_mod.Filters) -> Piece | None:
    """The first paragraph that cites the statute (or section) the listing asked for."""
    card = m.cards.get(doc)
    for s in (card.statutes if card else []) or []:
        if f.statutes and s.get("name") not in f.statutes:
            continue
        for number in s.get("paragraphs") or []:
            if number:
                piece = paragraph_piece(m, doc, int(number))
                if piece is not None:
                    return piece
    return None


def _sentence_with(text: str, words: list[str]) -> str:
    rx = listing_mod.phrase_regex(words)
    m = rx.search(text)
    if not m:
        return quotable(text, 30)
    start = max(text.rfind(". ", 0, m.start()) + 2, m.start() - 200, 0)
    end = text.find(". ", m.end())
    end = len(text) if end < 0 else min(end + 1, m.end() + 200)
    return clean_quote(text[start:end].strip())


def _retrieve_and_answer(trace: Trace, query: Question, m: MatterView, provider: Any) -> Result:  # noqa: ANN401
    with trace.step("retrieve", question=query.question, mode="hybrid", k=SIMPLE_K) as rec:
        hits = m.search.passages(query.question, mode=search_mode(m), depth=SIMPLE_K)
        pieces = [piece_at(m, h, "search") for h in hits]
        rec.outputs = {
            "passages": [
                {
                    "document": p.key(m),
                    "node": p.node_id(m),
                    "case": m.name(p.doc),
                    "score": round(p.score, 5),
                }
                for p in pieces
            ]
        }
    with trace.step("answer", by="claude" if provider else "offline") as rec:
        provisions = [_provision(m, p) for p in pieces]
        prompt = prompts.navigate_answer_prompt(
            provisions=[prompt_provision(p) for p in provisions],
            question=query.question,
        )
        context = prompt.text()
        if provider is None:
            text = answer_offline(query.question, provisions, short=False)
            offline_record(query, prompt_text=context, output_text=text)
            answerer = "offline"
        else:
            completion = query_completion(
                provider, prompt, query=query, max_tokens=1500, purpose="answer"
            )
            text, answerer = completion.text.strip(), completion.model
        rec.outputs = {"answer_chars": len(text), "silent": text.strip() == SILENCE}
    return Result(text, answerer, "retrieval", pieces, context_text=context)


def _provision(m: MatterView, p: Piece) -> Provision:
    doc = m.documents[p.doc]
    node = m.search.corpus.docs[p.doc].nodes[p.node]
    return Provision(
        doc_key=doc.key,
        doc_title=m.name(p.doc),
        doc_kind=doc.kind,
        effective_date=doc.effective_date,
        node_id=node.node_id,
        ref=f"¶{node.label}" if node.kind == "section" and node.label.isdigit() else node.ref,
        heading=node.heading,
        text=p.text,
        score=p.score,
    )
