from __future__ import annotations

from django.db import models

from legalnav.documents.navindex import FLAG_FIELDS
from legalnav.matters.models import Matter

# The boolean flag columns of Node, in the order of the design's flag list.
NODE_FLAG_COLUMNS: tuple[str, ...] = tuple(column for _, column in FLAG_FIELDS)

# Bumped whenever parsing or enrichment changes its output, so that re-indexing an unchanged
# file is a no-op only while the parser that indexed it is still the current one.
PARSER_VERSION = 1


def document_upload_to(instance: Document, filename: str) -> str:
    return f"documents/{instance.matter_id}/{filename}"


class Document(models.Model):
    class Kind(models.TextChoices):
        AGREEMENT = "agreement", "Agreement"
        AMENDMENT = "amendment", "Amendment"
        SIDE_LETTER = "side_letter", "Side letter"
        SCHEDULE = "schedule", "Schedule"
        DISCLOSURE_SCHEDULE = "disclosure_schedule", "Disclosure schedule"
        JUDGMENT = "judgment", "Judgment"
        OTHER = "other", "Other"

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        INDEXING = "indexing", "Indexing"
        INDEXED = "indexed", "Indexed"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    matter = models.ForeignKey(Matter, on_delete=models.CASCADE, related_name="documents")
    title = models.CharField(max_length=300)
    kind = models.CharField(max_length=30, choices=Kind.choices, default=Kind.AGREEMENT)
    effective_date = models.DateField(null=True, blank=True)
    amends = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="amendments"
    )
    source_file = models.FileField(upload_to=document_upload_to, max_length=500)
    original_filename = models.CharField(max_length=300)
    # Where the file sat in the upload it came from ("Data room/2. Commercial/Supply"): text
    # only, shown and filtered on, never used as a path on disk.
    folder = models.CharField(max_length=500, blank=True, db_index=True)
    sha256 = models.CharField(max_length=64, db_index=True)
    size_bytes = models.BigIntegerField(default=0)
    media_type = models.CharField(max_length=120, blank=True)

    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True
    )
    progress = models.PositiveSmallIntegerField(default=0)  # 0..100
    progress_note = models.CharField(max_length=200, blank=True)
    error_code = models.CharField(max_length=30, blank=True)
    error_message = models.TextField(blank=True)
    attempts = models.PositiveIntegerField(default=0)
    # The job lease (legalnav.core.jobs): who is working on it and until when.
    lease_owner = models.CharField(max_length=200, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)

    # What the last successful indexing run was made from: equal to sha256/PARSER_VERSION means
    # the nodes are current and re-indexing is a no-op.
    indexed_sha256 = models.CharField(max_length=64, blank=True)
    parser_version = models.PositiveIntegerField(default=0)
    # The vector-store collection holding this text's passage vectors ("" until they are stored);
    # retrieval searches the store only when every document of the matter is in it.
    vector_collection = models.CharField(max_length=64, blank=True)
    text = models.TextField(blank=True)  # extracted text; node offsets index into it
    # How the text was read: {"warnings": [...], "ocr": {engine, floor, mean_confidence,
    # low_pages, pages: [{page, confidence, words}]}} (ocr only when OCR read a page).
    extraction = models.JSONField(default=dict, blank=True)
    # What this document says it amends and the document of the matter proposed as that one,
    # for a person to accept (sets ``amends``) or reject: {"reference": {title, date, number,
    # words}, "target": id or None, "words", "reasons", "score", "state": "proposed" |
    # "accepted" | "rejected" | "none"}; {} when it names no other instrument.
    link_proposal = models.JSONField(default=dict, blank=True)
    # Whether indexing may fill in title and kind from the text (the uploader gave none).
    guess_metadata = models.BooleanField(default=False)
    tags = models.JSONField(default=dict, blank=True)  # {"jurisdiction": ..., "topics": [...]}
    node_count = models.PositiveIntegerField(default=0)
    indexed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["matter_id", "effective_date", "id"]
        indexes = [
            # The matter page of a data room, read from the indexes alone (on SQLite a row's
            # columns after its text are reached only by reading through the text): the counts
            # by status with the newest change, the open jobs that may be stale, and the folder
            # counts and the order in which the page's ids are picked.
            models.Index(fields=["matter", "status", "updated_at"], name="document_matter_status"),
            models.Index(
                fields=["matter", "folder", "effective_date"], name="document_matter_folder"
            ),
        ]

    def __str__(self) -> str:
        return self.title

    @property
    def key(self) -> str:
        """The document's id in navindex files and prompts."""
        return f"D{self.pk}"

    @property
    def is_current(self) -> bool:
        return (
            self.status == self.Status.INDEXED
            and self.indexed_sha256 == self.sha256
            and self.parser_version == PARSER_VERSION
        )


