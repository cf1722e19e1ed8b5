"""Answering: the offline answerer, citation validation, and the whole query flow with the
offline path and with Claude (the real anthropic client against the local replay server)."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal

import pytest
from django.core.management import call_command

from legalnav.answers import citations
from legalnav.answers.models import Answer, Question
from legalnav.answers.offline import SILENCE, Provision, answer_offline
from legalnav.answers.services import QuestionRejected, query_answer, query_create
from legalnav.answers.verbs import Verb as AnswerVerb
from legalnav.llm.models import LLMCall
from tests.conftest import index_bioamber_pair
from tests.llm.conftest import replay  # noqa: F401  (the replay server fixture)
from tests.llm.replay import message


def provision(**kw) -> Provision:
    base = dict(
        doc_key="D1",
        doc_title="Development Agreement",
        doc_kind="agreement",
        effective_date=date(2010, 4, 15),
        node_id="s13.2",
        ref="13.2",
        heading="Governing Law",
        text="13.2 Governing Law. This Development Agreement shall be governed by the laws of the State of Minnesota.",
        score=1.0,
    )
    base.update(kw)
    return Provision(**base)


def test_offline_answer_quotes_verbatim_with_citations():
    text = answer_offline("Which state's law governs the agreement?", [provision()])
    assert "[D1:s13.2]" in text and "State of Minnesota" in text
    lookup = {("D1", "s13.2"): provision().text}
    assert citations.validate(text, lambda d, n: lookup.get((d, n))).ok


def test_offline_answer_says_the_fixed_sentence_when_nothing_bears_on_the_question():
    assert answer_offline("What is the airspeed of an unladen swallow?", [provision()]) == SILENCE
    assert answer_offline("anything at all", []) == SILENCE


def test_offline_answer_notes_that_an_amendment_prevails_over_what_it_amends():
    amendment = provision(
        doc_key="D2",
        doc_kind="amendment",
        doc_title="First Amendment",
        node_id="s1",
        effective_date=date(2011, 7, 5),
        amends_key="D1",
        text="1. Section 13.2 is amended: the laws of the State of Delaware govern this Agreement.",
    )
    text = answer_offline("Which state's law governs the agreement?", [provision(), amendment])
    assert "prevails" in text


def test_a_question_asking_for_one_value_gets_a_short_answer_with_its_quotation_first():
    text = answer_offline("Which state's law governs the agreement?", [provision()])
    first = text.splitlines()[0]
    assert first.startswith("Short answer: Minnesota. “") and first.endswith("[D1:s13.2]")
    lookup = {("D1", "s13.2"): provision().text}
    checked = citations.validate(text, lambda d, n: lookup.get((d, n)))
    assert checked.ok and all(c.verdict == citations.VERIFIED for c in checked.checks)
    # The list of provisions still follows it.
    assert "1. Development Agreement" in text


def test_the_short_answer_reads_the_amendment_that_prevails_first():
    amendment = provision(
        doc_key="D2",
        doc_kind="amendment",
        doc_title="First Amendment",
        node_id="s1",
        effective_date=date(2011, 7, 5),
        amends_key="D1",
        text="1. Section 13.2 is amended: this Agreement is governed by the laws of the State of Delaware.",
    )
    text = answer_offline("Which state's law governs the agreement?", [provision(), amendment])
    assert text.splitlines()[0].startswith("Short answer: Delaware.")
    assert text.splitlines()[0].endswith("[D2:s1]")


def test_no_short_answer_when_the_quoted_documents_state_different_values():
    # A data room of agreements under different laws, and a question that names none of them:
    # no one value answers it, and the list (one law per document) does.
    credit = provision(
        doc_key="D3",
        doc_title="Credit Agreement",
        node_id="s9.10",
        text="9.10 Governing Law. This Agreement shall be governed by the laws of the State of New York.",
    )
    text = answer_offline("Which state's law governs the agreement?", [credit, provision()])
    assert not text.startswith("Short answer"), text
    assert "[D3:s9.10]" in text and "[D1:s13.2]" in text
    # Two provisions of one document that agree still give one answer.
    same = provision(node_id="s13.3", text="13.3 Venue. The laws of the State of Minnesota govern.")
    text = answer_offline("Which state's law governs the agreement?", [provision(), same])
    assert text.startswith("Short answer: Minnesota.")


@pytest.mark.parametrize(
    ("question", "clause", "value"),
    [
        (
            "How long is the initial term of this Agreement?",
            "10.1 Term. The initial term of this Agreement is four (4) years from the Effective Date.",
            "4 years",
        ),
        (
            "What is the maximum liability of either party?",
            "12.1 Limitation. In no event shall the liability of either party exceed $5,000,000.",
            "5,000,000",
        ),
        (
            "When does the agreement expire?",
            "10.1 Term. This Agreement expires on December 31, 2015 unless the parties renew it.",
            "2015",
        ),
    ],
)
def test_short_answers_for_periods_amounts_and_dates(question, clause, value):
    text = answer_offline(question, [provision(text=clause, heading="Term", ref="10.1")])
    first = text.splitlines()[0]
    assert first.startswith("Short answer: ") and value in first.split("“")[0], first


def test_no_short_answer_when_the_question_asks_for_no_single_value_or_none_is_stated():
    text = answer_offline("What does Section 13.2 of the Development Agreement say?", [provision()])
    assert text.startswith("Extractive answer") and "[D1:s13.2]" in text
    text = answer_offline(
        "How long is the notice period under the agreement?",
        [provision(text="Notice shall be given in writing under this Agreement.")],
    )
    assert not text.startswith("Short answer")
    # Research answers keep their own shape.
    text = answer_offline("Which state's law governs the agreement?", [provision()], short=False)
    assert not text.startswith("Short answer")


def test_validation_flags_invented_provisions_and_altered_quotes():
    answer = (
        "The term is four years: “continue for four (4) years” [D1:s10.1]\n"
        "Interest is 9%: “interest at nine percent” [D1:s10.1]\n"
        "See also [D9:s1] and [D1] Clause 99.9."
    )
    texts = {
        (
            "D1",
            "s10.1",
        ): "10.1 This Agreement will continue for four (4) years unless earlier terminated."
    }
    result = citations.validate(answer, lambda d, n: texts.get((d, n)))
    assert not result.ok
    problems = " ".join(result.problems)
    assert "[D1:s10.1] quoted text is not in the cited provision" in problems
    assert "[D9:s1] no such document" in problems and "clause:99.9" in problems
    assert sum(1 for c in result.checks if c.ok) == 1


def base_key(matter) -> str:
    """The development agreement's key (D<pk>): primary keys differ between databases."""
    from legalnav.documents.models import Document

    return Document.objects.get(matter=matter, kind="agreement").key


