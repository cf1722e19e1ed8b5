from __future__ import annotations

from django.apps import AppConfig


class ReviewConfig(AppConfig):
    """The review grid: columns of questions over a matter's documents, one typed cell each."""

    name = "legalnav.review"
    label = "review"
    verbose_name = "Review grid"

    def ready(self) -> None:
        # This app's jobs, audit verbs, purge and handover part (see matters/apphooks.py).
        from legalnav.matters.apphooks import hook_app
        from legalnav.review.handover import PART
        from legalnav.review.jobs import SPECS as JOBS
        from legalnav.review.receivers import purge_matter_review
        from legalnav.review.verbs import Verb

        hook_app("review", jobs=JOBS, verbs=Verb.choices, purge=purge_matter_review, handover=PART)

        # A deleted document's cells leave the counts kept on its grids (see receivers.py).
        from django.db.models.signals import pre_delete

        from legalnav.documents.models import Document
        from legalnav.review.receivers import uncount_deleted_document

        pre_delete.connect(
            uncount_deleted_document,
            sender=Document,
            dispatch_uid="legalnav-review-uncount-document",
        )
