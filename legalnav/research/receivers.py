"""Research's part in what happens elsewhere, connected in ``ResearchConfig.ready()``.

- A question of a research matter is answered (``answers.routing``, from the question's job):
  routed precedent research (``pipeline.research_answer``).
- A document's text was saved while indexing it (``documents.signals.document_text_saved``):
  build its case card when it is a judgment (``services.case_card_build``, which never fails
  indexing on a reading error).
- Judgments are ranked as documents (``retrieval.engine.rank_documents``: the measurement door's
  unit "document", evaluation runs, benchmarks): the judgment ranker (``ranking.py``).

Nothing heavy is imported here: every process loads this module at start-up, and what the
receivers call comes in once there is work for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from legalnav.answers.models import Question
    from legalnav.core.jobs import Lease
    from legalnav.documents.models import Document
    from legalnav.retrieval.engine import Corpus, Retrieval


def answer_research_question(*, query: Question, lease: Lease) -> None:
    from legalnav.research.pipeline import research_answer

    research_answer(query=query, lease=lease)


def build_case_card(sender: Any, *, document: Document, **kwargs: Any) -> None:
    from legalnav.research.services import case_card_build

    case_card_build(document=document)


def rank_judgments(corpus: Corpus, question: str, k: int, strategy: str) -> Retrieval:
    from legalnav.research.ranking import rank_for_strategy

    return rank_for_strategy(corpus, question, k, strategy)
