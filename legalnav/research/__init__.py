"""Precedent research over a matter of judgments (a matter of kind "research"), in one app.

A question of a research matter is answered here, not by contract answering: ``answers`` hands
it over through ``answers/routing.py``, and indexing a judgment builds its case card through
``documents.signals.document_text_saved`` (both connected in ``apps.py``, ``receivers.py``).

- ``judgments/``: the case card reader, pure functions over a judgment's text (court, date,
  parties and sides, the order and who won, statutes and cases cited with their treatment,
  issues and holdings, paragraphs and parent chunks); ``models.py`` the ``CaseCard`` row;
  ``services.py`` builds, refreshes, links and (with Claude) enriches the cards, ``actions.py``
  what the doors may call of it; ``management/commands/load_judgments.py`` a bulk load;
- ``ranking.py``: the judgment ranker (fused whole-judgment evidence), behind the measurement
  door's unit "document" (``retrieval.engine.rank_documents``) and the search of facts;
- ``pipeline.py``: route, then answer by the route: ``router.py`` (simple, clarify, deep),
  ``reading.py`` (whose side, the proposition), ``simple.py`` (listings from the cards:
  ``listing.py``; lookups), ``deep.py`` (plan, supporting and adverse search, stance, brief;
  ``offline_brief.py`` without a model), with ``context.py`` (the loaded matter, the trace),
  ``search.py`` (hybrid search over the judgments), ``stance.py`` and ``holding.py`` (does a
  judgment support, cut against or not decide the issue), ``validate.py`` (citations and
  verbatim quotes); ``prompts.py`` the prompts of the Claude steps and of the card's enrichment;
  ``management/commands/research.py`` asks from the command line;
- ``gold/``: the hand-labelled questions, routes and stances that ``manage.py research_eval``
  (in the bench app) scores.

The run, its steps and its evidence (``ResearchRun``, ``ResearchStep``, ``ResearchEvidence``)
stay in ``answers.models`` beside the question and answer they belong to, which the answer report
reads for every door. See docs/research.md.
"""
