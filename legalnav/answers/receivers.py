"""The answers app's part in what happens elsewhere, connected in ``AnswersConfig.ready()``.

- A matter is purged (``matters.signals.matter_purging``): delete its questions, and with them
  their answers, citations and the snapshots of the cited text, the evidence shown, and research
  runs with their steps and stances.
"""

from __future__ import annotations

from typing import Any


def purge_matter_answers(sender: Any, *, matter: Any, **kwargs: Any) -> dict[str, int]:
    from legalnav.answers.models import Question

    questions = Question.objects.filter(matter=matter)
    count = questions.count()
    questions.delete()  # answers, citations, evidence and research runs cascade with them
    return {"questions": count}
