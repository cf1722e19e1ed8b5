"""Reads for the API and the MCP server: each takes the acting user and ids, checks access through
``matters.access.matter_for`` (404 for a non-member, 403 for a weak role) and returns the output
models of ``schemas``. The two doors share these functions, so they see exactly the same data.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from django.core.exceptions import PermissionDenied
from django.db.models import Count, Q
from django.http import Http404

from legalnav.answers import report
from legalnav.answers.models import Question
from legalnav.api import schemas
from legalnav.api.errors import ApiError, not_found, parse_id
from legalnav.core import jobs
from legalnav.core.attributes import from_attributes
from legalnav.documents import navindex
from legalnav.documents import selectors as document_selectors
from legalnav.documents.actions import document_write_navindex, navindex_dir
from legalnav.documents.models import NODE_FLAG_COLUMNS, CrossReference, DefinedTerm, Document, Node
from legalnav.llm.models import LLMCall
from legalnav.matters.access import Action, matter_for, staff_sees_all
from legalnav.matters.models import Matter, Membership

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User

MAX_PROVISIONS = 50  # node ids in one get_provisions request
MAX_RELATED = 50  # cross-referenced and definition nodes returned with them

# --- access -----------------------------------------------------------------------------------


def matter_access(
    *, user: User | AnonymousUser, matter_id: object, action: Action = Action.VIEW
) -> Matter:
    """The matter if the user may take the action: ApiError 404 / PermissionDenied otherwise."""
    pk = parse_id(matter_id, "matter")
    try:
        return matter_for(user=user, matter_id=pk, action=action)
    except Http404:
        raise not_found("matter") from None


def document_access(
    *, user: User | AnonymousUser, document_id: object, action: Action = Action.VIEW
) -> Document:
    """The document if the user may take the action in its matter. A document of a matter the
    user is not a member of is "not found", exactly like one that does not exist."""
    pk = parse_id(document_id, "document")
    doc = Document.objects.filter(pk=pk).select_related("matter", "amends").defer("text").first()
    if doc is None:
        raise not_found("document")
    try:
        matter_for(user=user, matter_id=doc.matter_id, action=action)
    except Http404:
        raise not_found("document") from None
    return doc


def _flags(obj: object) -> list[str]:
    return [name for name, column in navindex.FLAG_FIELDS if getattr(obj, column, False)]


# --- matters ----------------------------------------------------------------------------------


def _matter_out(matter: Matter, role: str) -> schemas.MatterOut:
    return schemas.MatterOut(
        id=matter.pk,
        name=matter.name,
        kind=matter.kind,
        description=matter.description,
        role=role,
        document_count=getattr(matter, "document_count", 0),
        indexed_count=getattr(matter, "indexed_count", 0),
        created_at=matter.created_at,
        updated_at=matter.updated_at,
        status=matter.status,
        closed_at=matter.closed_at,
        retain_until=matter.retain_until,
        purge_requested_at=matter.purge_requested_at,
        purged_at=matter.purged_at,
    )


def _with_counts(qs: Any) -> Any:
    return qs.annotate(
        document_count=Count("documents", distinct=True),
        indexed_count=Count("documents", filter=Q(documents__status="indexed"), distinct=True),
    )


def _roles(user: User | AnonymousUser, matter_ids: list[int]) -> dict[int, str]:
    if staff_sees_all(user):
        return {pk: "admin" for pk in matter_ids}
    return dict(
        Membership.objects.filter(user=user, matter_id__in=matter_ids).values_list(
            "matter_id", "role"
        )
    )


def matter_page(*, user: User | AnonymousUser, params: schemas.PageParams) -> schemas.MatterPage:
    """The matters the user may see, by name."""
    qs = Matter.objects.visible_to(user)
    count = qs.count()
    matters = list(
        _with_counts(qs).order_by("name", "id")[params.offset : params.offset + params.limit]
    )
    roles = _roles(user, [m.pk for m in matters])
    return schemas.MatterPage.of(
        params, count, [_matter_out(m, roles.get(m.pk, "")) for m in matters]
    )


def matter_detail(*, user: User | AnonymousUser, matter_id: object) -> schemas.MatterOut:
    matter = matter_access(user=user, matter_id=matter_id)
    counted = _with_counts(Matter.objects.filter(pk=matter.pk)).get()
    return _matter_out(counted, getattr(matter, "user_role", ""))


# --- documents --------------------------------------------------------------------------------


def _link_out(proposal: dict) -> schemas.LinkProposalOut | None:  # type: ignore[type-arg]
    if not proposal:
        return None
    return schemas.LinkProposalOut(
        target_id=proposal.get("target"),
        words=str(proposal.get("words", "")),
        reasons=[str(r) for r in proposal.get("reasons", [])],
        state=str(proposal.get("state", "none")),
    )


def document_out(doc: Document) -> schemas.DocumentOut:
    error = None
    if doc.status == Document.Status.FAILED or doc.error_code:
        error = schemas.DocumentError(code=doc.error_code, message=doc.error_message)
    return from_attributes(
        schemas.DocumentOut,
        doc,
        link_proposal=_link_out(doc.link_proposal),
        error=error,
        stale=jobs.is_stale(jobs.spec_for("document"), doc),
    )


def document_page(
    *, user: User | AnonymousUser, matter_id: object, params: schemas.DocumentListParams
) -> schemas.DocumentPage:
    matter = matter_access(user=user, matter_id=matter_id)
    qs = Document.objects.filter(matter=matter).defer("text").order_by("effective_date", "id")
    if params.status:
        qs = qs.filter(status=params.status)
    count = qs.count()
    docs = list(qs[params.offset : params.offset + params.limit])
    return schemas.DocumentPage.of(params, count, [document_out(d) for d in docs])


def document_detail(*, user: User | AnonymousUser, document_id: object) -> schemas.DocumentOut:
    """The document; a poll of one that nobody is indexing restarts it (the sweeper, now)."""
    doc = document_access(user=user, document_id=document_id)
    return document_out(jobs.job_poll_check("document", doc))


# --- the node tree and provisions -------------------------------------------------------------


def node_tree(*, user: User | AnonymousUser, document_id: object) -> schemas.NodeTree:
    """The document's clause tree: ids, references, headings, flags and sizes, no text."""
    doc = document_access(user=user, document_id=document_id)
    count = 0

    def branch(n: Node) -> schemas.TreeNode:
        nonlocal count
        count += 1
        return from_attributes(schemas.TreeNode, n, flags=_flags(n), children=[])

    roots = document_selectors.node_tree(document=doc, make=branch, fields=_TREE_FIELDS)
    return schemas.NodeTree(document=schemas.DocumentRef.of(doc), node_count=count, nodes=roots)


