"""What ``ask`` and ``research`` (the research app's command, above this one) share: find the
matter, ask through the answering action (the commands' door) and answer here, or say why not."""

from __future__ import annotations

from django.core.management.base import CommandError

from legalnav.answers import actions
from legalnav.answers.actions import QuestionRejected
from legalnav.answers.models import Question
from legalnav.matters.models import Matter
from legalnav.matters.selectors import matter_named


def matter_or_error(ref: object) -> Matter:
    matter = matter_named(str(ref))
    if matter is None:
        raise CommandError(f"No matter “{ref}”.")
    return matter


def ask_here(*, matter: Matter, question: str, mode: str = "auto") -> Question:
    """The question asked through ``actions.question_ask`` and answered in this process."""
    try:
        query = actions.question_ask(
            matter=matter, user=None, question=question, mode=mode, via="command", here=True
        )
    except QuestionRejected as exc:
        raise CommandError(str(exc)) from exc
    if query.status != Question.Status.ANSWERED:
        raise CommandError(f"The question could not be answered: {query.error_message}")
    return query
