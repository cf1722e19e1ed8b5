"""Research over a matter of real judgments (a slice of AILA 2019, read from ../shared/data):
the three routes through ``query_answer``, the trace, the buckets, listing by metadata, and the
Claude path through the replay server, with validation removing what is invented."""

from __future__ import annotations

import json
import re

import pytest
from django.core.management import call_command

from legalnav.answers.models import Citation, Evidence, Question, ResearchEvidence, ResearchRun
from legalnav.answers.services import query_answer, query_create
from legalnav.documents.models import Document, Node
from legalnav.llm.models import LLMCall
from legalnav.llm.tokens import count_tokens
from legalnav.research.context import MAX_PER_DOC
from legalnav.research.listing import phrase_regex
from legalnav.research.models import CaseCard
from tests.llm.replay import Reply, message
from tests.research.conftest import add_judgments

# Dying declarations: Gopal (accused's appeal allowed) and Parveen Kumar (State's appeal
# dismissed) went the accused's way; Varikuppal Srinivas (accused's appeal dismissed) and
# Parmendra Singh (State's appeal allowed) went against; Laxman (a Constitution Bench
# reference) has no winner. Bhailal Bhai (sales tax) is off the issue.
SLICE = ["C1252", "C1193", "C1932", "C1010", "C51", "C2215"]
BRIEF = (
    "My client, the accused, was convicted of murder on the strength of a dying declaration. "
    "Find precedents supporting an argument that the conviction cannot rest on the dying "
    "declaration alone, and the authorities against us."
)
DEEP_STEPS = [
    "load",
    "route",
    "plan",
    "expand",
    "support_search",
    "adverse_search",
    "select",
    "analyse",
    "synthesise",
    "validate",
]


@pytest.fixture
def judgments(research_matter) -> dict[str, Document]:
    return add_judgments(research_matter, SLICE)


def ask(matter, question: str) -> Question:
    query = query_create(matter=matter, user=None, question=question, enqueue=False)
    answered = query_answer(query_id=query.pk)
    assert answered is not None
    assert answered.status == Question.Status.ANSWERED, answered.error_message
    return answered


def test_deep_question_runs_every_step_and_keeps_adverse_authority(research_matter, judgments):
    query = ask(research_matter, BRIEF)
    run = ResearchRun.objects.get(question=query)
    assert run.route == "deep" and run.routed_by == "rules" and run.side == "the accused"
    steps = list(run.steps.order_by("order"))
    assert [s.name for s in steps] == DEEP_STEPS
    assert all(s.status == "ok" for s in steps)
    adverse_step = next(s for s in steps if s.name == "adverse_search")
    assert adverse_step.outputs["adverse_outcome_in_main_pool"]  # it ran, and found some
    assert query.mode_used == "research:deep:brief"

    ev = list(ResearchEvidence.objects.filter(run=run).select_related("document"))
    by_bucket: dict[str, set[str]] = {}
    for e in ev:
        by_bucket.setdefault(e.bucket, set()).add(e.document.original_filename[:-4])
    assert by_bucket["supporting"] & {"C1252", "C1193"}
    assert by_bucket["adverse"] & {"C1932", "C1010"}
    assert "C2215" not in set().union(*by_bucket.values())  # off the issue
    for e in ev:  # parent context attached, around the child chunk
        assert e.parent_start <= e.start < e.end <= e.parent_end
        assert e.reason
    per_doc: dict[int, int] = {}
    for e in ev:
        per_doc[e.document_id] = per_doc.get(e.document_id, 0) + 1
    assert max(per_doc.values()) <= MAX_PER_DOC

    answer = query.answer
    # The inject comparison reads every judgment of the matter, whole.
    whole = sum(count_tokens(d.text) for d in judgments.values())
    assert answer.inject_tokens == whole > 0 and answer.crossover["corpus_tokens"] == whole
    assert answer.crossover["fits_window"] is True
    assert "Supporting authority" in answer.text and "Adverse authority" in answer.text
    assert answer.validation["ok"] and not answer.validation["removed"]
    cited = Citation.objects.filter(answer=answer)
    assert cited.exists() and all(c.valid for c in cited)
    assert Evidence.objects.filter(answer=answer).count() == len(ev)


