"""What the API and the MCP server take and give, as pydantic models.

Inputs are validated into these models (a failure is a 422 with the field named); outputs are
built as these models and serialised with ``model_dump(mode="json")``. The OpenAPI document and
the MCP tools' schemas are generated from the same classes, so they cannot drift from the code.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Any, Literal, Self

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from legalnav.answers.report import (  # noqa: F401 - the answer report is the API answer schema
    AnswerOut,
    CitationOut,
    CostOut,
    DocumentRef,
    EvidenceItem,
    EvidenceOut,
    QuestionOut,
)
from legalnav.api.errors import MAX_ID
from legalnav.documents.navindex import FLAG_FIELDS

# --- input ----------------------------------------------------------------------------------


def _clean_text(value: str) -> str:
    # NUL cannot be stored by PostgreSQL and a lone surrogate cannot be encoded as UTF-8: both
    # would fail deep in the database layer, so they are refused here as bad input.
    if "\x00" in value:
        raise ValueError("must not contain NUL characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("must be valid Unicode text") from None
    return value


CleanStr = Annotated[str, AfterValidator(_clean_text)]
Id = Annotated[int, Field(ge=1, le=MAX_ID)]

FLAG_NAMES: tuple[str, ...] = tuple(name for name, _ in FLAG_FIELDS)
FlagName = Literal[
    "isDefinition",
    "hasMoney",
    "hasDate",
    "hasPercentage",
    "hasLiabilityLimit",
    "hasCondition",
    "hasParty",
    "isTocEntry",
]
DocumentKind = Literal[
    "agreement",
    "amendment",
    "side_letter",
    "schedule",
    "disclosure_schedule",
    "judgment",
    "other",
]
DocumentStatus = Literal["queued", "indexing", "indexed", "failed", "cancelled"]
AskMode = Literal["auto", "inject", "navembed", "navindex"]
SearchMode = Literal["hybrid", "bm25", "dense"]


def _comma_list(value: object) -> object:
    """``flags=hasMoney,hasDate`` (one comma-separated value) or a list of such values."""
    if isinstance(value, str):
        value = [value]
    if isinstance(value, list | tuple):
        out: list[object] = []
        for item in value:
            if isinstance(item, str):
                out.extend(part.strip() for part in item.split(",") if part.strip())
            else:
                out.append(item)
        return out
    return value


class PageParams(BaseModel):
    """Pagination: ``limit`` items from ``offset``; every page says where the next one starts."""

    model_config = ConfigDict(extra="ignore")

    limit: int = Field(default=25, ge=1, le=100, description="Items per page (1-100).")
    offset: int = Field(default=0, ge=0, le=1_000_000, description="Items to skip.")


class DocumentListParams(PageParams):
    status: DocumentStatus | None = Field(default=None, description="Only documents in this state.")


class NavindexParams(BaseModel):
    model_config = ConfigDict(extra="ignore")

    part: Literal["index", "full"] = Field(
        default="index",
        description="index: the navigation surface (ids, references, titles, summaries, flags, "
        "no text); full: node id -> verbatim text.",
    )
    form: Literal["readable", "min"] = Field(
        default="readable",
        description="readable: full key names; min: the token-optimised form (two-character "
        "keys, false/empty/null omitted, no whitespace).",
    )


class NodeParams(BaseModel):
    model_config = ConfigDict(extra="ignore")

    cross_references: bool = Field(
        default=False, description="Also return the provisions this one cross-references."
    )
    definitions: bool = Field(
        default=False, description="Also return the definitions of the terms it uses."
    )


class SearchParams(BaseModel):
    model_config = ConfigDict(extra="ignore")

    q: CleanStr = Field(min_length=1, max_length=1000, description="What to look for.")
    flags: Annotated[list[FlagName], BeforeValidator(_comma_list)] = Field(
        default_factory=list,
        max_length=len(FLAG_NAMES),
        description="Only provisions carrying every one of these flags (comma-separated).",
    )
    k: int = Field(default=10, ge=1, le=50, description="How many provisions to return.")
    mode: SearchMode = Field(
        default="hybrid",
        description="hybrid: BM25 and embeddings fused by reciprocal rank; bm25: lexical only; "
        "dense: embeddings only.",
    )
    document_id: Id | None = Field(default=None, description="Only this document of the matter.")


class AskBody(BaseModel):
    # JSON bodies are strict: {"force": 0} or {"question": 7} are refused, not coerced.
    model_config = ConfigDict(extra="forbid", strict=True)

    question: CleanStr = Field(min_length=1, max_length=20_000)
    mode: AskMode = Field(
        default="auto",
        description="auto: inject while the matter is small, navigate beyond; inject: every "
        "document in context; navembed: hybrid passage search; navindex: a planner over the "
        "compact index.",
    )


class ReindexBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    force: bool = Field(
        default=False, description="Rebuild even when the file and parser are unchanged."
    )


class UploadForm(BaseModel):
    """The form fields of an upload, besides the file itself."""

    model_config = ConfigDict(extra="ignore")

    title: CleanStr = Field(
        default="", max_length=300, description="Empty: guessed from the document."
    )
    # "" is what a form sends for a field left empty: it means not given (see below), and the
    # schema says so, so that a client may send it.
    kind: DocumentKind | Literal[""] | None = Field(
        default=None, description="Empty: guessed from the text."
    )
    amends: Id | Literal[""] | None = Field(
        default=None, description="Id of the document of this matter that this one amends."
    )
    effective_date: date | Literal[""] | None = Field(
        default=None, description="Empty: read from the text."
    )

    @model_validator(mode="before")
    @classmethod
    def _empty_is_absent(cls, data: Any) -> Any:
        # A form sends a field left empty as "": it means not given (no kind, no date).
        if isinstance(data, dict):
            return {k: v for k, v in data.items() if v != ""}
        return data


class QuestionListParams(PageParams):
    status: Literal["queued", "running", "answered", "failed", "cancelled"] | None = None


class LedgerParams(PageParams):
    query_id: Id | None = Field(default=None, description="Only the calls of this question.")


# --- output ---------------------------------------------------------------------------------


class ErrorDetail(BaseModel):
    code: str
    message: str
    field: str | None = None


class ErrorBody(BaseModel):
    error: ErrorDetail


class Paged(BaseModel):
    count: int = Field(description="Items in all pages.")
    limit: int
    offset: int
    next_offset: int | None = Field(description="Offset of the next page; null on the last.")
    next: str | None = Field(default=None, description="URL of the next page; null on the last.")

    @classmethod
    def of(cls, params: PageParams, count: int, items: list[Any], **fields: Any) -> Self:
        """The page ``params`` asks for: its ``items``, of ``count`` in all, and the offset of
        the next page (None on the last)."""
        end = params.offset + params.limit
        return cls(
            items=items,
            count=count,
            limit=params.limit,
            offset=params.offset,
            next_offset=end if end < count else None,
            **fields,
        )


class MatterOut(BaseModel):
    id: int
    name: str
    kind: str
    description: str
    role: str = Field(description="Your role: owner, editor, viewer (admin for staff).")
    document_count: int
    indexed_count: int
    created_at: datetime
    updated_at: datetime
    status: str = Field(
        description="open; closed (read-only: questions, uploads and grids are refused with 409 "
        "matter_closed); purged (its content destroyed)."
    )
    closed_at: datetime | None = None
    retain_until: date | None = Field(
        default=None, description="From this day the matter is due for purge."
    )
    purge_requested_at: datetime | None = Field(
        default=None, description="An owner asked for the purge; staff confirm it."
    )
    purged_at: datetime | None = None


class MatterPage(Paged):
    items: list[MatterOut]


class DocumentError(BaseModel):
    code: str
    message: str


class DocumentOut(BaseModel):
    id: int
    key: str
    matter_id: int
    title: str
    kind: str
    effective_date: date | None
    amends_id: int | None
    original_filename: str
    folder: str = Field(default="", description="Where the file sat in the zip it came from.")
    link_proposal: LinkProposalOut | None = Field(
        default=None, description="What it says it amends and the document proposed; null if none."
    )
    size_bytes: int
    media_type: str
    status: DocumentStatus
    progress: int = Field(description="0-100 while indexing.")
    progress_note: str
    error: DocumentError | None = Field(description="Why indexing failed; null otherwise.")
    node_count: int
    attempts: int
    stale: bool = Field(
        default=False,
        description="Queued or indexing, but no worker is on it: retry it (or cancel it).",
    )
    created_at: datetime
    updated_at: datetime
    indexed_at: datetime | None


class DocumentPage(Paged):
    items: list[DocumentOut]


class UploadOut(BaseModel):
    document: DocumentOut
    created: bool = Field(description="False when the same file was already in the matter.")


class ArchiveFileOut(BaseModel):
    path: str = Field(description="Where the file sat in the zip: folders / name (text only).")
    folder: str
    document: DocumentOut | None = Field(description="The document it is now; null if refused.")
    created: bool = Field(
        description="False when the same bytes were already in the matter: recorded as a copy."
    )
    error: DocumentError | None = Field(description="Why the file was left out; null otherwise.")


class ArchiveOut(BaseModel):
    archive: str
    added: int
    copies: int
    left_out: int
    files: list[ArchiveFileOut]


class LinkBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    accept: bool = Field(description="true: the document amends the proposed one; false: reject.")


class LinkProposalOut(BaseModel):
    target_id: int | None = Field(description="The document proposed as the one amended.")
    words: str = Field(description="What the document says it amends, as written.")
    reasons: list[str]
    state: str = Field(description="proposed, accepted, rejected, or none (nothing found).")


class ReindexOut(BaseModel):
    document: DocumentOut
    queued: bool = Field(description="False while the document is being indexed already.")


class TreeNode(BaseModel):
    node_id: str
    kind: str
    ref: str
    heading: str
    level: int
    flags: list[str] = Field(description="The flags that hold for this node.")
    text_length: int
    children: list[TreeNode]


class NodeTree(BaseModel):
    document: DocumentRef
    node_count: int
    nodes: list[TreeNode]


class Provision(BaseModel):
    """One node with its verbatim text."""

    document: DocumentRef
    node_id: str
    kind: str
    ref: str
    heading: str
    text: str = Field(description="Verbatim text (page furniture and layout line breaks removed).")
    start: int = Field(description="Offset of the text in the document's extracted text.")
    end: int
    flags: list[str]
    parent_id: str | None
    cross_referenced_ids: list[str] = Field(
        description='Resolved cross-references: node ids, "D<id>:<node id>" in another document.'
    )
    terms_used: list[str] = Field(description="Defined terms the text uses.")


class Provisions(BaseModel):
    provisions: list[Provision]
    cross_referenced: list[Provision] = Field(
        description="Provisions the requested ones cross-reference (when asked for)."
    )
    definitions: list[Provision] = Field(
        description="Definitions of the terms the requested provisions use (when asked for)."
    )
    not_found: list[str] = Field(description="Requested node ids that do not exist.")


class SearchHit(BaseModel):
    rank: int
    score: float
    document: DocumentRef
    node_id: str
    ref: str
    heading: str
    snippet: str
    flags: list[str]


class SearchResult(BaseModel):
    query: str
    mode: SearchMode
    flags: list[str]
    strategy: str
    hits: list[SearchHit]


class EvaluationRunOut(BaseModel):
    id: int
    name: str
    gold_set: str
    modes: list[str]
    status: Literal["queued", "running", "interrupted", "done", "failed", "cancelled"]
    error: str | None
    stale: bool
    created_at: datetime
    finished_at: datetime | None


class QuestionPage(Paged):
    items: list[QuestionOut]


class LedgerRow(BaseModel):
    id: int
    created_at: datetime
    provider: str
    model: str
    purpose: str
    status: str
    query_id: int | None
    attempts: int
    input_tokens: int
    cache_write_tokens: int
    cache_read_tokens: int
    output_tokens: int
    estimated: bool
    latency_ms: int
    dollars: str


class LedgerTotals(BaseModel):
    calls: int
    input_tokens: int
    cache_write_tokens: int
    cache_read_tokens: int
    output_tokens: int
    token_footprint: int
    dollars: str


class CostLedger(Paged):
    totals: LedgerTotals = Field(description="Over every row the filter matches, not one page.")
    items: list[LedgerRow]


class NavindexOut(BaseModel):
    """A navindex file as structured content (the MCP server's form)."""

    document: DocumentRef
    part: Literal["index", "full"]
    form: Literal["readable", "min"]
    legend: dict[str, str] | None = Field(
        default=None, description="Two-character key -> field name (the min form)."
    )
    content: dict[str, Any]


def _iso_text(value: Any) -> Any:
    """A date in JSON is a "YYYY-MM-DD" string: a number is not read as seconds since 1970."""
    if value is not None and not isinstance(value, str | date):
        raise ValueError("a date is written YYYY-MM-DD")
    return value


class RetentionIn(BaseModel):
    retain_until: Annotated[date | None, BeforeValidator(_iso_text)] = Field(
        description="The day from which the matter is due for purge; null clears it."
    )


class TypedNameIn(BaseModel):
    name: str = Field(
        min_length=1, max_length=200, description="The matter's name, typed to confirm."
    )


class PurgeOut(BaseModel):
    matter_id: int
    status: str
    purged_at: datetime | None
    removed: dict[str, int] = Field(description="What the purge removed, by kind.")
