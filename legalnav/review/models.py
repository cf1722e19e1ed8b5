"""The review grid: a matter's documents down the side, questions across the top, one typed cell
where they meet, each with its quotation checked verbatim like every answer's citations.

Filling a grid is a job (``legalnav.core.jobs``, kind "grid"): the ``Grid`` row carries the
status and lease; cells are written a document at a time, so a cancelled or crashed run keeps
what it finished and a resume fills only the cells still missing. A reviewer's verdict on a cell
(confirmed, or corrected with their own value) is never overwritten by a later run.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from legalnav.documents.models import Document, Node
from legalnav.matters.models import Matter
from legalnav.review.columns import ANSWER_TYPES

TYPE_CHOICES = [(t, t.replace("_", "/")) for t in ANSWER_TYPES]
# The "low confidence" filter: found cells below this. Each grid keeps its count of them
# (``Grid.n_low``), so a change of it needs every grid recounted (``services.grid_recount``).
LOW_CONFIDENCE = 0.5
# The same mark in a query: found, and the value's own confidence (else the quotation's) below it.
LOW_CELLS = Q(found=True) & (
    Q(value_confidence__isnull=True, confidence__lt=LOW_CONFIDENCE)
    | Q(value_confidence__lt=LOW_CONFIDENCE)
)

# The counts above a grid's table (``selectors.grid_counts``), each kept in a field of the grid
# as its cells are written, reviewed and removed (``services``): key -> ``Grid`` field.
GRID_COUNTS = {
    "filled": "cells_done",
    "found": "n_found",
    "not_found": "n_not_found",
    "low": "n_low",
    "reviewed": "n_reviewed",
}


class Grid(models.Model):
    class Mode(models.TextChoices):
        OFFLINE = "offline", "Offline (no language model)"
        CLAUDE = "claude", "Claude"

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Filling"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    matter = models.ForeignKey(Matter, on_delete=models.CASCADE, related_name="grids")
    title = models.CharField(max_length=200)
    mode = models.CharField(max_length=10, choices=Mode.choices, default=Mode.OFFLINE)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    documents = models.ManyToManyField(Document, through="GridDocument", related_name="+")
    # The job (legalnav.core.jobs): status, lease, attempts, the reason it failed.
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True
    )
    error_code = models.CharField(max_length=30, blank=True)
    error_message = models.TextField(blank=True)
    attempts = models.PositiveIntegerField(default=0)
    lease_owner = models.CharField(max_length=200, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    # Progress: cells written so far of documents x columns (reviewed cells count as written).
    cells_total = models.PositiveIntegerField(default=0)
    cells_done = models.PositiveIntegerField(default=0)
    # Of the cells written (``GRID_COUNTS``): found, not found, found with low confidence,
    # reviewed. Kept as the grid fills, so that a poll of a data room's grid reads one row
    # instead of counting its cells; recounted from the cells when it finishes filling.
    n_found = models.PositiveIntegerField(default=0)
    n_not_found = models.PositiveIntegerField(default=0)
    n_low = models.PositiveIntegerField(default=0)
    n_reviewed = models.PositiveIntegerField(default=0)
    # What the run left out and why ("D4 is being re-indexed"), shown beside a finished grid.
    note = models.TextField(blank=True)
    # The cost estimated before it started (services.grid_estimate), by mode.
    estimate = models.JSONField(default=dict, blank=True)
    # What its language-model calls have cost so far (the ledger's rows, purpose "grid").
    llm_calls = models.PositiveIntegerField(default=0)
    dollars = models.DecimalField(max_digits=14, decimal_places=8, default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # When the current run began and the cells it found written: the pace it fills at since,
    # for the time left (``eta_seconds``).
    started_at = models.DateTimeField(null=True, blank=True)
    started_cells = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["matter", "-created_at"])]

    def __str__(self) -> str:
        return f"G{self.pk} {self.title}"

    @property
    def percent(self) -> int:
        if not self.cells_total:
            return 100 if self.status == self.Status.DONE else 0
        return min(100, round(100 * self.cells_done / self.cells_total))

    @property
    def eta_seconds(self) -> int | None:
        """The time left at the pace of the current run, once it has filled a few cells for a
        few seconds; None before that, and once the grid is not filling."""
        if self.status != self.Status.RUNNING or self.started_at is None:
            return None
        filled = self.cells_done - self.started_cells
        elapsed = (timezone.now() - self.started_at).total_seconds()
        if filled < 1 or elapsed < 3:
            return None
        return max(0, round(elapsed / filled * max(0, self.cells_total - self.cells_done)))


class GridChunk(models.Model):
    """A run of a grid's rows filled as one job of its own (``services.grid_chunk_job``), so
    that a large grid's filling is spread over every worker and a killed worker loses only its
    lease on one chunk: the sweeper sends that chunk again, and the cells already written stay.
    Rows are positions ``first`` <= position < ``last``."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Filling"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    grid = models.ForeignKey(Grid, on_delete=models.CASCADE, related_name="chunks")
    first = models.PositiveIntegerField()
    last = models.PositiveIntegerField()
    columns = models.PositiveIntegerField(default=0)  # the grid's columns when it was planned
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True
    )
    error_code = models.CharField(max_length=30, blank=True)
    error_message = models.TextField(blank=True)
    attempts = models.PositiveIntegerField(default=0)
    lease_owner = models.CharField(max_length=200, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    note = models.TextField(blank=True)  # documents it could not fill, and why
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["grid_id", "first"]
        indexes = [models.Index(fields=["grid", "status"])]

    def __str__(self) -> str:
        return f"G{self.grid_id} rows {self.first}-{self.last - 1}"


class GridDocument(models.Model):
    """A row of the grid: a document, in the order the grid shows it."""

    grid = models.ForeignKey(Grid, on_delete=models.CASCADE, related_name="rows")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    position = models.PositiveIntegerField()

    class Meta:
        ordering = ["grid_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["grid", "document"], name="grid_document_unique")
        ]

    def __str__(self) -> str:
        return f"G{self.grid_id} row {self.position}: {self.document_id}"


class GridColumn(models.Model):
    """A column of the grid: a question and the type its answer takes. A key that names a CUAD
    preset column brings that column's description and drafting cues to the filler."""

    grid = models.ForeignKey(Grid, on_delete=models.CASCADE, related_name="columns")
    position = models.PositiveIntegerField()
    key = models.CharField(max_length=120)
    question = models.TextField()
    type = models.CharField(max_length=10, choices=TYPE_CHOICES)

    class Meta:
        ordering = ["grid_id", "position"]
        constraints = [models.UniqueConstraint(fields=["grid", "key"], name="grid_column_key")]

    def __str__(self) -> str:
        return self.key


class Cell(models.Model):
    """One document's answer to one column: the typed value, the quotation(s) it came from with
    their citations and verdicts, a confidence, or "not found" with what was searched."""

    class Status(models.TextChoices):
        FOUND = "found", "Found"
        NOT_FOUND = "not_found", "Not found"

    class Review(models.TextChoices):
        NONE = "none", "Not reviewed"
        CONFIRMED = "confirmed", "Confirmed"
        CORRECTED = "corrected", "Corrected"

    grid = models.ForeignKey(Grid, on_delete=models.CASCADE, related_name="cells")
    column = models.ForeignKey(GridColumn, on_delete=models.CASCADE, related_name="cells")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=10, choices=Status.choices)
    value = models.TextField(blank=True)
    typed = models.JSONField(null=True, blank=True)  # the extractor's value, as JSON
    confidence = models.FloatField(default=0.0)  # the quotation's: is this such a provision?
    # The value's own, where it is known apart from the quotation's (``fill.Cell``): a yes/no
    # cell decided by its column's document model has P(Yes) for a Yes, P(No) for a No.
    value_confidence = models.FloatField(null=True, blank=True)
    found = models.BooleanField(default=False)
    searched = models.TextField(blank=True)  # what was looked for (shown with "not found")
    # How the value was read, shown in the cell's panel: "2010-04-15 + 4 years = 2014-04-15",
    # "Yes: the quoted provision reads as Non-Compete", "No: ... not clearly ...".
    reason = models.TextField(blank=True)
    # The first quotation, its provision and citation ("[D3:s9.10]") and the check's verdict
    # (legalnav.answers.citations: verified | quote_not_found | no_such_provision).
    spans = models.JSONField(default=list, blank=True)  # [[start, end], ...] into Document.text
    quotation = models.TextField(blank=True)
    node = models.ForeignKey(Node, null=True, blank=True, on_delete=models.SET_NULL)
    node_ref = models.CharField(max_length=200, blank=True)
    citation = models.CharField(max_length=220, blank=True)
    verdict = models.CharField(max_length=20, blank=True)
    # Every quotation: [{"start", "end", "text", "node_id", "citation", "verdict"}].
    quotes = models.JSONField(default=list, blank=True)
    # The first quotation's provision as it was when the cell was filled
    # (legalnav.answers.snapshots.build): the panel shows it even after a re-index.
    snapshot = models.JSONField(default=dict, blank=True)
    # The reviewer's verdict. A reviewed cell is kept as it is by every later run.
    reviewed_status = models.CharField(
        max_length=10, choices=Review.choices, default=Review.NONE, db_index=True
    )
    corrected_value = models.TextField(blank=True)
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reviewed_at = models.DateTimeField(null=True, blank=True)
    filled_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["grid_id", "document_id", "column_id"]
        constraints = [
            models.UniqueConstraint(fields=["grid", "column", "document"], name="grid_cell_unique")
        ]

    def __str__(self) -> str:
        return f"{self.document_id}/{self.column_id}: {self.value[:40]}"

    @property
    def shown_value(self) -> str:
        """What the grid shows: the reviewer's correction, else the filler's value."""
        if self.reviewed_status == self.Review.CORRECTED:
            return self.corrected_value
        if self.found or self.value:
            return self.value  # a value read with no quotation: a yes/no column's "No"
        return "not found"

    @property
    def reviewed(self) -> bool:
        return self.reviewed_status != self.Review.NONE

    @property
    def certainty(self) -> float:
        """How sure the cell's value is: its value's own confidence where it has one, else the
        quotation's. The grid shows it and the low-confidence mark reads it."""
        return self.confidence if self.value_confidence is None else self.value_confidence

    @property
    def has_certainty(self) -> bool:
        """Whether the filler's value carries a confidence to show: a quoted value, or a value
        read with nothing near enough to quote (a yes/no column's "No") that has its own."""
        return self.found or self.value_confidence is not None

    @property
    def low_confidence(self) -> bool:
        return self.found and self.certainty < LOW_CONFIDENCE


