from __future__ import annotations

from django.apps import AppConfig


class DocumentsConfig(AppConfig):
    name = "legalnav.documents"
    label = "documents"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # This app's jobs (see core/jobs/).
        from legalnav.core.jobs import register_job
        from legalnav.documents.jobs import SPECS as JOBS

        for spec in JOBS:
            register_job(spec)

        # This app's audit verbs (see matters/audit.py).
        from legalnav.documents.verbs import Verb
        from legalnav.matters.audit import register_verbs

        register_verbs(Verb.choices)

        from legalnav.documents import receivers
        from legalnav.matters.signals import matter_purging

        # A purge removes the matter's documents and their files (matters cannot import
        # documents: see the layer contract in pyproject.toml).
        matter_purging.connect(
            receivers.purge_matter_documents, dispatch_uid="legalnav-documents-purge"
        )

        # The handover zip: this app's part (see matters/handover.py).
        from legalnav.documents import handover as documents_handover
        from legalnav.matters.handover import register

        register(
            "documents",
            order=10,
            describes="documents/: every document in the folder it was uploaded in; documents/index.csv lists them",
        )(documents_handover.documents_part)
