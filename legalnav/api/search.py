"""Search a matter's provisions for the API and the MCP server: the retrieval engine's passage
rankings (hybrid by default), folded to one hit per clause node, filtered by node flags.

The flags are filters, not boosts: ``flags=hasMoney,hasDate`` keeps only provisions for which
both hold (the engine measured flag *boosts* as harmful to ranking; as filters they let a caller
narrow a search to, say, the clauses that mention an amount).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from legalnav.api import schemas
from legalnav.api.errors import ApiError, rate_limited
from legalnav.api.selectors import matter_access
from legalnav.core.limits import SEARCH, limit_take, subjects_of
from legalnav.retrieval.services import matter_retriever

if TYPE_CHECKING:
    from django.contrib.auth.models import User

SNIPPET_CHARS = 300


def _snippet(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SNIPPET_CHARS else flat[: SNIPPET_CHARS - 1].rstrip() + "…"


def matter_search(
    *, user: User, matter_id: object, params: schemas.SearchParams
) -> schemas.SearchResult:
    """The best ``k`` provisions of the matter's indexed documents for ``q``, best first.
    Past ``LEGALNAV_SEARCH_RATE_PER_MINUTE`` (per user and per API token) a 429 with
    Retry-After; only searches of a matter the user may read are counted."""
    matter = matter_access(user=user, matter_id=matter_id)
    decision = limit_take(SEARCH, subjects=subjects_of(user))
    if not decision.allowed:
        raise rate_limited(decision)
    mr = matter_retriever(matter=matter, dense=params.mode != "bm25")
    positions = list(range(len(mr.documents)))
    if params.document_id is not None:
        positions = [i for i, d in enumerate(mr.documents) if d.pk == params.document_id]
        if not positions:
            raise ApiError(
                422,
                "invalid",
                "That document is not an indexed document of this matter.",
                field="document_id",
            )
    result = schemas.SearchResult(
        query=params.q, mode=params.mode, flags=list(params.flags), strategy=params.mode, hits=[]
    )
    corpus = mr.retriever.corpus
    if not corpus.size:
        return result
    narrowed = bool(params.flags) or params.document_id is not None
    # Several passages can come from one clause, and filters drop some: rank deeper than k.
    depth = corpus.size if narrowed else min(corpus.size, max(50, 10 * params.k))
    strategy = {"hybrid": "hybrid", "bm25": "bm25", "dense": "dense"}[params.mode]
    ranked = mr.retriever.ranked_passages(params.q, strategy, depth)
    allowed = set(positions)
    seen: set[tuple[int, int]] = set()
    for row, score in ranked:
        d, p = corpus.owner[row]
        if d not in allowed:
            continue
        passage = corpus.docs[d].passages[p]
        if (d, passage.node) in seen:
            continue
        node = corpus.docs[d].nodes[passage.node]
        if any(not node.flags.get(flag) for flag in params.flags):
            continue
        seen.add((d, passage.node))
        result.hits.append(
            schemas.SearchHit(
                rank=len(result.hits) + 1,
                score=float(score),
                document=schemas.DocumentRef.of(mr.documents[d]),
                node_id=node.node_id,
                ref=node.ref,
                heading=node.heading,
                snippet=_snippet(passage.text),
                flags=[name for name in schemas.FLAG_NAMES if node.flags.get(name)],
            )
        )
        if len(result.hits) >= params.k:
            break
    return result
