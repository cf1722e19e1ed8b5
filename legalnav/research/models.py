"""Precedent research's own rows: the case card of each judgment.

A research question's run, its steps and its evidence (``ResearchRun``, ``ResearchStep``,
``ResearchEvidence``) are in ``answers.models``, beside the question and the answer they belong
to: the answer report (``answers/report.py``) reads them for every door.
"""

from __future__ import annotations

from django.db import models

from legalnav.documents.models import Document


class CaseCard(models.Model):
    """One judgment at a glance, for document-level questions and for stance: court, date,
    parties, who appealed and who won, the statutes and cases it cites (each case with how it was
    treated and, where it is a judgment of the same matter, a link to it), issues and holdings,
    and the parent chunks (runs of whole paragraphs) that retrieval shows around a hit.

    Built deterministically at indexing time from the text (``research.judgments``, stored by
    ``research.services``); optional Claude enrichment adds to ``enrichment`` without
    overwriting what the text said. The table is still ``documents_casecard``: the model moved
    here from ``documents`` with its rows (migration ``research.0001_initial``)."""

    class Outcome(models.TextChoices):
        ALLOWED = "allowed", "Allowed"
        DISMISSED = "dismissed", "Dismissed"
        PARTLY_ALLOWED = "partly_allowed", "Partly allowed"
        REMANDED = "remanded", "Remanded"
        DISPOSED = "disposed", "Disposed of"
        UNKNOWN = "unknown", "Unknown"

    class Winner(models.TextChoices):
        APPELLANT = "appellant", "Appellant"
        RESPONDENT = "respondent", "Respondent"
        MIXED = "mixed", "Mixed"
        UNKNOWN = "unknown", "Unknown"

    document = models.OneToOneField(Document, on_delete=models.CASCADE, related_name="case_card")
    case_name = models.CharField(max_length=300)
    court = models.CharField(max_length=200, blank=True)
    decided = models.DateField(null=True, blank=True, db_index=True)
    case_number = models.CharField(max_length=200, blank=True)
    neutral_citation = models.CharField(max_length=80, blank=True)
    judges = models.JSONField(default=list, blank=True)
    appellants = models.JSONField(default=list, blank=True)  # appellants, petitioners, applicants
    respondents = models.JSONField(default=list, blank=True)
    appellant_role = models.CharField(max_length=20, blank=True)  # "state" | "private"
    respondent_role = models.CharField(max_length=20, blank=True)
    # What the judgment calls each side ("accused", "tenant", "workman", "bank" …).
    appellant_label = models.CharField(max_length=20, blank=True)
    respondent_label = models.CharField(max_length=20, blank=True)
    proceeding = models.CharField(max_length=60, blank=True)  # "criminal appeal", "writ petition"
    criminal = models.BooleanField(default=False)
    outcome = models.CharField(
        max_length=20, choices=Outcome.choices, default=Outcome.UNKNOWN, db_index=True
    )
    outcome_text = models.CharField(max_length=300, blank=True)  # the closing words, verbatim
    outcome_paragraph = models.PositiveIntegerField(default=0)
    winner = models.CharField(max_length=12, choices=Winner.choices, default=Winner.UNKNOWN)
    judicial_treatment = models.CharField(max_length=80, blank=True)  # as flagged by the report
    statutes = models.JSONField(default=list, blank=True)  # [{name, sections, paragraphs}]
    # [{name, citation, treatment, cue, paragraphs, sentence, document_id}]
    cases_cited = models.JSONField(default=list, blank=True)
    issues = models.JSONField(default=list, blank=True)  # [{text, paragraph, start, end}]
    holdings = models.JSONField(default=list, blank=True)
    paragraph_count = models.PositiveIntegerField(default=0)
    # What the text calls each side in plain words ({"appellant": ["mother"], …}): see
    # judgments.described.
    described = models.JSONField(default=dict, blank=True)
    parents = models.JSONField(default=list, blank=True)  # [{id, start, end, first, last, heading}]
    enrichment = models.JSONField(default=dict, blank=True)  # Claude's additions, with quotes
    text_sha256 = models.CharField(max_length=64, blank=True)  # the text the card was built from
    # Which version of the card reader built it (services.CARD_READER_VERSION); an older one is
    # re-read by case_cards_refresh (load_judgments runs it), without re-indexing the judgment.
    reader_version = models.PositiveSmallIntegerField(default=0)
    # The card reader version that failed to re-read this card's judgment (0: none did). The
    # card keeps the older reader's reading, and that reader version does not try it again at
    # every research question; a newer one does.
    failed_reader_version = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "documents_casecard"
        ordering = ["decided", "id"]

    def __str__(self) -> str:
        return self.case_name