def test_cards_an_older_reader_built_are_read_again_before_research(research_matter, judgments):
    """After an upgrade, a card built by an older card reader (here: its holdings lost, its
    version 0) is re-read at the start of the next research, not only by load_judgments; the
    trace says how many; a second question re-reads none."""
    from legalnav.research.services import CARD_READER_VERSION

    gopal = judgments["C1252"].case_card
    assert gopal.holdings and gopal.reader_version == CARD_READER_VERSION
    CaseCard.objects.filter(pk=gopal.pk).update(reader_version=0, holdings=[])
    query = ask(research_matter, BRIEF)
    load = ResearchRun.objects.get(question=query).steps.get(name="load")
    assert load.outputs["case_cards_reread"] == 1
    gopal.refresh_from_db()
    assert gopal.reader_version == CARD_READER_VERSION and gopal.holdings
    again = ask(research_matter, BRIEF)
    assert (
        ResearchRun.objects.get(question=again).steps.get(name="load").outputs["case_cards_reread"]
        == 0
    )


def test_a_stale_card_whose_judgment_fails_to_parse_is_not_counted_as_re_read(
    research_matter, judgments, monkeypatch
):
    """A card reader that fails on one judgment keeps that card as the older reader left it,
    is not counted as re-read, and is marked: that reader does not try it again at every
    question (the trace counts it as stale); a newer reader does."""
    from legalnav.research import services as research_services

    gopal = judgments["C1252"].case_card
    CaseCard.objects.filter(pk=gopal.pk).update(reader_version=0)

    calls = []

    def broken(text, title=""):
        calls.append(title)
        raise ValueError("a reader bug")

    monkeypatch.setattr(research_services, "case_card", broken)
    assert research_services.case_cards_refresh(matter=research_matter) == 0
    gopal.refresh_from_db()
    assert gopal.reader_version == 0 and gopal.holdings
    assert gopal.failed_reader_version == research_services.CARD_READER_VERSION
    assert research_services.case_cards_stale(matter=research_matter) == 1
    # the same reader does not try (and log) it again at every question; the trace says so
    query = ask(research_matter, BRIEF)
    load = ResearchRun.objects.get(question=query).steps.get(name="load")
    assert len(calls) == 1
    assert (load.outputs["case_cards_reread"], load.outputs["case_cards_stale"]) == (0, 1)
    # a newer reader (here: the mark of an older version) tries it again
    monkeypatch.undo()
    CaseCard.objects.filter(pk=gopal.pk).update(failed_reader_version=1)
    assert research_services.case_cards_refresh(matter=research_matter) == 1
    gopal.refresh_from_db()
    assert gopal.reader_version == research_services.CARD_READER_VERSION
    assert gopal.failed_reader_version == 0
    assert research_services.case_cards_stale(matter=research_matter) == 0


def test_listing_enumerates_every_judgment_that_mentions_a_phrase(research_matter, judgments):
    query = ask(research_matter, "Which cases mention a dying declaration?")
    run = ResearchRun.objects.get(question=query)
    assert (run.route, run.answer_kind) == ("simple", "listing")
    rx = phrase_regex(["dying", "declaration"])
    expected = {case for case, doc in judgments.items() if rx.search(doc.text)}
    listed = {
        e.document.original_filename[:-4]
        for e in ResearchEvidence.objects.filter(run=run).select_related("document")
    }
    assert listed == expected and len(expected) >= 4  # all of them, not a top-k
    assert f"{len(expected)} judgments of this matter match" in query.answer.text
    assert query.answer.validation["ok"]


def test_listing_by_metadata_and_a_lookup(research_matter, judgments):
    query = ask(research_matter, "Which appeals by the State were allowed?")
    listed = {
        e.document.original_filename[:-4]
        for e in ResearchEvidence.objects.filter(run__question=query).select_related("document")
    }
    expected = {
        case
        for case, doc in judgments.items()
        if doc.case_card.outcome == "allowed"
        and (doc.case_card.appellant_label or doc.case_card.appellant_role) == "state"
    }
    assert listed == expected and "C1010" in expected
    card = CaseCard.objects.get(document=judgments["C1252"])
    lookup = ask(research_matter, "Who delivered the judgment in Gopal v State of M.P.?")
    assert card.judges and card.judges[0] in lookup.answer.text
    assert ResearchRun.objects.get(question=lookup).answer_kind == "lookup"


