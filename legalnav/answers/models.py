from __future__ import annotations

from django.conf import settings
from django.db import models

from legalnav.documents.models import Document, Node
from legalnav.matters.models import Matter


class Question(models.Model):
    """A question asked of a matter, in a retrieval mode, and where it stands."""

    class Mode(models.TextChoices):
        AUTO = "auto", "Auto (cheapest that holds quality)"
        INJECT = "inject", "Inject (whole matter)"
        NAVEMBED = "navembed", "Navembed (hybrid search)"
        NAVINDEX = "navindex", "Navindex (planner over the index)"

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Answering"
        ANSWERED = "answered", "Answered"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    matter = models.ForeignKey(Matter, on_delete=models.CASCADE, related_name="questions")
    asked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    question = models.TextField()
    mode = models.CharField(max_length=12, choices=Mode.choices, default=Mode.AUTO)
    mode_used = models.CharField(max_length=40, blank=True)  # e.g. "auto:navembed"
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True
    )
    error_code = models.CharField(max_length=30, blank=True)
    error_message = models.TextField(blank=True)
    attempts = models.PositiveIntegerField(default=0)
    # The job lease (legalnav.core.jobs): who is working on it and until when.
    lease_owner = models.CharField(max_length=200, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["matter", "-created_at"])]

    def __str__(self) -> str:
        return self.question[:80]


class Answer(models.Model):
    question = models.OneToOneField(Question, on_delete=models.CASCADE, related_name="answer")
    text = models.TextField()
    answerer = models.CharField(max_length=40)  # "offline" or the model that answered
    validation = models.JSONField(default=dict)  # {"ok": bool, "problems": [...], ...}
    payload_chars = models.PositiveIntegerField(default=0)  # text put before the answering model
    context_tokens = models.PositiveIntegerField(default=0)  # answering-context size
    token_footprint = models.PositiveIntegerField(default=0)  # every input token attended to
    dollars = models.DecimalField(max_digits=14, decimal_places=8, default=0)
    inject_tokens = models.PositiveIntegerField(default=0)  # the whole matter as context
    inject_dollars = models.DecimalField(max_digits=14, decimal_places=8, default=0)
    crossover = models.JSONField(default=dict)  # the crossover verdict for this matter
    # Where retrieval looked, when the question named documents: {"documents": [{"key",
    # "title"}], "named": [keys], "by": "key" | "name" | "title"}; empty when it searched the whole matter.
    scope = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.text[:80]


class Citation(models.Model):
    """A provision an answer relies on, with the quote it took from it and whether that held."""

    answer = models.ForeignKey(Answer, on_delete=models.CASCADE, related_name="citations")
    document = models.ForeignKey(Document, null=True, blank=True, on_delete=models.SET_NULL)
    node = models.ForeignKey(Node, null=True, blank=True, on_delete=models.SET_NULL)
    doc_key = models.CharField(max_length=20)
    node_ref = models.CharField(max_length=200)  # the node id or clause as cited
    quote = models.TextField(blank=True)
    valid = models.BooleanField(default=True)
    problem = models.CharField(max_length=200, blank=True)
    # verified | unquoted | quote_not_found | no_such_provision (legalnav.answers.citations)
    verdict = models.CharField(max_length=20, blank=True)
    marker_start = models.IntegerField(null=True, blank=True)  # the marker's offset in the answer
    order = models.PositiveIntegerField(default=0)
    # What was cited, as it was when the answer was checked, so that re-indexing, editing or
    # deleting the document never changes a past answer, its panel or its memo: the text the
    # quotation was checked against, its hash, the document version and the provision's lines
    # (see legalnav.answers.snapshots).
    cited_text = models.TextField(blank=True)
    cited_sha256 = models.CharField(max_length=64, blank=True)
    snapshot = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["answer_id", "order"]

    def __str__(self) -> str:
        return f"[{self.doc_key}:{self.node_ref}]"


class Evidence(models.Model):
    """What retrieval put before the answerer, in rank order (the evidence panel)."""

    answer = models.ForeignKey(Answer, on_delete=models.CASCADE, related_name="evidence")
    node = models.ForeignKey(Node, null=True, blank=True, on_delete=models.SET_NULL)
    # Kept when the document is deleted: the passage below is what the answerer saw.
    document = models.ForeignKey(Document, null=True, blank=True, on_delete=models.SET_NULL)
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    score = models.FloatField()
    rank = models.PositiveIntegerField()
    doc_key = models.CharField(max_length=20, blank=True)
    doc_title = models.CharField(max_length=300, blank=True)
    node_ref = models.CharField(max_length=200, blank=True)
    text = models.TextField(blank=True)  # the passage as it was (a snippet of it)

    class Meta:
        ordering = ["answer_id", "rank"]

    def __str__(self) -> str:
        return f"#{self.rank} {self.document_id}:{self.start}-{self.end}"


