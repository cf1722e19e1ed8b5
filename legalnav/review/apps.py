from __future__ import annotations

from django.apps import AppConfig


class ReviewConfig(AppConfig):
    """The review grid: columns of questions over a matter's documents, one typed cell each."""

    name = "legalnav.review"
    label = "review"
    default_auto_field = "django.db.models.BigAutoField"
    verbose_name = "Review grid"

    def ready(self) -> None:
        # This app's jobs (see core/jobs/).
        from legalnav.core.jobs import register_job
        from legalnav.review.jobs import SPECS as JOBS

        for spec in JOBS:
            register_job(spec)

        # This app's audit verbs (see matters/audit.py).
        from legalnav.matters.audit import register_verbs
        from legalnav.review.verbs import Verb

        register_verbs(Verb.choices)

        from legalnav.matters.signals import matter_purging
        from legalnav.review import receivers

        # A purge removes this app's part of the matter (see matters/signals.py).
        matter_purging.connect(receivers.purge_matter_review, dispatch_uid="legalnav-review-purge")

        # A deleted document's cells leave the counts kept on its grids (see receivers.py).
        from django.db.models.signals import pre_delete

        from legalnav.documents.models import Document

        pre_delete.connect(
            receivers.uncount_deleted_document,
            sender=Document,
            dispatch_uid="legalnav-review-uncount-document",
        )

        # The handover zip: this app's part (see matters/handover.py).
        from legalnav.matters.handover import register
        from legalnav.review import handover as review_handover

        register(
            "review",
            order=30,
            describes="grids/: each review grid as XLSX (values, citations, review state, playbook deviations)",
        )(review_handover.grids_part)
