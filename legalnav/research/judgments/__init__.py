"""Judgments: the case card, numbered paragraphs and parent chunks, from the text alone.

Pure functions, no ORM (``research.services`` stores what they return). A judgment is read at
three levels, after the "Lexi" design:

- *child chunks* are the retrieval passages (``retrieval.passages``): one per numbered paragraph
  node, long paragraphs cut at sentence ends, for precise retrieval;
- *parent chunks* (``parent_chunks``) are runs of whole consecutive paragraphs, cut at headings
  and at a size limit, that keep a line of reasoning together; a retrieved child is shown with
  its parent;
- one *case card* per judgment (``case_card``): court, date, case name and parties, judges, who
  appealed and who won, the statutes and cases cited (with how each case was treated), issues
  and holdings, each with the paragraph it came from.

Extraction is deterministic: the header lines of the reported judgment (Indian Supreme Court
reports as in AILA 2019, England and Wales Court of Appeal transcripts), the closing order, and
the text. Anything not found stays empty rather than guessed.

- ``paragraphs``: numbered paragraphs and sentences;   ``chunks``: parent chunks;
- ``header``: court, date, case number, judges, proceeding, and whether a text is a judgment;
- ``parties``: case names, parties, their roles and labels;   ``outcome``: the closing order;
- ``statutes``, ``cases`` (with ``treatment``), ``findings``: what the judgment cites and decides;
- ``card``: the case card that gathers them.
"""

from __future__ import annotations

from legalnav.research.judgments.card import CaseCardData, case_card
from legalnav.research.judgments.cases import (
    CitedCase,
    case_name_key,
    cases_cited,
    names_match,
)
from legalnav.research.judgments.chunks import (
    PARENT_MAX_CHARS,
    PARENT_TARGET_CHARS,
    ParentChunk,
    parent_chunks,
)
from legalnav.research.judgments.findings import MAX_FINDINGS, Finding, findings
from legalnav.research.judgments.header import looks_like_judgment
from legalnav.research.judgments.outcome import (
    OUTCOMES,
    closing_outcome,
    operative_result,
    uk_outcome,
)
from legalnav.research.judgments.paragraphs import (
    Paragraph,
    paragraph_at,
    paragraphs,
    sentences,
)
from legalnav.research.judgments.parties import (
    PARTY_LABELS,
    STATE_PARTY,
    party_labels,
    party_role,
    split_case_name,
)
from legalnav.research.judgments.statutes import StatuteCited, statutes_cited
from legalnav.research.judgments.treatment import (
    TREATMENT_CUES,
    Treatment,
    treatment_of,
)

__all__ = [
    "MAX_FINDINGS",
    "OUTCOMES",
    "PARENT_MAX_CHARS",
    "PARENT_TARGET_CHARS",
    "PARTY_LABELS",
    "STATE_PARTY",
    "TREATMENT_CUES",
    "CaseCardData",
    "CitedCase",
    "Finding",
    "Paragraph",
    "ParentChunk",
    "StatuteCited",
    "Treatment",
    "case_card",
    "case_name_key",
    "cases_cited",
    "closing_outcome",
    "uk_outcome",
    "operative_result",
    "findings",
    "looks_like_judgment",
    "names_match",
    "paragraph_at",
    "paragraphs",
    "parent_chunks",
    "party_labels",
    "party_role",
    "sentences",
    "split_case_name",
    "statutes_cited",
    "treatment_of",
]
