from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.db import models


class EvaluationRun(models.Model):
    """One run of a gold set through chosen modes: its settings, where it stands, and its
    summary (metrics with intervals, judged comparisons) once computed."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        INTERRUPTED = "interrupted", "Interrupted (resumable)"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    name = models.CharField(max_length=200)
    gold_set = models.CharField(max_length=40)  # cuad, cuad-facts, contractnli, qa, aila
    modes = models.JSONField(default=list)
    k = models.PositiveSmallIntegerField(default=10)
    # What else defines the run: sample sizes, the gold file, the answerer, judge pairs, the
    # price card, the embedding model. A resumed run uses these, not new arguments.
    config = models.JSONField(default=dict)
    status = models.CharField(
        max_length=12, choices=Status.choices, default=Status.RUNNING, db_index=True
    )
    error_message = models.TextField(blank=True)
    attempts = models.PositiveIntegerField(default=0)
    # The job lease (legalnav.core.jobs): who is working on it and until when.
    lease_owner = models.CharField(max_length=200, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="evaluation_runs",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    summary = models.JSONField(default=dict, blank=True)
    output_path = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"#{self.pk} {self.name}"


class EvaluationItem(models.Model):
    """One question of a run in one mode: what was retrieved, the answer when the gold set has
    answers, every metric and judge-free score, and what it cost."""

    run = models.ForeignKey(EvaluationRun, on_delete=models.CASCADE, related_name="items")
    item_id = models.CharField(max_length=400)
    mode = models.CharField(max_length=40)
    question = models.TextField()
    reference = models.TextField(blank=True)
    out_of_scope = models.BooleanField(default=False)
    strategy = models.CharField(max_length=40, blank=True)  # what the mode resolved to
    hits = models.JSONField(default=list)  # [{doc, start, end, score, node}] best first
    metrics = models.JSONField(default=dict)  # {"span": {...}, "node": {...}, "document": {...}}
    answer = models.TextField(blank=True)
    answerer = models.CharField(max_length=60, blank=True)  # "offline" or the model
    citations = models.JSONField(default=dict, blank=True)  # the validation of its citations
    scores = models.JSONField(default=dict, blank=True)  # key facts, must-contain, declination
    payload_chars = models.PositiveIntegerField(default=0)
    payload_tokens = models.PositiveIntegerField(default=0)
    footprint_tokens = models.PositiveIntegerField(default=0)  # every input token attended to
    dollars = models.DecimalField(max_digits=14, decimal_places=8, default=Decimal(0))
    dollars_estimate = models.DecimalField(max_digits=14, decimal_places=8, default=Decimal(0))
    latency_ms = models.FloatField(default=0)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["run_id", "item_id", "mode"]
        constraints = [
            models.UniqueConstraint(fields=["run", "item_id", "mode"], name="evaluation_item_once")
        ]

    def __str__(self) -> str:
        return f"{self.item_id} [{self.mode}]"


class EvaluationVerdict(models.Model):
    """The judge's verdict on one question for a pair of modes, both orders kept."""

    class Outcome(models.TextChoices):
        A = "a", "Mode A preferred"
        B = "b", "Mode B preferred"
        TIE = "tie", "Tie"

    run = models.ForeignKey(EvaluationRun, on_delete=models.CASCADE, related_name="verdicts")
    item_id = models.CharField(max_length=400)
    mode_a = models.CharField(max_length=40)
    mode_b = models.CharField(max_length=40)
    outcome = models.CharField(max_length=4, choices=Outcome.choices)
    reason = models.CharField(max_length=200, blank=True)
    forward = models.JSONField(default=dict)  # A's answer first: verdict, hedge, rationale, cost
    reverse = models.JSONField(default=dict)  # B's answer first
    dollars = models.DecimalField(max_digits=14, decimal_places=8, default=Decimal(0))
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["run_id", "item_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["run", "item_id", "mode_a", "mode_b"], name="evaluation_verdict_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.item_id} {self.mode_a} vs {self.mode_b}: {self.outcome}"
