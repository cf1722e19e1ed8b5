from __future__ import annotations

from django.apps import AppConfig


class DocumentsConfig(AppConfig):
    name = "legalnav.documents"
    label = "documents"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # This app's jobs, audit verbs, purge and handover part (see matters/apphooks.py). A
        # purge removes the matter's documents and their files (matters cannot import documents:
        # see the layer contract in pyproject.toml).
        from legalnav.documents import handover as documents_handover
        from legalnav.documents import receivers
        from legalnav.documents.jobs import SPECS as JOBS
        from legalnav.documents.verbs import Verb
        from legalnav.matters.apphooks import HandoverPart, hook_app

        hook_app(
            "documents",
            jobs=JOBS,
            verbs=Verb.choices,
            purge=receivers.purge_matter_documents,
            handover=HandoverPart(
                10,
                "documents/: every document in the folder it was uploaded in; documents/index.csv lists them",
                documents_handover.documents_part,
            ),
        )