_TREE_FIELDS = ("kind", "ref", "heading", "level", "text_length", *NODE_FLAG_COLUMNS)


def storable(text: str) -> bool:
    """Whether a string can be looked up at all: PostgreSQL refuses NUL in text, and a lone
    surrogate cannot be encoded. Such an id names nothing."""
    if "\x00" in text:
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _split_id(ident: str, default_doc: int) -> tuple[int | None, str]:
    """ "s5.17" -> (default document, "s5.17"); "D7:s2.01" -> (7, "s2.01"); (None, ...) for an
    id that names nothing."""
    if not storable(ident):
        return None, ident
    head, sep, rest = ident.partition(":")
    if sep and head[:1] in ("D", "d") and head[1:].isascii() and head[1:].isdigit():
        try:
            return parse_id(head[1:], "document"), rest
        except ApiError:
            return None, rest
    return default_doc, ident


def _provisions_out(nodes: list[Node]) -> list[schemas.Provision]:
    """Provision models for nodes (with their documents loaded), in the order given."""
    if not nodes:
        return []
    ids = [n.pk for n in nodes]
    by_pk = {n.pk: n for n in nodes}
    xrefs: dict[int, list[str]] = {}
    for source_id, target_node_id, target_doc_id in (
        CrossReference.objects.filter(source_id__in=ids, target__isnull=False)
        .order_by("source_id", "start")
        .values_list("source_id", "target__node_id", "target__document_id")
    ):
        own = by_pk[source_id].document_id
        ident = target_node_id if target_doc_id == own else f"D{target_doc_id}:{target_node_id}"
        lst = xrefs.setdefault(source_id, [])
        if ident not in lst:
            lst.append(ident)
    terms: dict[int, list[str]] = {}
    through = DefinedTerm.used_in.through
    for node_id, term in (
        through.objects.filter(node_id__in=ids)
        .order_by("definedterm__term")
        .values_list("node_id", "definedterm__term")
    ):
        terms.setdefault(node_id, []).append(term)
    parents = dict(
        Node.objects.filter(pk__in={n.parent_id for n in nodes if n.parent_id}).values_list(
            "pk", "node_id"
        )
    )
    return [
        from_attributes(
            schemas.Provision,
            n,
            document=schemas.DocumentRef.of(n.document),
            flags=_flags(n),
            parent_id=parents.get(n.parent_id) if n.parent_id else None,
            cross_referenced_ids=xrefs.get(n.pk, []),
            terms_used=terms.get(n.pk, []),
        )
        for n in nodes
    ]


