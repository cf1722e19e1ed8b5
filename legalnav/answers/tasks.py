"""Celery task for answering. Thin: it takes an id and calls one service; safe to run twice."""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from legalnav.answers.services import query_answer


@shared_task(
    bind=True,
    autoretry_for=(OperationalError,),
    retry_backoff=2,
    retry_backoff_max=60,
    retry_jitter=True,
    max_retries=5,
    acks_late=True,
)
def answer_query(self, query_id: int) -> dict[str, object]:  # type: ignore[no-untyped-def]
    query = query_answer(query_id=query_id)
    return {"status": query.status if query else "gone"}
