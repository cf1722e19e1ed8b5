"""The navindex files: <doc>.index.json (the navigation surface) and <doc>.full.json (the
provision store), in a readable form and in the token-optimised form of the study: two-character
keys, false booleans, empty arrays and nulls omitted, no whitespace.

Pure functions over plain data; ``services.document_navindex`` feeds them from the database.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from legalnav.llm.navindex_keys import KEYS

SNIPPET_CHARS = 160


FLAG_FIELDS = (
    ("isDefinition", "is_definition"),
    ("hasMoney", "has_money"),
    ("hasDate", "has_date"),
    ("hasPercentage", "has_percentage"),
    ("hasLiabilityLimit", "has_liability_limit"),
    ("hasCondition", "has_condition"),
    ("hasParty", "has_party"),
    ("isTocEntry", "is_toc_entry"),
)


@dataclass(slots=True)
class IndexNode:
    node_id: str
    ref: str
    title: str
    summary: str
    keywords: list[str]
    text: str
    flags: dict[str, bool]
    cross_refs: list[str] = field(default_factory=list)
    children: list[IndexNode] = field(default_factory=list)


@dataclass(slots=True)
class IndexDocument:
    key: str
    title: str
    kind: str
    effective_date: str | None
    amends: str | None
    jurisdiction: str
    topics: list[str]
    roots: list[IndexNode]


def _snippet(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SNIPPET_CHARS else flat[: SNIPPET_CHARS - 1].rstrip() + "…"


def _node_dict(node: IndexNode) -> dict[str, Any]:
    out: dict[str, Any] = {
        "nodeId": node.node_id,
        "clauseReference": node.ref or None,
        "title": node.title or None,
        "summary": node.summary or None,
        "keywords": node.keywords,
        "crossReferencedIds": node.cross_refs,
        "snippet": _snippet(node.text) or None,
    }
    for name, _ in FLAG_FIELDS:
        out[name] = bool(node.flags.get(name))
    out["textLength"] = len(node.text)
    out["children"] = [_node_dict(c) for c in node.children]
    return out


def build_index(doc: IndexDocument) -> dict[str, Any]:
    """The readable navigation surface: structure, flags and summaries, no provision text."""
    return {
        "documentId": doc.key,
        "documentTitle": doc.title,
        "documentKind": doc.kind,
        "effectiveDate": doc.effective_date,
        "amends": doc.amends,
        "documentTags": {"Jurisdiction": doc.jurisdiction or None, "Topic": doc.topics},
        "documentIndex": [_node_dict(r) for r in doc.roots],
    }


def build_full(doc: IndexDocument) -> dict[str, Any]:
    """The provision store: node id -> verbatim text."""
    provisions: dict[str, str] = {}
    stack = list(reversed(doc.roots))
    while stack:
        node = stack.pop()
        provisions[node.node_id] = node.text
        stack.extend(reversed(node.children))
    return {"documentId": doc.key, "provisions": provisions}


def optimise(value: Any) -> Any:
    """Two-character keys; drop false, empty and null values. Provision ids (keys of the
    provision store) are data, not field names, and are kept as they are."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if item is None or item is False or item == [] or item == {} or item == "":
                continue
            short = KEYS.get(key, key)
            out[short] = item if key == "provisions" else optimise(item)
        return out
    if isinstance(value, list):
        return [optimise(v) for v in value]
    return value


def expand(value: Any) -> Any:
    """The inverse of ``optimise`` for keys (omitted falsy values stay omitted)."""
    long = {v: k for k, v in KEYS.items()}
    if isinstance(value, dict):
        return {
            long.get(k, k): (v if long.get(k) == "provisions" else expand(v))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [expand(v) for v in value]
    return value


def dumps_readable(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2)


def dumps_optimised(data: dict[str, Any]) -> str:
    return json.dumps(optimise(data), ensure_ascii=False, separators=(",", ":"))