# --- precedent research (matters of kind "research") ----------------------------------------


class ResearchRun(models.Model):
    """How a research question was handled: its route (and why), the proposition and the side
    the user argues, and the totals of its visible trace (``ResearchStep`` rows)."""

    class Route(models.TextChoices):
        SIMPLE = "simple", "Simple (a lookup)"
        CLARIFY = "clarify", "Clarify (ask back)"
        DEEP = "deep", "Deep (a research brief)"

    question = models.OneToOneField(Question, on_delete=models.CASCADE, related_name="research")
    route = models.CharField(max_length=10, choices=Route.choices)
    route_reason = models.TextField(blank=True)
    routed_by = models.CharField(max_length=100, blank=True)  # "rules" or the model
    answer_kind = models.CharField(max_length=20, blank=True)  # listing | lookup | brief | clarify
    options = models.JSONField(default=list, blank=True)  # clarify: concrete options offered
    proposition = models.TextField(blank=True)  # what the user wants supported
    side = models.CharField(max_length=40, blank=True)  # "accused", "state", "appellant" …
    # Citations and quotes the validator removed from the answer, with the reason for each.
    removed = models.JSONField(default=list, blank=True)
    total_ms = models.PositiveIntegerField(default=0)
    dollars = models.DecimalField(max_digits=14, decimal_places=8, default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.route}: {self.question}"


class ResearchStep(models.Model):
    """One step of a research run (route, plan, expand, supporting search, adverse search,
    select, analyse, synthesise, validate; or listing, retrieve, answer for a lookup), with what
    went in, what came out, how long it took and what its LLM calls cost."""

    class Status(models.TextChoices):
        OK = "ok", "OK"
        FALLBACK = "fallback", "Fell back to the offline path"
        SKIPPED = "skipped", "Skipped"
        ERROR = "error", "Error"

    run = models.ForeignKey(ResearchRun, on_delete=models.CASCADE, related_name="steps")
    order = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=30)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OK)
    inputs = models.JSONField(default=dict, blank=True)
    outputs = models.JSONField(default=dict, blank=True)
    note = models.TextField(blank=True)
    ms = models.PositiveIntegerField(default=0)
    llm_calls = models.JSONField(default=list, blank=True)  # LLMCall ids made in this step
    input_tokens = models.PositiveIntegerField(default=0)
    output_tokens = models.PositiveIntegerField(default=0)
    dollars = models.DecimalField(max_digits=14, decimal_places=8, default=0)

    class Meta:
        ordering = ["run_id", "order"]
        constraints = [
            models.UniqueConstraint(fields=["run", "order"], name="research_step_unique_order")
        ]

    def __str__(self) -> str:
        return f"{self.order}. {self.name}"


class ResearchEvidence(models.Model):
    """A passage of a judgment put before the answer, in its bucket relative to the user's
    proposition, with the parent chunk around it and why it sits in that bucket."""

    class Bucket(models.TextChoices):
        SUPPORTING = "supporting", "Supporting"
        ADVERSE = "adverse", "Adverse"
        NEUTRAL = "neutral", "Neutral"

    run = models.ForeignKey(ResearchRun, on_delete=models.CASCADE, related_name="evidence")
    bucket = models.CharField(max_length=12, choices=Bucket.choices)
    rank = models.PositiveIntegerField()  # order within the bucket
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    node = models.ForeignKey(
        Node, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    start = models.PositiveIntegerField()  # the child chunk (retrieval passage)
    end = models.PositiveIntegerField()
    parent_start = models.PositiveIntegerField()  # the parent chunk around it
    parent_end = models.PositiveIntegerField()
    parent_label = models.CharField(max_length=40, blank=True)  # "¶¶12–15"
    score = models.FloatField(default=0)
    found_by = models.CharField(max_length=20, blank=True)  # support | adverse | both | listing
    stance_source = models.CharField(max_length=20, blank=True)  # outcome | treatment | claude
    reason = models.TextField(blank=True)
    quote = models.TextField(blank=True)  # the words the stance rests on, verbatim

    class Meta:
        ordering = ["run_id", "bucket", "rank"]

    def __str__(self) -> str:
        return f"{self.bucket} #{self.rank} D{self.document_id}:{self.start}-{self.end}"