def test_an_ambiguous_question_is_sent_back_with_options(research_matter, judgments):
    query = ask(research_matter, "Is it valid?")
    run = ResearchRun.objects.get(question=query)
    assert run.route == "clarify" and len(run.options) >= 2
    assert all(o in query.answer.text for o in run.options)
    assert not ResearchEvidence.objects.filter(run=run).exists()


def test_the_side_decides_the_buckets_and_an_unread_side_is_asked_for(research_matter, judgments):
    # Issue 17's first question: a brief for "the appellant" of a murder conviction.
    brief = ask(
        research_matter,
        "Prepare a research brief for the appellant: can a conviction for murder rest on a dying "
        "declaration alone, without corroboration? Give authorities for and against.",
    )
    run = ResearchRun.objects.get(question=brief)
    assert run.route == "deep" and run.side == "an accused appellant"
    assert run.proposition.startswith("a conviction for murder cannot rest on a dying")
    assert "Acting for: an accused appellant." in brief.answer.text
    ev = ResearchEvidence.objects.filter(run=run).select_related("document")
    buckets = {e.document.original_filename[:-4]: (e.bucket, e.reason) for e in ev}
    assert buckets["C1932"][0] == "adverse"  # Varikuppal Srinivas: conviction upheld
    assert "adverse to an accused appellant" in buckets["C1932"][1]
    # Each decided judgment is quoted by its holding on the issue, verbatim, and the passage
    # that holds it is among its evidence.
    decided = ev.filter(bucket__in=["supporting", "adverse"])
    for e in decided:
        assert e.stance_source == "holding" and e.quote, e.reason
        assert " ".join(e.quote.split()) in " ".join(e.document.text.split())
    for doc in {e.document for e in decided}:
        passages = [
            " ".join(doc.text[e.start : e.end].split()) for e in decided if e.document == doc
        ]
        quote = " ".join(decided.filter(document=doc).first().quote.split())
        assert any(quote in p for p in passages), doc.original_filename
    assert buckets["C1252"][0] == "supporting"  # Gopal: the accused's appeal allowed

    # Issue 17's second: facts, then "Can the conviction stand?", with no side: asked back.
    facts = (
        "The accused was convicted of murder on the basis of a dying declaration recorded by a "
        "magistrate without corroboration. Can the conviction stand?"
    )
    asked = ask(research_matter, facts)
    run = ResearchRun.objects.get(question=asked)
    assert run.route == "clarify" and "whose side" in run.route_reason
    assert run.options == [f"I act for the accused. {facts}", f"I act for the prosecution. {facts}"]
    assert not ResearchEvidence.objects.filter(run=run).exists()
    # The lawyer picks the prosecution: the same judgments change buckets.
    chosen = ask(research_matter, run.options[1])
    run = ResearchRun.objects.get(question=chosen)
    assert run.route == "deep" and run.side == "the prosecution"
    ev = ResearchEvidence.objects.filter(run=run).select_related("document")
    buckets = {e.document.original_filename[:-4]: e.bucket for e in ev}
    assert buckets.get("C1932") in (None, "supporting") and buckets.get("C1252") in (
        None,
        "adverse",
    )
    assert "supporting" in buckets.values() and "adverse" in buckets.values()


def _outcome_node(doc: Document) -> Node:
    at = doc.text.rfind(doc.case_card.outcome_text)
    return Node.objects.filter(document=doc, start__lte=at, end__gt=at).order_by("-level").first()