def _nodes() -> Any:
    return Node.objects.select_related("document").defer("document__text")


def _cross_referenced(ordered: list[Node], matter_id: int, seen: set[int]) -> list[Node]:
    """The provisions ``ordered`` cross-reference in the same matter, not already in ``seen``."""
    if not ordered:
        return []
    targets = (
        CrossReference.objects.filter(
            source__in=ordered, target__isnull=False, target__document__matter_id=matter_id
        )
        .order_by("source__order", "start")
        .values_list("target_id", flat=True)
    )
    target_ids = [t for t in dict.fromkeys(targets) if t not in seen][:MAX_RELATED]
    by_pk = {n.pk: n for n in _nodes().filter(pk__in=target_ids)}
    return [by_pk[t] for t in target_ids if t in by_pk]


def _defining(ordered: list[Node], seen: set[int]) -> list[Node]:
    """The provisions defining the terms ``ordered`` use, not already in ``seen``."""
    if not ordered:
        return []
    defining = (
        DefinedTerm.objects.filter(used_in__in=ordered)
        .order_by("term")
        .values_list("defining_node_id", flat=True)
    )
    def_ids = [t for t in dict.fromkeys(defining) if t not in seen][:MAX_RELATED]
    by_pk = {n.pk: n for n in _nodes().filter(pk__in=def_ids)}
    return [by_pk[t] for t in def_ids if t in by_pk]


def provisions_get(
    *,
    user: User | AnonymousUser,
    document_id: object,
    node_ids: list[str],
    cross_references: bool = False,
    definitions: bool = False,
) -> schemas.Provisions:
    """Provisions by node id, verbatim. An id may name another document as "D<id>:<node id>"
    (the navindex's form for references across documents); a document the user may not see is
    reported as not found, like an id that does not exist. With ``cross_references`` the
    provisions they refer to come too, with ``definitions`` the definitions of the terms they
    use (both within the same matter)."""
    doc = document_access(user=user, document_id=document_id)
    if len(node_ids) > MAX_PROVISIONS:
        raise ApiError(
            422,
            "invalid",
            f"Ask for at most {MAX_PROVISIONS} provisions at a time.",
            field="node_ids",
        )
    wanted: list[tuple[int, str, str]] = []  # (document id, node id, as asked)
    for ident in node_ids:
        doc_id, node_id = _split_id(ident, doc.pk)
        if doc_id is not None:
            wanted.append((doc_id, node_id, ident))
    visible: dict[int, bool] = {doc.pk: True}
    for doc_id in {d for d, _, _ in wanted} - {doc.pk}:
        try:
            other = document_access(user=user, document_id=doc_id)
        except (ApiError, PermissionDenied):
            visible[doc_id] = False
        else:
            visible[doc_id] = other.matter_id == doc.matter_id
    found: dict[tuple[int, str], Node] = {}
    by_doc: dict[int, set[str]] = {}
    for doc_id, node_id, _ in wanted:
        if visible.get(doc_id):
            by_doc.setdefault(doc_id, set()).add(node_id)
    for doc_id, ids in by_doc.items():
        for n in _nodes().filter(document_id=doc_id, node_id__in=ids):
            found[(doc_id, n.node_id)] = n
    ordered: list[Node] = []
    not_found_ids: list[str] = []
    for doc_id, node_id, ident in wanted:
        node = found.get((doc_id, node_id))
        if node is None:
            not_found_ids.append(ident)
        elif node not in ordered:
            ordered.append(node)
    not_found_ids.extend(i for i in node_ids if _split_id(i, doc.pk)[0] is None)

    seen = {n.pk for n in ordered}
    related_xrefs = _cross_referenced(ordered, doc.matter_id, seen) if cross_references else []
    seen.update(n.pk for n in related_xrefs)
    related_defs = _defining(ordered, seen) if definitions else []
    return schemas.Provisions(
        provisions=_provisions_out(ordered),
        cross_referenced=_provisions_out(related_xrefs),
        definitions=_provisions_out(related_defs),
        not_found=not_found_ids,
    )