@pytest.fixture
def bioamber_matter(matter):
    index_bioamber_pair(matter)
    return matter


@pytest.mark.django_db
@pytest.mark.parametrize("mode", ["navembed", "navindex", "inject", "auto"])
def test_offline_query_flow_in_every_mode(bioamber_matter, mode):
    query = query_create(
        matter=bioamber_matter,
        user=None,
        question="Which state's law governs the Development Agreement?",
        mode=mode,
        enqueue=False,
    )
    query = query_answer(query_id=query.pk)
    assert query.status == Question.Status.ANSWERED, query.error_message
    answer = query.answer
    assert answer.answerer == "offline" and "Minnesota" in answer.text
    assert answer.validation["ok"], answer.validation
    assert answer.citations.exists() and all(c.valid for c in answer.citations.all())
    assert answer.evidence.exists()
    assert answer.dollars == Decimal(0) and answer.context_tokens > 0
    assert answer.inject_tokens > answer.context_tokens or mode in ("inject", "auto")
    row = LLMCall.objects.get(query_id=query.pk)
    assert row.estimated and row.dollars == 0 and row.input_tokens == answer.token_footprint


@pytest.mark.django_db
def test_query_refusals(bioamber_matter, matter_factory=None):
    with pytest.raises(QuestionRejected):
        query_create(matter=bioamber_matter, user=None, question="   ", enqueue=False)
    with pytest.raises(QuestionRejected):
        query_create(matter=bioamber_matter, user=None, question="x" * 20_001, enqueue=False)
    with pytest.raises(QuestionRejected):
        query_create(
            matter=bioamber_matter, user=None, question="q", mode="telepathy", enqueue=False
        )


