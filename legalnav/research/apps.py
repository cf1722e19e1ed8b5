from __future__ import annotations

from django.apps import AppConfig


class ResearchConfig(AppConfig):
    """Precedent research over a matter of judgments: case cards, routing, whose side, stance,
    the judgment ranker and the research brief (see ``legalnav/research/__init__.py``)."""

    name = "legalnav.research"
    label = "research"
    verbose_name = "Precedent research"

    def ready(self) -> None:
        # research sits above answers, retrieval and documents in the layer contract
        # (pyproject.toml): they name none of it, and it hooks itself in here.
        from legalnav.answers.routing import register_answerer
        from legalnav.documents.signals import document_text_saved
        from legalnav.matters.models import Matter
        from legalnav.research import receivers
        from legalnav.retrieval.engine import register_judgment_ranker

        # The questions of a research matter are answered by routed precedent research.
        register_answerer(Matter.Kind.RESEARCH, receivers.answer_research_question)
        # Indexing a judgment builds its case card.
        document_text_saved.connect(
            receivers.build_case_card, dispatch_uid="legalnav-research-case-card"
        )
        # rank_documents (the measurement door's unit "document", evaluation, bench) ranks
        # judgments with the judgment ranker.
        register_judgment_ranker(receivers.rank_judgments)
