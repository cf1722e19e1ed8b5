from __future__ import annotations

from django.apps import AppConfig


class ReviewConfig(AppConfig):
    """The review grid: columns of questions over a matter's documents, one typed cell each."""

    name = "legalnav.review"
    label = "review"
    default_auto_field = "django.db.models.BigAutoField"
    verbose_name = "Review grid"

    def ready(self) -> None:
        # This app's jobs, audit verbs, purge and handover part (see matters/apphooks.py).
        from legalnav.matters.apphooks import HandoverPart, hook_app
        from legalnav.review import handover as review_handover
        from legalnav.review import receivers
        from legalnav.review.jobs import SPECS as JOBS
        from legalnav.review.verbs import Verb

        hook_app(
            "review",
            jobs=JOBS,
            verbs=Verb.choices,
            purge=receivers.purge_matter_review,
            handover=HandoverPart(
                30,
                "grids/: each review grid as XLSX (values, citations, review state, playbook deviations)",
                review_handover.grids_part,
            ),
        )

        # A deleted document's cells leave the counts kept on its grids (see receivers.py).
        from django.db.models.signals import pre_delete

        from legalnav.documents.models import Document

        pre_delete.connect(
            receivers.uncount_deleted_document,
            sender=Document,
            dispatch_uid="legalnav-review-uncount-document",
        )