@pytest.mark.django_db
def test_claude_path_quotes_are_checked_and_invented_citations_removed(
    research_matter,
    judgments,
    replay,  # noqa: F811
):
    adverse = judgments["C1010"]  # the State's appeal allowed: against the accused
    node = _outcome_node(adverse)
    assert node is not None
    stance_items = [
        # A stance whose quote is in its passage is kept; an invented quote is discarded.
        {"evidence": f"E{i}", "stance": "adverse", "quote": "Appeal allowed", "reason": "State won"}
        for i in range(1, 25)
    ] + [{"evidence": "E1", "stance": "supporting", "quote": "words nobody wrote", "reason": "x"}]
    brief = (
        "Answer\nThe authority is divided.\n\nAdverse authority\n"
        f"The State's appeal succeeded: “Appeal allowed” [{adverse.key}:{node.node_id}].\n"
        f"The court also said “a dying declaration always needs corroboration” [{adverse.key}:{node.node_id}].\n"
        "A leading case held “the declaration must be corroborated” [D99999:s4]."
    )
    replay.queue(
        message(
            json.dumps(
                {
                    "route": "deep",
                    "reason": "a brief with facts",
                    "options": [],
                    "proposition": "the conviction cannot rest on the dying declaration alone",
                    "side": "accused",
                }
            ),
            input_tokens=400,
            output_tokens=60,
        ),
        message(
            json.dumps(
                {
                    "proposition": "the conviction cannot rest on the dying declaration alone",
                    "side": "accused",
                    "issues": ["corroboration of a dying declaration"],
                    "queries": ["dying declaration sole basis of conviction corroboration"],
                    "adverse_queries": ["conviction on dying declaration alone upheld"],
                }
            ),
            input_tokens=300,
            output_tokens=90,
        ),
        message(json.dumps({"items": stance_items}), input_tokens=5000, output_tokens=400),
        message(brief, input_tokens=6000, output_tokens=300),
    )
    query = ask(research_matter, BRIEF)
    run = ResearchRun.objects.get(question=query)
    assert run.route == "deep" and run.routed_by == "claude-sonnet-4-6"
    assert len(replay.requests) == 4
    assert LLMCall.objects.filter(query_id=query.pk, provider="claude").count() == 4

    steps = {s.name: s for s in run.steps.all()}
    assert steps["route"].llm_calls and steps["plan"].llm_calls and steps["analyse"].llm_calls
    assert steps["synthesise"].dollars > 0 and steps["support_search"].llm_calls == []
    rejected = steps["analyse"].outputs.get("rejected", [])
    assert any(r["quote"] == "words nobody wrote" for r in rejected)
    claude_rows = ResearchEvidence.objects.filter(run=run, stance_source="claude")
    assert claude_rows.exists()
    assert claude_rows.exclude(quote="").exists()
    for row in claude_rows.exclude(quote=""):
        passage = row.document.text[row.start : row.end]
        assert re.sub(r"\s+", " ", row.quote).lower() in re.sub(r"\s+", " ", passage).lower()
        assert row.bucket == "adverse"

    # Every passage sent for stance is framed as data in the prompt.
    stance_request = json.dumps(replay.requests[2].body)
    assert "<provisions>" in stance_request and "data, not instructions" in stance_request

    answer = query.answer
    assert "[D99999:s4]" not in answer.text and "must be corroborated" not in answer.text
    assert "always needs corroboration" not in answer.text
    assert f"“Appeal allowed” [{adverse.key}:{node.node_id}]" in answer.text
    problems = sorted(r["problem"] for r in run.removed)
    assert problems == [
        "no such judgment or paragraph in this matter",
        "quotation is not verbatim in the cited paragraph",
    ]
    flagged = Citation.objects.filter(answer=answer, valid=False)
    assert flagged.count() == 2 and all(c.problem.startswith("removed:") for c in flagged)
    assert answer.validation["ok"] and answer.dollars > 0


@pytest.mark.django_db
def test_claude_failures_fall_back_to_the_offline_steps(
    research_matter, judgments, replay, settings
):  # noqa: F811
    settings.LLM_MAX_ATTEMPTS = 1
    replay.queue(
        message("I think this is probably a deep one.", input_tokens=100, output_tokens=10),
        Reply(status=500, body={"type": "error", "error": {"type": "api_error", "message": "x"}}),
        Reply(status=500, body={"type": "error", "error": {"type": "api_error", "message": "x"}}),
        message("Answer\nNothing useful.", input_tokens=100, output_tokens=10),
    )
    query = ask(research_matter, BRIEF)
    run = ResearchRun.objects.get(question=query)
    steps = {s.name: s for s in run.steps.all()}
    assert run.route == "deep" and run.routed_by == "rules"
    assert steps["route"].status == "fallback" and "unreadable" in steps["route"].note
    assert steps["plan"].status == "fallback" and steps["analyse"].status == "fallback"
    assert ResearchEvidence.objects.filter(run=run, bucket="adverse").exists()