class SavedColumn(models.Model):
    """A user's own column, kept in a matter for the next grid: a question and an answer type."""

    matter = models.ForeignKey(Matter, on_delete=models.CASCADE, related_name="saved_columns")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    key = models.CharField(max_length=120)
    question = models.TextField()
    type = models.CharField(max_length=10, choices=TYPE_CHOICES)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["matter_id", "key"]
        constraints = [
            models.UniqueConstraint(
                fields=["matter", "created_by", "key"], name="saved_column_unique"
            )
        ]

    def __str__(self) -> str:
        return self.key


# --- playbooks: the firm's positions, and a matter's documents judged against them --------------


class Playbook(models.Model):
    """A firm's named list of positions, each on a grid column with a rule (review/rules.py), a
    severity and the firm's note. It belongs to the firm, not to a matter: staff write it, any
    matter may apply it. Every save is a new version (``PlaybookVersion``); a run keeps the
    version it ran with."""

    name = models.CharField(max_length=200, unique=True)
    description = models.TextField(blank=True)
    version = models.PositiveIntegerField(default=1)
    # The current version's positions: [{"key", "question", "type", "rule", "severity", "note"}].
    positions = models.JSONField(default=list)
    archived = models.BooleanField(default=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.name} v{self.version}"


class PlaybookVersion(models.Model):
    """A playbook as it stood when saved: what a run applied can always be read back."""

    playbook = models.ForeignKey(Playbook, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    name = models.CharField(max_length=200)
    positions = models.JSONField(default=list)
    saved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    saved_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["playbook_id", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["playbook", "number"], name="playbook_version_unique")
        ]

    def __str__(self) -> str:
        return f"{self.name} v{self.number}"


