"""Step S1 of navindex: the planner picks at most ten (doc_id, node_id) pairs from the compact
indices of a matter's documents, and its reply is read defensively."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from legalnav.llm.navindex_keys import KEYS
from legalnav.llm.prompts.blocks import (
    CACHE_CONTROL,
    UNTRUSTED,
    Prompt,
    PromptIndex,
    index_block,
    question_message,
)
from legalnav.llm.prompts.replies import json_candidates

# The planner may ask for at most this many provisions (the study's single most useful control).
MAX_SELECTIONS = 10

_FIELD_GUIDE: dict[str, str] = {
    "documentId": "the document's doc_id, the value you return as doc_id",
    "documentTitle": "the document's title",
    "documentKind": "agreement, amendment, side_letter, schedule, disclosure_schedule, …",
    "effectiveDate": "the document's date; a later amendment prevails over an earlier text",
    "amends": "the doc_id of the instrument this one amends",
    "documentTags": "Jurisdiction (governing law) and Topic (main subjects) of the document; "
    "use them to see which documents may matter before reading nodes",
    "Jurisdiction": "governing law",
    "Topic": "subject-matter terms",
    "documentIndex": "the tree of clause nodes",
    "provisions": "(not shown to you: the full text is fetched after you choose)",
    "nodeId": "the node's id, the value you return as node_id (never the clause reference)",
    "clauseReference": "the clause number as printed, for orientation only",
    "title": "the clause heading, the main topical signal",
    "summary": "a short summary; use it to confirm relevance when the title is not enough",
    "keywords": "topic tags of the clause",
    "crossReferencedIds": "nodeIds this clause refers to explicitly",
    "children": "the sub-clauses, nested the same way",
    "snippet": "the opening words of the clause (the full text is not shown)",
    "isDefinition": "true when the node contains a definition",
    "hasMoney": "true when it states an amount of money",
    "hasDate": "true when it states a date or a deadline",
    "hasPercentage": "true when it states a percentage or a rate",
    "hasLiabilityLimit": "true when it limits or caps liability",
    "hasCondition": "true when it sets a condition or a trigger",
    "hasParty": "true when it names a party",
    "isTocEntry": "true for a table-of-contents line: never select these",
    "textLength": "characters of text; nodes under about 50 characters are stubs",
}


def _field_legend() -> str:
    lines = [
        f"- {short} ({name}): {_FIELD_GUIDE.get(name, name)}"
        for name, short in KEYS.items()
        if name != "provisions"
    ]
    return "\n".join(lines)


NAVINDEX_SCAN_SYSTEM = f"""\
You plan the reading for a lawyer. A matter holds several related instruments (an original \
agreement and its amendments, side letters, schedules and so on). Given a question, decide \
which provisions, across all of the instruments, a lawyer would have to read in full to answer \
it. You do not answer the question.

# What you have
Only an index of each document, in an <index doc_id="..."> block: clause numbers, headings, \
opening snippets, summaries, keyword tags, flags and cross-references. The full text of the \
provisions is not shown to you, so choose from these structural signals alone and do not guess \
at what a provision says.

# Reading the index
Each index is compact JSON with two-character keys (the full names are in brackets). A flag \
that is absent is false, an absent list is empty and an absent text is empty.
{_field_legend()}

{UNTRUSTED}

# How to choose (think it through before you answer)
1. Split the question into its parts: concepts, thresholds, conditions, parties, dates.
2. Use each document's title, kind, date and topics to see which documents bear on it. Keep \
every document in play until the index gives you a clear signal to set it aside: answers \
often span several instruments.
3. Drop every table-of-contents node.
4. Narrow the candidates with the flags before reading summaries:
   - a defined term in the question -> definition nodes (isDefinition), in every document
   - an amount, price or fee -> hasMoney
   - a date, period or deadline -> hasDate
   - a rate or percentage -> hasPercentage
   - a cap or limit on liability -> hasLiabilityLimit
   - a condition, trigger or precondition -> hasCondition
   - a particular party -> hasParty
5. Confirm each candidate from its heading, snippet, summary and keywords.
6. When an amendment (or side letter, restatement or supplement) deals with the same subject \
as the original, fetch both: the lawyer needs the original text and the change to it.
7. Follow crossReferencedIds only to a definition or condition that a chosen clause depends on.

# Hard rules
- Choose at most {MAX_SELECTIONS} (doc_id, node_id) pairs. Fewer, well chosen, is better.
- Every doc_id must be exactly the doc_id of one of the <index> blocks, and every node_id must \
be a nodeId in that document's index. Never invent, alter or guess an id.
- Reply with one JSON object and nothing else, in this form:
{{"selections": [{{"doc_id": "D1", "node_id": "n12"}}, {{"doc_id": "D2", "node_id": "n4"}}]}}
- If nothing in the indices bears on the question, reply {{"selections": []}}."""


def navindex_scan_prompt(*, indices: Sequence[PromptIndex], question: str) -> Prompt:
    """The S1 planner prompt: the instructions, then every index in one cached block; only the
    question (tens of tokens) is paid at the full input price once the cache is warm."""
    block = "<indices>\n" + "\n\n".join(index_block(i) for i in indices) + "\n</indices>"
    return Prompt(
        system=[
            {"type": "text", "text": NAVINDEX_SCAN_SYSTEM},
            {"type": "text", "text": block, "cache_control": dict(CACHE_CONTROL)},
        ],
        messages=question_message(
            question, f"Reply with the JSON object only: at most {MAX_SELECTIONS} selections."
        ),
    )


# Reading the planner's answer


def _entries(value: Any) -> list[Any] | None:
    if isinstance(value, dict):
        for key in ("selections", "selection", "nodes"):
            if isinstance(value.get(key), list):
                return value[key]
        return None
    if isinstance(value, list) and value and all(isinstance(v, dict | list) for v in value):
        return value
    return None


def _pair(entry: Any) -> tuple[str, str] | None:
    if isinstance(entry, dict):
        doc_id = entry.get("doc_id", entry.get("docId", entry.get("documentId")))
        node_id = entry.get("node_id", entry.get("nodeId"))
    elif isinstance(entry, list) and len(entry) == 2:
        doc_id, node_id = entry
    else:
        return None
    if not isinstance(doc_id, str | int) or not isinstance(node_id, str | int):
        return None
    return str(doc_id).strip(), str(node_id).strip()


def parse_selections(text: str, valid_pairs: Collection[tuple[str, str]]) -> list[tuple[str, str]]:
    """The (doc_id, node_id) pairs the planner chose, in its order.

    Tolerates code fences and prose around the JSON. Drops pairs that are not in
    ``valid_pairs`` (an invented or mistyped id is never fetched), drops repeats, and keeps at
    most ``MAX_SELECTIONS``: the cap is enforced here, not trusted to the model. A reply with
    no readable selection gives an empty list.
    """
    valid = set(valid_pairs)
    for candidate in json_candidates(text or ""):
        entries = _entries(candidate)
        if entries is None:
            continue
        chosen: list[tuple[str, str]] = []
        for entry in entries:
            pair = _pair(entry)
            if pair is None or pair not in valid or pair in chosen:
                continue
            chosen.append(pair)
            if len(chosen) == MAX_SELECTIONS:
                break
        return chosen
    return []
