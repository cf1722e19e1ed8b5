"""Who answers a question, by the kind of its matter, where that is not contract answering.

``answers`` answers the questions of a contract matter itself (``services._answer_claimed``). A
higher app that answers the questions of another kind of matter registers its answerer here in
its ``AppConfig.ready()``: ``legalnav.research`` answers those of a research matter (a matter of
judgments) with its routed precedent research. ``answers`` sits below it in the layer contract
(pyproject.toml) and cannot import it.

An answerer is called inside the question's job, with the claimed ``query`` and its ``lease``,
and does everything the job does for that question: it ends the job answered or failed. The
answer report (``report.py``) reads what it stores in ``answers.models``; how its clarify options
that ask for the side open is agreed here (``SIDE_CHOICE_OPENING``).
"""

from __future__ import annotations

from collections.abc import Callable

Answerer = Callable[..., None]  # answerer(*, query: Question, lease: jobs.Lease) -> None

_ANSWERERS: dict[str, Answerer] = {}

# How a clarify option that asks for the side opens ("I act for the accused. <the question>"):
# research's router writes its options so (``ResearchRun.options``), and the answer report reads
# a run whose options all open so as one that asks for the side.
SIDE_CHOICE_OPENING = "I act for the"


def register_answerer(kind: str, answerer: Answerer) -> None:
    """Answer the questions of matters of ``kind`` (a ``Matter.Kind`` value) with ``answerer``."""
    _ANSWERERS[str(kind)] = answerer


def answerer_for(kind: str) -> Answerer | None:
    """The answerer registered for matters of ``kind``; None for contract answering."""
    return _ANSWERERS.get(str(kind))