class PlaybookRun(models.Model):
    """A playbook applied to documents of a matter: the grid that reads their values, the
    version applied, and one ``Verdict`` per (document, position), re-decided as cells fill and
    as reviewers correct them."""

    matter = models.ForeignKey(Matter, on_delete=models.CASCADE, related_name="playbook_runs")
    playbook = models.ForeignKey(
        Playbook, null=True, blank=True, on_delete=models.SET_NULL, related_name="runs"
    )
    version = models.ForeignKey(PlaybookVersion, on_delete=models.PROTECT, related_name="runs")
    grid = models.ForeignKey(Grid, on_delete=models.CASCADE, related_name="playbook_runs")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # A digest of what the verdicts were decided from (the grid's cells and their reviews, the
    # documents' amendment links: playbooks.grid_state), so a read knows whether they are
    # current without deciding them again.
    decided_state = models.CharField(max_length=64, blank=True)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["matter", "-created_at"])]

    def __str__(self) -> str:
        return f"P{self.pk} {self.version}"

    @property
    def positions(self) -> list[dict]:  # type: ignore[type-arg]
        return list(self.version.positions)


class Verdict(models.Model):
    """One document against one position of a run: meets, deviates, missing or needs review,
    why, and the cell (value and verbatim quotation) it rests on. For an agreement that an
    amendment in the grid changes, the amendment's cell is the one read (``amended_by``)."""

    class Value(models.TextChoices):
        MEETS = "meets", "Meets"
        DEVIATES = "deviates", "Deviates"
        MISSING = "missing", "Missing"
        REVIEW = "review", "Needs review"

    SEVERITY_ORDER = {"high": 0, "medium": 1, "low": 2}

    run = models.ForeignKey(PlaybookRun, on_delete=models.CASCADE, related_name="verdicts")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    position = models.PositiveIntegerField()  # index into the version's positions
    key = models.CharField(max_length=120)
    severity = models.CharField(max_length=10)
    severity_rank = models.PositiveSmallIntegerField(default=1)
    verdict = models.CharField(max_length=10, choices=Value.choices)
    reason = models.TextField(blank=True)
    cell = models.ForeignKey(
        Cell, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    amended_by = models.ForeignKey(
        Document, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    value = models.TextField(blank=True)
    quotation = models.TextField(blank=True)
    citation = models.CharField(max_length=220, blank=True)
    decided_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["run_id", "severity_rank", "document_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["run", "document", "position"], name="verdict_unique")
        ]
        indexes = [models.Index(fields=["run", "verdict", "severity_rank"])]

    def __str__(self) -> str:
        return f"{self.document_id}/{self.key}: {self.verdict}"