@pytest.mark.django_db
def test_inject_is_refused_beyond_the_context_window(bioamber_matter, monkeypatch):
    from legalnav.answers import services

    monkeypatch.setattr(services, "CONTEXT_WINDOW_TOKENS", 1000)
    query = query_create(
        matter=bioamber_matter,
        user=None,
        question="What is the term?",
        mode="inject",
        enqueue=False,
    )
    query = query_answer(query_id=query.pk)
    assert query.status == Question.Status.FAILED and "window" in query.error_message
    assert not Answer.objects.filter(question=query).exists()


@pytest.mark.django_db
def test_empty_matter_fails_clearly(matter):
    query = query_create(matter=matter, user=None, question="What is the term?", enqueue=False)
    query = query_answer(query_id=query.pk)
    assert query.status == Question.Status.FAILED and "no indexed documents" in query.error_message


@pytest.mark.django_db
def test_claude_answer_is_recorded_priced_and_validated(bioamber_matter, replay):  # noqa: F811
    key = base_key(bioamber_matter)
    replay.queue(
        message(
            "Minnesota law governs: “shall be governed by and construed in accordance with the laws of the "
            f"State of Minnesota” [{key}:s13.2]. Also “the laws of Atlantis apply” [{key}:s13.2].",
            input_tokens=2100,
            output_tokens=80,
        )
    )
    query = query_create(
        matter=bioamber_matter,
        user=None,
        question="Which state's law governs?",
        mode="navembed",
        enqueue=False,
    )
    query = query_answer(query_id=query.pk)
    assert query.status == Question.Status.ANSWERED
    answer = query.answer
    assert answer.answerer == "claude-sonnet-4-6"
    assert answer.validation["ok"] is False and any(
        "Atlantis" in c.quote for c in answer.citations.filter(valid=False)
    )
    assert answer.citations.filter(valid=True).count() == 1
    row = LLMCall.objects.get(query_id=query.pk)
    assert row.input_tokens == 2100 and row.output_tokens == 80
    assert answer.dollars == row.dollars == Decimal("0.0075")  # 2100×$3 + 80×$15 per million
    body = replay.requests[-1].body
    assert "Which state's law governs?" in json.dumps(body)
    assert "<provision" in json.dumps(body["system"]) or "<provision" in json.dumps(
        body["messages"]
    )


