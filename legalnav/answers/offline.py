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


def answer_offline(
    question: str, provisions: list[Provision], *, threshold: float = 0.34, sources: bool = False
) -> str:
    """Quote the best-ranked provisions that share enough of the question's words; retrieval's
    order is kept, and a later amendment or side letter is marked as prevailing. With
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
    for n, p in enumerate(relevant, 1):
        where = " ".join(x for x in (p.ref, p.heading) if x) or p.node_id
        dated = f", {p.effective_date.isoformat()}" if p.effective_date else ""
        quotes = " … ".join(
            "“" + run.replace("“", "‘").replace("”", "’").replace('"', "'") + "”"
            for run in best_sentences(question, p.text)
        )
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
