from __future__ import annotations

import multiprocessing
import os
from typing import Any

from celery import Celery
from celery.signals import worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "legalnav.settings")

app = Celery("legalnav")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_process_init.connect
def _warm_embedder(**kwargs: Any) -> None:
    """Each pool process (and a solo worker) loads the embedding model in the background as it
    starts, so that its first question does not wait for it. Not in the parent before the fork:
    torch's thread pools do not survive a fork."""
    from legalnav.retrieval.embeddings import share_cores
    from legalnav.retrieval.receivers import warm_embedder

    # Each prefork pool process embeds on its share of the cores (one process per core unless
    # --concurrency says otherwise), not on all of them at once; a solo worker keeps them all.
    if multiprocessing.parent_process() is not None:
        share_cores(app.conf.worker_concurrency or os.cpu_count() or 1)
    warm_embedder()