class DocumentCopy(models.Model):
    """The same file (byte for byte) uploaded again, from another folder or under another name:
    recorded against the document already in the matter instead of indexed twice."""

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="copies")
    folder = models.CharField(max_length=500, blank=True)
    filename = models.CharField(max_length=300)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("created_at", "id")
        constraints = [
            models.UniqueConstraint(
                fields=("document", "folder", "filename"), name="document_copy_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.folder} / {self.filename}" if self.folder else self.filename


class Node(models.Model):
    """One clause of a document: an article, section, sub-clause, definition, recital, schedule…"""

    class Kind(models.TextChoices):
        PREAMBLE = "preamble", "Preamble"
        TOC = "toc", "Table of contents"
        RECITALS = "recitals", "Recitals"
        RECITAL = "recital", "Recital"
        ARTICLE = "article", "Article"
        SECTION = "section", "Section"
        CLAUSE = "clause", "Clause"
        DEFINITION = "definition", "Definition"
        SIGNATURES = "signatures", "Signature block"
        SCHEDULE = "schedule", "Schedule"
        EXHIBIT = "exhibit", "Exhibit"
        ANNEX = "annex", "Annex"
        APPENDIX = "appendix", "Appendix"
        PARAGRAPH = "paragraph", "Paragraph"

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="nodes")
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="children"
    )
    node_id = models.CharField(max_length=200)  # stable within the document: "s5.17(a)"
    order = models.PositiveIntegerField()  # position in document order
    level = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=20, choices=Kind.choices)
    ref = models.CharField(max_length=120, blank=True)  # as printed: "Section 5.17", "(a)"
    label = models.CharField(max_length=120, blank=True)  # normalised: "5.17", "a", "5"
    scope = models.CharField(max_length=60, blank=True)  # attachment the node sits in, "" = body
    heading = models.CharField(max_length=300, blank=True)
    text = models.TextField()  # verbatim, page furniture and layout line breaks removed
    start = models.PositiveIntegerField()  # offsets into Document.text, end exclusive
    end = models.PositiveIntegerField()
    subtree_end = models.PositiveIntegerField()  # end of the node with all its descendants

    is_definition = models.BooleanField(default=False)
    has_money = models.BooleanField(default=False)
    has_date = models.BooleanField(default=False)
    has_percentage = models.BooleanField(default=False)
    has_liability_limit = models.BooleanField(default=False)
    has_condition = models.BooleanField(default=False)
    has_party = models.BooleanField(default=False)
    is_toc_entry = models.BooleanField(default=False)
    text_length = models.PositiveIntegerField(default=0)

    summary = models.TextField(blank=True)
    keywords = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["document_id", "order"]
        constraints = [
            models.UniqueConstraint(fields=["document", "node_id"], name="node_unique_id"),
        ]
        indexes = [models.Index(fields=["document", "order"])]

    def __str__(self) -> str:
        label = self.ref or self.node_id
        return f"{label} {self.heading}".strip()


class CrossReference(models.Model):
    """A reference in one node's text to another provision, resolved where the target exists."""

    class Kind(models.TextChoices):
        SECTION = "section", "Section"
        ARTICLE = "article", "Article"
        CLAUSE = "clause", "Clause"
        SCHEDULE = "schedule", "Schedule"
        EXHIBIT = "exhibit", "Exhibit"
        ANNEX = "annex", "Annex"
        APPENDIX = "appendix", "Appendix"

    source = models.ForeignKey(Node, on_delete=models.CASCADE, related_name="outgoing_refs")
    target = models.ForeignKey(
        Node, null=True, blank=True, on_delete=models.SET_NULL, related_name="incoming_refs"
    )
    kind = models.CharField(max_length=12, choices=Kind.choices)
    text = models.CharField(max_length=300)  # the referring text, as printed
    target_ref = models.CharField(max_length=120)  # normalised: "5.17(b)", "VII", "A"
    qualifier = models.CharField(max_length=200, blank=True)  # "the Credit Agreement"
    start = models.PositiveIntegerField()  # offsets of the referring text in Document.text
    end = models.PositiveIntegerField()
    # Why a reference stayed unresolved: "missing" (no such provision), "external" (another
    # instrument or a statute), "" when resolved.
    unresolved_reason = models.CharField(max_length=20, blank=True)

    class Meta:
        ordering = ["source_id", "start"]

    def __str__(self) -> str:
        return self.text

    @property
    def is_resolved(self) -> bool:
        return self.target_id is not None


class DefinedTerm(models.Model):
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="defined_terms")
    term = models.CharField(max_length=200)
    defining_node = models.ForeignKey(Node, on_delete=models.CASCADE, related_name="terms_defined")
    used_in = models.ManyToManyField(Node, related_name="terms_used", blank=True)

    class Meta:
        ordering = ["document_id", "term"]
        constraints = [
            models.UniqueConstraint(fields=["document", "term"], name="term_unique_per_document")
        ]

    def __str__(self) -> str:
        return self.term