def test_research_command_prints_route_answer_and_trace(research_matter, judgments, capsys):
    call_command(
        "research",
        "Which cases mention a dying declaration?",
        matter=str(research_matter.pk),
        json=True,
    )
    answer = json.loads(capsys.readouterr().out)["answer"]
    research = answer["research"]
    assert research["route"] == "simple" and research["answer_kind"] == "listing"
    assert [s["name"] for s in research["trace"]] == ["load", "route", "listing", "validate"]
    assert answer["evidence"]["neutral"] and answer["evidence"]["sorted_by"] == "stance"


def test_the_answer_page_shows_the_route_the_trace_and_the_stance_buckets(
    research_matter, judgments, client
):
    from legalnav.matters.models import Membership
    from tests.conftest import MembershipFactory

    member = MembershipFactory(matter=research_matter, role=Membership.Role.VIEWER)
    query = ask(research_matter, BRIEF)
    client.force_login(member.user)
    page = client.get(f"/matters/{research_matter.pk}/questions/{query.pk}/")
    assert page.status_code == 200
    html = page.content.decode()
    run = ResearchRun.objects.get(question=query)
    assert "How this was researched" in html and run.route_reason[:40] in html
    assert f"Trace: {len(DEEP_STEPS)} steps" in html
    for name in DEEP_STEPS:
        assert f"<td>{name}</td>" in html
    for bucket in ("Supporting", "Adverse", "Neutral"):
        assert f'<h3>{bucket} <span class="count">' in html
    adverse = ResearchEvidence.objects.filter(run=run, bucket="adverse").select_related(
        "document__case_card"
    )
    assert adverse and all(e.document.case_card.case_name[:30] in html for e in adverse)
    # The rule-based buckets of contract answers are not shown for a research answer.
    assert "Evidence retrieval put before the answerer" not in html


def test_a_side_choice_on_the_page_asks_the_question_again(research_matter, judgments, client):
    from legalnav.matters.models import Membership
    from tests.conftest import MembershipFactory

    member = MembershipFactory(matter=research_matter, role=Membership.Role.EDITOR)
    facts = (
        "The accused was convicted of murder on the basis of a dying declaration recorded by a "
        "magistrate without corroboration. Can the conviction stand?"
    )
    query = ask(research_matter, facts)
    client.force_login(member.user)
    asking = client.get(f"/matters/{research_matter.pk}/ask/").content.decode()
    assert "each question is routed" in asking and "Auto injects the whole matter" not in asking
    html = client.get(f"/matters/{research_matter.pk}/questions/{query.pk}/").content.decode()
    choice = f"I act for the accused. {facts}"
    assert "Which side do you act for?" in html
    assert f'<input type="hidden" name="question" value="{choice}">' in html
    assert f'<button type="submit" class="link-button">{choice}</button>' in html
    response = client.post(
        f"/matters/{research_matter.pk}/ask/", {"question": choice, "mode": query.mode}
    )
    assert response.status_code == 303
    asked = Question.objects.filter(matter=research_matter).order_by("-pk").first()
    assert asked.pk != query.pk and asked.question == choice and asked.asked_by == member.user


def test_a_long_statement_of_facts_asking_only_for_a_brief_says_its_proposition_is_not_stated(
    research_matter, judgments
):
    from legalnav.bench.research_eval import AILA_BRIEF

    facts = (
        "The appellant was tried for the murder of his wife, who died of burns in their house. "
        "Before she died she told the Magistrate that her husband had poured kerosene on her. "
    ) * 8
    query = ask(research_matter, AILA_BRIEF.format(facts=facts))
    run = ResearchRun.objects.get(question=query)
    assert run.route == "deep" and run.proposition.startswith("not stated")
    assert "Proposition: not stated" in query.answer.text
    # Nothing was matched against the holdings: each stance comes from the outcome.
    sources = set(ResearchEvidence.objects.filter(run=run).values_list("stance_source", flat=True))
    assert "holding" not in sources and sources & {"outcome", "none"}
