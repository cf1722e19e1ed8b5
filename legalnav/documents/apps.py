from __future__ import annotations

from django.apps import AppConfig


class DocumentsConfig(AppConfig):
    name = "legalnav.documents"
    label = "documents"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from legalnav.documents import receivers
        from legalnav.matters.signals import matter_purging

        # A purge removes the matter's documents and their files (matters cannot import
        # documents: see the layer contract in pyproject.toml).
        matter_purging.connect(
            receivers.purge_matter_documents, dispatch_uid="legalnav-documents-purge"
        )
