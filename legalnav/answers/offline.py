"""The offline answerer: no model, no network. It quotes the governing provisions with citations
in retrieval's order, notes that an amendment prevails over the agreement it amends when both are
quoted, and says the fixed silence sentence when nothing retrieved bears on the question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from legalnav.answers.citations import states_fact
from legalnav.answers.sentences import sentences as split_sentences
from legalnav.documents.parsing import values
from legalnav.retrieval.bm25 import tokenize
from legalnav.retrieval.engine import query_tokens

SILENCE = "The provided documents do not contain the answer."
MAX_PROVISIONS = 5
_OVERRIDING_KINDS = {"amendment", "side_letter"}


@dataclass(slots=True)
class Provision:
    doc_key: str
    doc_title: str
    doc_kind: str
    effective_date: date | None
    node_id: str
    ref: str
    heading: str
    text: str
    score: float
    amends_key: str | None = None


def relevance(question: str, text: str) -> float:
    wanted = set(query_tokens(question))
    if not wanted:
        return 0.0
    have = set(tokenize(text))
    return len(wanted & have) / len(wanted)


def best_sentences(question: str, text: str, limit: int = 2) -> list[str]:
    """The provision's most relevant sentences, in text order, as verbatim runs: sentences that
    are not adjacent in the text are separate runs (each becomes its own quotation)."""
    # Abbreviation-aware ("U.S.", "Inc.", "No.", "Sec.", "e.g.", clause numbers): a quotation
    # starts and ends at sentence boundaries of the verbatim text, nowhere else.
    sentences = split_sentences(" ".join(text.split()))
    if not sentences:
        return []
    ranked = sorted(range(len(sentences)), key=lambda i: (-relevance(question, sentences[i]), i))
    chosen = sorted(ranked[:limit])
    runs: list[list[int]] = []
    for i in chosen:
        if runs and runs[-1][-1] == i - 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return [" ".join(sentences[i] for i in run) for run in runs]


def evidence_line(provisions: list[Provision]) -> str:
    """ "Evidence from: D3 Supply Agreement (agreement), D7 First Amendment (amendment)." -- the
    documents the quoted provisions come from, in order of first use. It cites nothing and states
    nothing from the documents, so the citation check has nothing to flag on it: quotation marks
    are dropped from titles, and a title that reads as a fact (a year, an amount, "Section 2")
    is left out and the key and kind stand alone."""
    seen: dict[str, str] = {}
    for p in provisions:
        if p.doc_key in seen:
            continue
        title = _plain(p.doc_title)
        if not title or states_fact(title) or len(title) > 80:
            title = ""
        kind = p.doc_kind.replace("_", " ")
        seen[p.doc_key] = " ".join(x for x in (p.doc_key, title, f"({kind})" if kind else "") if x)
    return "Evidence from: " + ", ".join(seen.values()) + "."


_NO_QUOTES = str.maketrans("", "", '"“”„«»‹›[]')
_SINGLE_QUOTE = re.compile(r"(?<!\w)['‘’]|['‘’](?!\w)")  # not an apostrophe inside a word


def _plain(title: str) -> str:
    """A title without quotation marks or brackets: the citation check would read a quoted word
    in it as a quotation of the provision cited on that line."""
    return " ".join(_SINGLE_QUOTE.sub("", title.translate(_NO_QUOTES)).split())


# What a question asks for, when it asks for one typed value, and the extractor that reads it.
# Order matters: "how long is the notice period" is a duration though it could read as a date.
_ASKS: tuple[tuple[re.Pattern[str], values.Extractor], ...] = (
    (
        re.compile(
            r"\bgovern(?:s|ed|ing)\b.{0,40}\blaws?\b|\blaws?\b.{0,40}\bgovern|"
            r"\bwhich\s+(?:state|country|jurisdiction)|\bchoice\s+of\s+law\b",
            re.I,
        ),
        values.extract_jurisdiction,
    ),
    (
        re.compile(
            r"\bwho\s+are\s+the\s+parties\b|\bparties\s+to\s+the\b|\bbetween\s+whom\b", re.I
        ),
        values.extract_parties,
    ),
    (
        re.compile(
            r"\bhow\s+long\b|\bhow\s+many\s+(?:days|weeks|months|years)\b|"
            r"\b(?:notice|renewal|initial|cure|warranty)\s+(?:period|term)\b|"
            r"\bwhat\s+is\s+the\s+term\b",
            re.I,
        ),
        values.extract_duration,
    ),
    (
        re.compile(
            r"\bwhen\s+(?:does|did|is|was|will)\b|\bwhat\s+(?:is\s+the\s+)?date\b|"
            r"\b(?:effective|expiration|termination|closing)\s+date\b|\bon\s+what\s+date\b",
            re.I,
        ),
        values.extract_date,
    ),
    (
        re.compile(
            r"\bhow\s+much\b|\bwhat\s+(?:is\s+the\s+)?(?:amount|fee|price|purchase\s+price)\b|"
            r"\bcap\s+on\s+(?:liability|damages)\b|\bmaximum\s+(?:amount|liability)\b",
            re.I,
        ),
        values.extract_amount,
    ),
)


def asked_value(question: str) -> values.Extractor | None:
    """The extractor for the one typed value a question asks for (governing law, parties, a
    period, a date, an amount), or None when it asks for something else."""
    for pattern, extractor in _ASKS:
        if pattern.search(question):
            return extractor
    return None


def _quoted(run: str) -> str:
    return "“" + run.replace("“", "‘").replace("”", "’").replace('"', "'") + "”"


def short_answer(
    question: str, provisions: list[Provision], overriding: frozenset[str] = frozenset()
) -> str | None:
    """A one-line answer before the list, when the question asks for one typed value and the
    quoted provisions state one value only: "Short answer: New York. “… the laws of the State
    of New York …” [D1:s9.10]". The value is read from the quotation that follows it and the
    line carries its citation, so the check verifies the quotation like any other.

    An amendment or side letter that amends another quoted document (``overriding``: their
    keys) holds over it: the value it states replaces the amended document's. When the quoted
    documents still state different values (three agreements under three laws, and a question
    that names none of them), there is no one answer to give, and the list alone answers."""
    extractor = asked_value(question)
    if extractor is None:
        return None
    read: list[tuple[Provision, str, str]] = []  # (provision, quoted run, value), one a document
    seen: set[str] = set()
    for p in provisions:
        if p.doc_key in seen:
            continue
        for run in best_sentences(question, p.text):
            found = extractor(run)
            if found is not None and found.display:
                read.append((p, run, _plain(found.display)))
                seen.add(p.doc_key)
                break
    superseded = {p.amends_key for p, _, _ in read if p.doc_key in overriding}
    holding = [r for r in read if r[0].doc_key not in superseded]
    if not holding or len({value.casefold() for _, _, value in holding}) > 1:
        return None
    p, run, value = max(
        holding, key=lambda r: r[0].doc_key in overriding
    )  # first, amendments first
    return f"Short answer: {value}. {_quoted(run)} [{p.doc_key}:{p.node_id}]"


def answer_offline(
    question: str,
    provisions: list[Provision],
    *,
    threshold: float = 0.34,
    sources: bool = False,
    short: bool = True,
) -> str:
    """Quote the best-ranked provisions that share enough of the question's words; retrieval's
    order is kept, and a later amendment or side letter is marked as prevailing. A question that
    asks for one typed value (``short``) gets a one-line answer with its quotation first. With
    ``sources`` (a matter of several documents, a question that names none of them) a last line
    says which documents the quoted evidence came from."""
    ranked = [p for p in provisions if relevance(question, f"{p.heading} {p.text}") > 0]
    if not ranked or max(relevance(question, f"{p.heading} {p.text}") for p in ranked) < threshold:
        return SILENCE
    relevant = ranked[:MAX_PROVISIONS]
    lines = ["Extractive answer (offline: no language model was used). The provisions that govern:"]
    keys = {p.doc_key for p in relevant}
    # An amendment prevails only over what it amends: say so when both are quoted.
    overriding = {
        p.doc_key for p in relevant if p.doc_kind in _OVERRIDING_KINDS and p.amends_key in keys
    }
    line = short_answer(question, relevant, frozenset(overriding)) if short else None
    if line:
        lines.insert(0, line)
    for n, p in enumerate(relevant, 1):
        where = " ".join(x for x in (p.ref, p.heading) if x) or p.node_id
        dated = f", {p.effective_date.isoformat()}" if p.effective_date else ""
        quotes = " … ".join(_quoted(run) for run in best_sentences(question, p.text))
        lines.append(
            f"{n}. {_plain(p.doc_title)} ({p.doc_kind.replace('_', ' ')}{dated}), {where}: {quotes} [{p.doc_key}:{p.node_id}]"
        )
    if overriding and any(p.doc_key not in overriding for p in relevant):
        lines.append(
            "Where an amendment or side letter above conflicts with the original agreement, "
            "the later document prevails to the extent of the inconsistency."
        )
    if sources:
        lines.append(evidence_line(relevant))
    return "\n".join(lines)
