"""The offline answer says which documents its evidence came from when the question names none
of the matter's documents, and that line never trips the citation check."""

from __future__ import annotations

import pytest
from django.urls import reverse

from legalnav.answers import citations
from legalnav.answers.offline import Provision, answer_offline
from legalnav.answers.report import answer_report
from legalnav.answers.services import query_answer, query_create
from legalnav.documents.services import document_add, document_index
from tests.answers.test_answers import provision as base_provision
from tests.conftest import index_bioamber_pair

QUESTION = "Which state's law governs the agreement?"


def provision(**kw) -> Provision:  # type: ignore[no-untyped-def]
    kw.setdefault(
        "text",
        "13.2 Governing Law. This Agreement shall be governed by the laws of the State of Minnesota.",
    )
    return base_provision(**kw)


def supply(**kw) -> Provision:  # type: ignore[no-untyped-def]
    return provision(
        doc_key="D7",
        doc_title="2019 “Supply” Agreement",
        node_id="s4",
        ref="4",
        text="4. Governing Law. This Agreement shall be governed by the laws of the State of New York.",
        **kw,
    )


def test_the_answer_lists_the_documents_its_evidence_came_from() -> None:
    provisions = [provision(), supply(), provision(node_id="s13.3", ref="13.3")]
    text = answer_offline(QUESTION, provisions, sources=True)
    last = text.splitlines()[-1]
    # in order of first use, each document once; a title that reads as a fact (a year) is left
    # out, and quotation marks never reach the line
    assert last == "Evidence from: D1 Development Agreement (agreement), D7 (agreement)."
    texts = {(p.doc_key, p.node_id): p.text for p in provisions}
    result = citations.validate(text, lambda d, n: texts.get((d, n)))
    assert result.ok, result.problems
    assert not result.uncited and not result.unbound


def test_without_sources_the_answer_is_as_before() -> None:
    text = answer_offline(QUESTION, [provision(), supply()])
    assert "Evidence from" not in text
    assert text == "\n".join(
        answer_offline(QUESTION, [provision(), supply()], sources=True).splitlines()[:-1]
    )


def test_a_fact_on_the_evidence_line_would_be_flagged() -> None:
    # the guard the line relies on: the checker flags a year with no citation on its line
    assert citations.states_fact("Evidence from: D7 2019 Supply Agreement (agreement).")
    assert citations.parse("Evidence from: D7 2019 Supply Agreement (agreement).").uncited


@pytest.mark.django_db
def test_in_a_matter_a_question_naming_no_document_says_where_the_evidence_came_from(
    matter, owner, client
) -> None:
    base, _ = index_bioamber_pair(matter)
    other, _ = document_add(
        matter=matter,
        filename="supply.txt",
        data=(
            b"SUPPLY AGREEMENT\n\nThis Supply Agreement is entered into by and between Acme "
            b"Widgets Inc. and Bolt Logistics LLC.\n\n1. Governing Law. This Supply Agreement "
            b"shall be governed by the laws of the State of New York.\n"
        ),
        kind="agreement",
        title="Supply Agreement",
        enqueue=False,
    )
    assert document_index(document_id=other.pk).status == "indexed"

    def ask(question: str):  # type: ignore[no-untyped-def]
        query = query_create(
            matter=matter, user=None, question=question, mode="navembed", enqueue=False
        )
        return query_answer(query_id=query.pk).answer

    plain = ask("Which state's law governs the agreement?")
    assert "Evidence from: " in plain.text and plain.validation["ok"], plain.validation
    named = ask(
        "In the Supply Agreement between Acme Widgets and Bolt Logistics, which state's law governs?"
    )
    assert "Evidence from" not in named.text and named.validation["ok"], named.validation
    assert "New York" in named.text and f"[{other.key}:" in named.text
    assert f"[{base.key}:" not in named.text
    # The answer keeps where it looked, and the report and page say so.
    assert plain.scope == {}
    assert named.scope["named"] == [other.key] and named.scope["by"] == "name"
    report = answer_report(query=named.question, answer=named)
    assert report.scope is not None
    assert [(d.id, d.key) for d in report.scope.documents] == [(other.pk, other.key)]
    assert answer_report(query=plain.question, answer=plain).scope is None
    client.force_login(owner)
    page = client.get(reverse("answer-detail", args=[matter.pk, named.question.pk]))
    html = " ".join(page.content.decode().split())
    link = reverse("document-detail", args=[other.pk])
    assert f'Searched only <a href="{link}">{other.key} Supply Agreement</a>' in html
    assert f"the question names {other.key}." in html
    plain_page = client.get(reverse("answer-detail", args=[matter.pk, plain.question.pk]))
    assert "Searched only" not in plain_page.content.decode()