@pytest.mark.django_db
def test_claude_outage_fails_the_query_and_a_retry_answers(bioamber_matter, replay, settings):  # noqa: F811
    from tests.llm.replay import Reply

    settings.LLM_MAX_ATTEMPTS = 2
    replay.queue(
        Reply(
            status=529,
            body={"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
        ),
        Reply(
            status=529,
            body={"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
        ),
    )
    query = query_create(
        matter=bioamber_matter,
        user=None,
        question="Which state's law governs?",
        mode="navembed",
        enqueue=False,
    )
    query = query_answer(query_id=query.pk)
    assert query.status == Question.Status.FAILED and query.error_message
    replay.queue(
        message(f"Minnesota [{base_key(bioamber_matter)}:s13.2]", input_tokens=100, output_tokens=5)
    )
    query = query_answer(query_id=query.pk)
    assert query.status == Question.Status.ANSWERED and query.attempts == 1  # a fresh count


@pytest.mark.django_db
def test_ask_command_prints_json(bioamber_matter, capsys):
    call_command(
        "ask",
        "How long does the Development Agreement last?",
        "--matter",
        str(bioamber_matter.pk),
        "--mode",
        "navembed",
        "--json",
    )
    data = json.loads(capsys.readouterr().out)
    answer = data["answer"]
    assert answer["answerer"] == "offline" and answer["citations"] and answer["validation"]["ok"]
    assert "four (4) years" in answer["text"] and data["status"] == "answered"
    # The command is a door like the others: the question is asked through the same action.
    from legalnav.matters.models import AuditEvent

    event = AuditEvent.objects.get(matter=bioamber_matter, action=AnswerVerb.ASKED)
    assert event.detail["via"] == "command" and event.detail["query_id"] == data["id"]


@pytest.mark.django_db
def test_asking_enqueues_the_answer_task_on_commit(
    bioamber_matter, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        query = query_create(
            matter=bioamber_matter,
            user=None,
            question="What is the term of the agreement?",
            mode="navembed",
        )
    assert len(callbacks) == 1
    query.refresh_from_db()
    assert query.status == Question.Status.ANSWERED and query.mode_used == "navembed:convex"
    # Running the task again does nothing: the query is no longer queued.
    assert query_answer(query_id=query.pk).answer.pk == query.answer.pk


@pytest.mark.django_db
def test_an_unexpected_error_fails_the_query_and_an_abandoned_run_is_taken_over(
    bioamber_matter, monkeypatch
):
    from datetime import timedelta

    from django.utils import timezone

    from legalnav.answers import services

    def broken(*args, **kwargs):
        raise RuntimeError("bug")

    monkeypatch.setattr(services, "_draft", broken)
    query = query_create(
        matter=bioamber_matter,
        user=None,
        question="What is the term?",
        mode="navembed",
        enqueue=False,
    )
    query = query_answer(query_id=query.pk)
    assert query.status == Question.Status.FAILED and "RuntimeError" in query.error_message
    monkeypatch.undo()
    # A run left "running" by a worker that died is taken over once its lease has expired,
    # not before; and a retry of the same task (the same owner) takes over its own claim.
    Question.objects.filter(pk=query.pk).update(
        status=Question.Status.RUNNING,
        lease_owner="celery:dead-task",
        lease_expires_at=timezone.now() + timedelta(minutes=1),
        attempts=1,
    )
    assert query_answer(query_id=query.pk).status == Question.Status.RUNNING
    assert (
        query_answer(query_id=query.pk, owner="celery:dead-task").status == Question.Status.ANSWERED
    )
    Question.objects.filter(pk=query.pk).update(
        status=Question.Status.RUNNING,
        lease_owner="celery:dead-task",
        lease_expires_at=timezone.now() - timedelta(seconds=1),
    )
    assert query_answer(query_id=query.pk).status == Question.Status.ANSWERED


def test_offline_quotes_sentences_that_are_not_adjacent_as_separate_quotations():
    text = (
        "2.2 Bioamber shall pay Cargill a fee per FTE. The fee is reviewed yearly. "
        "Cargill shall invoice Bioamber monthly for the FTE fee."
    )
    p = provision(node_id="s2.2", ref="2.2", heading="", text=text)
    answer = answer_offline("What FTE fee does Bioamber pay and how is it invoiced?", [p])
    assert "“2.2 Bioamber shall pay Cargill a fee per FTE.” … “Cargill shall invoice" in answer
    assert citations.validate(answer, lambda d, n: text if (d, n) == ("D1", "s2.2") else None).ok


def test_a_long_invented_quote_is_checked_like_a_short_one():
    clause = "13.8 Entire Agreement. " + "This Development Agreement is the whole bargain. " * 20
    invented = "13.8 Entire Agreement. " + "This Development Agreement may be varied orally. " * 20
    lookup = {("D1", "s13.8"): clause}
    good = citations.validate(f"“{clause.strip()}” [D1:s13.8]", lambda d, n: lookup.get((d, n)))
    bad = citations.validate(f"“{invented.strip()}” [D1:s13.8]", lambda d, n: lookup.get((d, n)))
    assert len(clause) > 600
    assert good.ok and good.as_dict()["quotes"] == 1
    assert not bad.ok and bad.as_dict()["quotes"] == 1
