"""The two answer prompts of the "Inject or Navigate?" study: answer from every document of the
matter (inject), or from the provisions the planner fetched (navigate)."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from legalnav.llm.prompts.blocks import (
    CACHE_CONTROL,
    UNTRUSTED,
    Prompt,
    PromptDocument,
    PromptProvision,
    document_block,
    provision_block,
    question_message,
)

# Answers compare against this exact string (the offline answerer and the validator use it too).
SILENCE = "The provided documents do not contain the answer."

# Shared clauses. Each answer prompt is assembled from them so that the rules cannot drift apart.

_PRECEDENCE = """\
- When instruments conflict, an amendment, side letter, restatement or supplement dated later \
than the original prevails, but only to the extent the two are inconsistent: whatever the later \
instrument does not change still stands in the original. A specific provision usually prevails \
over a general one. When the order is not clear, say which instrument you took to govern \
and give your reason."""

_DEFINED_TERMS = """\
- A defined term means what the documents define it to mean, nothing more and nothing else. \
Terms are often defined in one instrument and used in another, so keep track of where each \
term you rely on is defined. If the answer turns on a term whose definition is not before you, \
say so instead of supplying an ordinary or market meaning."""

_ANSWER_FORM = """\
# Form of the answer
- Open with the direct answer in one or two sentences, followed by brief reasoning that \
supports it.
- Support every fact the answer depends on with a citation in the form [doc_id] Clause X, \
for example [D3] Clause 2.01. Cite the document and the clause, both. Put the citation at the \
end of the sentence it supports.
- With every citation give one short quotation, copied character for character from the cited \
clause, in double quotation marks immediately before the citation: “…the words…” [D3] Clause \
2.01. A few decisive words are enough; never paraphrase inside quotation marks, never join \
words from two clauses in one quotation, and mark a gap inside a quotation with "…". Every \
quotation is checked against the clause it cites, and one that is not found word for word is \
shown to the reader as a failed citation.
- Reproduce amounts, currencies, percentages, dates and party names exactly as written.
- Where instruments conflict, name the one that controls and give the reason.
- Where you rely on a defined term, name the document that defines it."""

_SILENCE_RULE = f"""\
# When the documents are silent
If nothing before you addresses the question, reply with this sentence alone, exactly as \
written:
{SILENCE}
Use it only after checking every block. If the question is answered in part, answer that \
part, name the gap, and leave the sentence out."""


INJECT_ANSWER_SYSTEM = f"""\
You act as an experienced transactional lawyer. A partner has asked a question about one \
matter: a set of related instruments such as an original agreement with its amendments, side \
letters, schedules and disclosure documents. Answer it from those instruments alone.

# Sources
- The instruments follow, each in its own <document doc_id="..."> block. Read them as one \
coordinated set of documents; the answer often needs more than one of them.
- Rely on nothing outside them: no general legal knowledge, no assumptions about what \
agreements of this kind usually say.
{_DEFINED_TERMS}

{UNTRUSTED}

# How to work (do this silently; show only the answer)
1. Split the question into its parts: sub-questions, thresholds, conditions, parties.
2. For each part, find every instrument that deals with it.
3. Follow cross-references, including those from one instrument into another, such as an \
amendment that rewrites a section of the original agreement.
4. Settle which text governs:
{textwrap.indent(_PRECEDENCE, "   ")}
5. Write one integrated answer.

{_ANSWER_FORM}

{_SILENCE_RULE}"""

NAVIGATE_ANSWER_SYSTEM = f"""\
You act as an experienced transactional lawyer. The question is to be answered from an \
extract: a set of provisions taken from several related instruments of one matter because they \
looked relevant to the question. Answer from this extract alone.

# Sources
- The only source is the provisions inside the <provisions> block. Each sits in a <provision> \
tag that names its doc_id, node_id and clause reference (and, where known, the document's \
title, kind and date). Here cite each provision as [doc_id:node_id] with the ids from its tag, \
for example [D3:s2.01], in place of the [doc_id] Clause X form; the quotation that goes with \
each citation (see Form of the answer) must be verbatim from that provision.
- Rely on nothing outside the extract: no general legal knowledge, no assumptions about what \
agreements of this kind usually say.
{_PRECEDENCE}
{_DEFINED_TERMS}

{UNTRUSTED}

# Screening (silent)
Before reasoning, sort each provision into relevant or irrelevant to the question and answer \
from the relevant ones only. When unsure, keep the provision: dropping a provision that \
mattered produces a false "not in the documents" answer, keeping one that did not costs only a \
little reading. Set a provision aside only when it plainly concerns another subject.

# How to work (do this silently; show only the answer)
1. Split the question into its parts: sub-questions, thresholds, conditions, parties.
2. For each part, find the provisions and documents that deal with it.
3. Settle which text governs, under the precedence rule above.
4. Follow cross-references within the extract, and point out any that lead outside it.
5. Write one integrated answer.

{_ANSWER_FORM}

# Partial information
If a clause the answer depends on is missing from the extract, say what the extract does \
establish, name the gap, and never reconstruct the absent text.

{_SILENCE_RULE}"""


def inject_answer_prompt(*, documents: Sequence[PromptDocument], question: str) -> Prompt:
    """The inject prompt: the instructions, then every document in one cached block.

    The documents block carries ``cache_control``, so within a warm session (about five
    minutes) later questions read the whole prefix at the cache-read price. (The API caches
    only prefixes above a minimum size, about a thousand tokens for Sonnet; a tiny matter is
    simply billed as plain input.)
    """
    corpus = "<documents>\n" + "\n\n".join(document_block(d) for d in documents) + "\n</documents>"
    return Prompt(
        system=[
            {"type": "text", "text": INJECT_ANSWER_SYSTEM},
            {"type": "text", "text": corpus, "cache_control": dict(CACHE_CONTROL)},
        ],
        messages=question_message(question),
    )


# Said after the provisions when the matter holds several documents and the question names
# none: the reader should see where the evidence came from. The line must carry no fact (a date,
# an amount, a clause number), which the citation check would flag as uncited.
SOURCES_NOTE = (
    "The question names none of the matter's documents. End the answer with one line "
    '"Evidence from: " listing the documents your citations come from, each as its doc_id and '
    "title (for example D3 Supply Agreement), with no dates, amounts or clause numbers on it."
)


def navigate_answer_prompt(
    *, provisions: Sequence[PromptProvision], question: str, sources: bool = False
) -> Prompt:
    """The navigate answer prompt: the instructions, then the fetched provisions (and, with
    ``sources``, the request to say which documents the evidence came from).

    The provisions block is deliberately not cached: it changes with every question, and a
    cache write costs more than plain input (p_w > p_in) for a prefix nobody will read again.
    """
    block = (
        "<provisions>\n" + "\n\n".join(provision_block(p) for p in provisions) + "\n</provisions>"
    )
    if sources:
        block += "\n\n" + SOURCES_NOTE
    return Prompt(
        system=[
            {"type": "text", "text": NAVIGATE_ANSWER_SYSTEM},
            {"type": "text", "text": block},
        ],
        messages=question_message(question),
    )