def node_detail(
    *, user: User | AnonymousUser, document_id: object, node_id: str, params: schemas.NodeParams
) -> schemas.Provisions:
    """One node, verbatim, with (when asked) what it cross-references and the definitions of the
    terms it uses; 404 when the node does not exist."""
    result = provisions_get(
        user=user,
        document_id=document_id,
        node_ids=[node_id],
        cross_references=params.cross_references,
        definitions=params.definitions,
    )
    if not result.provisions:
        raise not_found("node in this document")
    return result


# --- navindex files ---------------------------------------------------------------------------


def navindex_bytes(
    *, user: User | AnonymousUser, document_id: object, params: schemas.NavindexParams
) -> bytes:
    """A navindex file of the document as written at indexing (rewritten if it is missing)."""
    doc = document_access(user=user, document_id=document_id)
    if doc.status != Document.Status.INDEXED:
        raise ApiError(
            409,
            "not_indexed",
            f"{doc.key} is {doc.get_status_display().lower()}; its navindex exists once it is "
            "indexed.",
        )
    suffix = ".min.json" if params.form == "min" else ".json"
    path = navindex_dir(doc.matter_id) / f"{doc.key}.{params.part}{suffix}"
    try:
        return path.read_bytes()
    except FileNotFoundError:
        # Files are written at indexing; a navindex folder that was cleared is rebuilt.
        document_write_navindex(document=Document.objects.get(pk=doc.pk))
        return path.read_bytes()


def navindex_get(
    *,
    user: User | AnonymousUser,
    document_id: object,
    params: schemas.NavindexParams,
    legend: bool = True,
) -> schemas.NavindexOut:
    doc = document_access(user=user, document_id=document_id)
    content = json.loads(navindex_bytes(user=user, document_id=doc.pk, params=params))
    return schemas.NavindexOut(
        document=schemas.DocumentRef.of(doc),
        part=params.part,
        form=params.form,
        legend={v: k for k, v in navindex.KEYS.items()}
        if (legend and params.form == "min")
        else None,
        content=content,
    )


# --- questions and answers --------------------------------------------------------------------


_dollars = report.dollars

# The answer report (legalnav.answers.report) is what every door renders for a question.
query_out = report.query_report


def query_detail(
    *, user: User | AnonymousUser, matter_id: object, query_id: object
) -> schemas.QuestionOut:
    """A question of the matter with, once answered, the answer, its citations, the evidence in
    its three buckets, the validation and the cost."""
    matter = matter_access(user=user, matter_id=matter_id)
    pk = parse_id(query_id, "question")
    query = Question.objects.filter(matter=matter, pk=pk).first()
    if query is None:
        raise not_found("question in this matter")
    return query_out(jobs.job_poll_check("question", query))


def query_page(
    *, user: User | AnonymousUser, matter_id: object, params: schemas.QuestionListParams
) -> schemas.QuestionPage:
    """The matter's questions, newest first, without their answers (fetch one for those)."""
    matter = matter_access(user=user, matter_id=matter_id)
    qs = Question.objects.filter(matter=matter).order_by("-created_at", "-id")
    if params.status:
        qs = qs.filter(status=params.status)
    count = qs.count()
    rows = list(qs[params.offset : params.offset + params.limit])
    return schemas.QuestionPage.of(params, count, [query_out(q, with_answer=False) for q in rows])


# --- the cost ledger --------------------------------------------------------------------------


def cost_ledger(
    *, user: User | AnonymousUser, matter_id: object, params: schemas.LedgerParams
) -> schemas.CostLedger:
    """The matter's LLM calls, newest first, with totals over all of them (or one question's)."""
    matter = matter_access(user=user, matter_id=matter_id)
    qs = LLMCall.objects.filter(matter_id=matter.pk)
    if params.query_id is not None:
        qs = qs.filter(query_id=params.query_id)
    totals = qs.totals()
    count = qs.count()
    rows = list(qs.order_by("-created_at", "-id")[params.offset : params.offset + params.limit])
    return schemas.CostLedger.of(
        params,
        count,
        [from_attributes(schemas.LedgerRow, c, dollars=_dollars(c.dollars)) for c in rows],
        # the summed tokens (``LLMCallQuerySet.totals``), with the rows counted
        totals=schemas.LedgerTotals(
            **{**totals, "calls": count, "dollars": _dollars(totals["dollars"])}
        ),
    )
