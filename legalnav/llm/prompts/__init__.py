"""The prompts, rewritten for legalnav, and their builders; each module by what its prompts are for.

- ``answering``: the study's answer prompts. ``INJECT_ANSWER_SYSTEM`` answers from every
  document of the matter (a cached prefix); ``NAVIGATE_ANSWER_SYSTEM`` from the fetched
  provisions only (navindex S3, navembed).
- ``scan``: ``NAVINDEX_SCAN_SYSTEM``, step S1 of navindex, picks at most ten (doc_id, node_id)
  pairs from the compact indices (a cached prefix), answering in JSON; ``parse_selections``.
- ``enrichment``: ``ENRICH_SYSTEM``, optional, at indexing time: a one-sentence summary and
  keywords for each clause of a document and topic tags for the document, answering in JSON (not
  from the study); ``parse_enrichment``.
- ``judging``: the reference-anchored judge of the evaluation; ``parse_verdict``.
- ``blocks``: the ``Prompt`` and the tagged data blocks; ``replies``: reading JSON from a reply.

Precedent research's prompts (route, plan, stance, brief, and the case card's) are built on these
blocks and live with the research app, in ``legalnav.research.prompts``.

The rules of the study's prompts are the study's (Appendix 13): later amendments prevail to the
extent of inconsistency, defined terms mean only what the documents define, a hard cap of ten
nodes with the flag-routing table, fetch both sides of an amendment, never invent ids, and one
fixed sentence when the documents are silent. The wording is ours.

Document text is untrusted. Every prompt says that what sits inside the data blocks is material
to analyse, never instructions, and the builders wrap each document, index or provision in a
tagged block after neutralising anything inside it that looks like one of those tags, so a
document cannot close its own block and speak outside it.
"""

from __future__ import annotations

from legalnav.llm.prompts.answering import (
    INJECT_ANSWER_SYSTEM,
    NAVIGATE_ANSWER_SYSTEM,
    SILENCE,
    inject_answer_prompt,
    navigate_answer_prompt,
)
from legalnav.llm.prompts.blocks import (
    CACHE_CONTROL,
    Prompt,
    PromptDocument,
    PromptIndex,
    PromptProvision,
    document_block,
    index_block,
    neutralise,
    provision_block,
)
from legalnav.llm.prompts.enrichment import (
    ENRICH_MAX_KEYWORDS,
    ENRICH_MAX_TOPICS,
    ENRICH_MIN_TOPICS,
    ENRICH_SUMMARY_CHARS,
    ENRICH_SUMMARY_WORDS,
    ENRICH_SYSTEM,
    ClauseEnrichment,
    EnrichmentReply,
    PromptClause,
    clause_block,
    enrich_prompt,
    parse_enrichment,
)
from legalnav.llm.prompts.judging import (
    JUDGE_REFERENCE_SYSTEM,
    JudgeVerdict,
    judge_prompt,
    parse_verdict,
)
from legalnav.llm.prompts.replies import parse_json_object
from legalnav.llm.prompts.review import (
    GRID_FILL_SYSTEM,
    GRID_QUOTE_WORDS,
    GRID_TYPES,
    GridColumnAsked,
    grid_fill_prompt,
)
from legalnav.llm.prompts.scan import (
    MAX_SELECTIONS,
    NAVINDEX_SCAN_SYSTEM,
    navindex_scan_prompt,
    parse_selections,
)

__all__ = [
    "GRID_FILL_SYSTEM",
    "GRID_QUOTE_WORDS",
    "GRID_TYPES",
    "GridColumnAsked",
    "grid_fill_prompt",
    "CACHE_CONTROL",
    "ENRICH_MAX_KEYWORDS",
    "ENRICH_MAX_TOPICS",
    "ENRICH_MIN_TOPICS",
    "ENRICH_SUMMARY_CHARS",
    "ENRICH_SUMMARY_WORDS",
    "ENRICH_SYSTEM",
    "INJECT_ANSWER_SYSTEM",
    "JUDGE_REFERENCE_SYSTEM",
    "MAX_SELECTIONS",
    "NAVIGATE_ANSWER_SYSTEM",
    "NAVINDEX_SCAN_SYSTEM",
    "SILENCE",
    "ClauseEnrichment",
    "EnrichmentReply",
    "JudgeVerdict",
    "Prompt",
    "PromptClause",
    "PromptDocument",
    "PromptIndex",
    "PromptProvision",
    "clause_block",
    "document_block",
    "enrich_prompt",
    "index_block",
    "inject_answer_prompt",
    "judge_prompt",
    "navigate_answer_prompt",
    "navindex_scan_prompt",
    "neutralise",
    "parse_enrichment",
    "parse_json_object",
    "parse_selections",
    "parse_verdict",
    "provision_block",
]
