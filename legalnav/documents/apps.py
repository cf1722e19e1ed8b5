from __future__ import annotations

from django.apps import AppConfig


class DocumentsConfig(AppConfig):
    """A matter's documents: uploaded, parsed into a clause tree (``parsing/``) and indexed, with
    the amendment links between them."""

    name = "legalnav.documents"
    label = "documents"

    def ready(self) -> None:
        # This app's jobs, audit verbs, purge and handover part (see matters/apphooks.py). A
        # purge removes the matter's documents and their files (matters cannot import documents:
        # see the layer contract in pyproject.toml).
        from legalnav.documents.handover import PART
        from legalnav.documents.jobs import SPECS as JOBS
        from legalnav.documents.receivers import purge_matter_documents
        from legalnav.documents.verbs import Verb
        from legalnav.matters.apphooks import hook_app

        hook_app(
            "documents", jobs=JOBS, verbs=Verb.choices, purge=purge_matter_documents, handover=PART
        )
