from __future__ import annotations

from django.conf import settings
from django.db import models

from legalnav.documents.models import Document, Node
from legalnav.matters.models import Matter


class Query(models.Model):
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

    matter = models.ForeignKey(Matter, on_delete=models.CASCADE, related_name="queries")
    asked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    question = models.TextField()
    mode = models.CharField(max_length=12, choices=Mode.choices, default=Mode.AUTO)
    mode_used = models.CharField(max_length=40, blank=True)  # e.g. "auto:navembed"
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True
    )
    error_message = models.TextField(blank=True)
    attempts = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["matter", "-created_at"])]

    def __str__(self) -> str:
        return self.question[:80]


class Answer(models.Model):
    query = models.OneToOneField(Query, on_delete=models.CASCADE, related_name="answer")
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
    order = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["answer_id", "order"]

    def __str__(self) -> str:
        return f"[{self.doc_key}:{self.node_ref}]"


class Evidence(models.Model):
    """What retrieval put before the answerer, in rank order (the evidence panel)."""

    answer = models.ForeignKey(Answer, on_delete=models.CASCADE, related_name="evidence")
    node = models.ForeignKey(Node, null=True, blank=True, on_delete=models.SET_NULL)
    document = models.ForeignKey(Document, on_delete=models.CASCADE)
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    score = models.FloatField()
    rank = models.PositiveIntegerField()

    class Meta:
        ordering = ["answer_id", "rank"]

    def __str__(self) -> str:
        return f"#{self.rank} {self.document_id}:{self.start}-{self.end}"
