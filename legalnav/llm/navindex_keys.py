"""The navindex field names and their two-character short forms.

The format itself is ``legalnav.documents.navindex``; the names live here, in the llm layer,
because the planner prompt explains them to the model (``prompts.scan``) and the llm layer may
not import the documents layer. ``documents.navindex`` re-exports ``KEYS``.
"""

from __future__ import annotations

# Readable key -> two-character key. The planner prompt carries the same legend.
KEYS: dict[str, str] = {
    "documentId": "di",
    "documentTitle": "dn",
    "documentKind": "dk",
    "effectiveDate": "ed",
    "amends": "am",
    "documentTags": "dg",
    "Jurisdiction": "ju",
    "Topic": "tp",
    "documentIndex": "ix",
    "provisions": "pv",
    "nodeId": "id",
    "clauseReference": "cr",
    "title": "ti",
    "summary": "su",
    "keywords": "kw",
    "crossReferencedIds": "xr",
    "children": "ch",
    "snippet": "sn",
    "isDefinition": "df",
    "hasMoney": "mo",
    "hasDate": "dt",
    "hasPercentage": "pc",
    "hasLiabilityLimit": "ll",
    "hasCondition": "cn",
    "hasParty": "pa",
    "isTocEntry": "tc",
    "textLength": "tl",
}
assert len(set(KEYS.values())) == len(KEYS), "two-character keys must be unique"
