from __future__ import annotations

import atexit

from django.apps import AppConfig


class RetrievalConfig(AppConfig):
    name = "legalnav.retrieval"
    label = "retrieval"

    def ready(self) -> None:
        from django.core.signals import request_finished

        from legalnav.core.backup import restored
        from legalnav.core.jobs import job_finished
        from legalnav.core.runner import runner_started
        from legalnav.documents.signals import document_deleting, document_indexed
        from legalnav.retrieval import receivers

        # Indexing and deleting a document (documents cannot import retrieval: see the layer
        # contract in pyproject.toml).
        document_indexed.connect(
            receivers.embed_indexed_document, dispatch_uid="legalnav-retrieval-embed"
        )
        document_deleting.connect(
            receivers.unstore_deleted_document, dispatch_uid="legalnav-retrieval-unstore"
        )
        # A restored backup: its vectors go back into this deployment's store.
        restored.connect(receivers.restore_vectors, dispatch_uid="legalnav-retrieval-restore")
        # The index cache writes itself at the end of every unit of work (see receivers.py).
        request_finished.connect(
            receivers.flush_index_cache, dispatch_uid="legalnav-retrieval-flush-request"
        )
        job_finished.connect(
            receivers.flush_index_cache, dispatch_uid="legalnav-retrieval-flush-job"
        )
        atexit.register(receivers.flush_index_cache)
        # The first question should not wait for the embedding model: load it when this process
        # starts running jobs (the Celery pool processes connect the same receiver in
        # legalnav/celery.py).
        runner_started.connect(receivers.warm_embedder, dispatch_uid="legalnav-retrieval-warm")
