"""Indexing a judgment builds its case card; cited cases link to judgments of the same matter."""

from __future__ import annotations

from legalnav.documents.models import Document
from legalnav.documents.services import document_add, document_index
from legalnav.research.models import CaseCard
from legalnav.research.services import case_cards_link, deferred_linking
from tests.conftest import demo_bytes
from tests.research.conftest import aila_path


def _add(matter, case: str, **kw) -> Document:
    doc, _ = document_add(
        matter=matter,
        filename=f"{case}.txt",
        data=aila_path(case).read_bytes(),
        enqueue=False,
        **kw,
    )
    outcome = document_index(document_id=doc.pk)
    assert outcome.status == "indexed", outcome
    doc.refresh_from_db()
    return doc


def test_indexing_a_judgment_builds_its_card_and_names_it(research_matter):
    doc = _add(research_matter, "C1010")
    assert doc.kind == Document.Kind.JUDGMENT
    card = CaseCard.objects.get(document=doc)
    assert doc.title == card.case_name and " v " in card.case_name
    assert card.court == "Supreme Court of India" and card.decided == doc.effective_date
    assert card.outcome in CaseCard.Outcome.values and card.outcome != "unknown"
    assert card.paragraph_count > 0 and card.parents[0]["id"] == "P0"
    # the parents cover whole nodes of the stored tree
    starts = set(doc.nodes.values_list("start", flat=True))
    assert all(p["start"] in starts for p in card.parents[1:])


def test_an_agreement_gets_no_case_card(matter):
    doc, _ = document_add(
        matter=matter,
        filename="dev.txt",
        data=demo_bytes("bioamber-development-agreement.txt"),
        enqueue=False,
    )
    document_index(document_id=doc.pk)
    doc.refresh_from_db()
    assert doc.kind != Document.Kind.JUDGMENT
    assert not CaseCard.objects.filter(document=doc).exists()


def test_cited_judgment_in_the_matter_is_linked_whichever_is_added_first(research_matter):
    # C1010 cites "Laxman v. State of Maharashtra", which is C51 in AILA 2019.
    citing = _add(research_matter, "C1010")
    entry = _cited(citing, "Laxman")
    assert entry["document_id"] is None  # not in the matter yet
    cited = _add(research_matter, "C51")
    assert _cited(citing, "Laxman")["document_id"] == cited.pk


def test_bulk_load_defers_linking_to_one_pass(research_matter):
    with deferred_linking():
        citing = _add(research_matter, "C1010")
        cited = _add(research_matter, "C51")
    assert _cited(citing, "Laxman")["document_id"] is None
    assert case_cards_link(matter=research_matter) >= 1
    assert _cited(citing, "Laxman")["document_id"] == cited.pk


def _cited(doc: Document, word: str) -> dict:
    card = CaseCard.objects.get(document=doc)
    return next(e for e in card.cases_cited if e["name"].startswith(word))


def test_load_judgments_fills_a_research_matter_once(db, capsys):
    import pytest
    from django.core.management import CommandError, call_command

    from legalnav.matters.models import Matter
    from tests.conftest import MatterFactory
    from tests.research.conftest import AILA

    folder = str(AILA / "casedocs")
    call_command("load_judgments", folder, matter="AILA test", names="C1010,C51,C1")
    out = capsys.readouterr().out
    matter = Matter.objects.get(name="AILA test")
    assert matter.kind == Matter.Kind.RESEARCH
    assert "3 indexed" in out and "3 case cards" in out
    titles = set(Document.objects.filter(matter=matter).values_list("title", flat=True))
    assert "Laxman v State of Maharashtra" in titles
    call_command("load_judgments", folder, matter="AILA test", names="C1010,C51,C1")
    assert "0 indexed, 3 unchanged" in capsys.readouterr().out
    with pytest.raises(CommandError, match="Not found: C99999"):
        call_command("load_judgments", folder, matter="AILA test", names="C99999")
    deal = MatterFactory(name="A deal")
    with pytest.raises(CommandError, match="not a research matter"):
        call_command("load_judgments", folder, matter="A deal", names="C1")
    assert not Document.objects.filter(matter=deal).exists()


def test_load_judgments_can_give_the_matter_an_owner_who_then_sees_it(db, capsys, client):
    import pytest
    from django.core.management import CommandError, call_command

    from legalnav.matters.models import Matter, Membership
    from tests.conftest import MatterFactory, UserFactory
    from tests.research.conftest import AILA

    folder = str(AILA / "casedocs")
    with pytest.raises(CommandError, match="No active user named “nobody”"):
        call_command("load_judgments", folder, matter="Owned", names="C1", owner="nobody")
    assert not Matter.objects.filter(name="Owned").exists()  # refused before anything was made
    lawyer = UserFactory(username="asha")
    call_command("load_judgments", folder, matter="Owned", names="C1", owner="asha")
    matter = Matter.objects.get(name="Owned")
    assert Membership.objects.get(matter=matter, user=lawyer).role == Membership.Role.OWNER
    client.force_login(lawyer)
    assert "Owned" in client.get("/").content.decode()
    # An existing matter: a second user is added as an owner, once.
    other = UserFactory(username="ben")
    call_command("load_judgments", folder, matter="Owned", names="C1", owner="ben")
    call_command("load_judgments", folder, matter="Owned", names="C1", owner="ben")
    assert Membership.objects.filter(matter=matter, user=other).count() == 1
    # A matter of another kind is refused and gains no member.
    deal = MatterFactory(name="A deal")
    with pytest.raises(CommandError, match="not a research matter"):
        call_command("load_judgments", folder, matter="A deal", names="C1", owner="ben")
    assert not Membership.objects.filter(matter=deal, user=other).exists()


def _formats(text: str) -> dict[str, bytes]:
    """The same real judgment as HTML, DOCX and PDF, built here from its text."""
    import html
    import io

    import docx
    import weasyprint

    paras = [p for p in text.split("\n") if p.strip()]
    page = "<html><body>" + "".join(f"<p>{html.escape(p)}</p>" for p in paras) + "</body></html>"
    document = docx.Document()
    for p in paras:
        document.add_paragraph(p)
    buf = io.BytesIO()
    document.save(buf)
    return {
        "html": page.encode("utf-8"),
        "docx": buf.getvalue(),
        "pdf": weasyprint.HTML(string=page).write_pdf(),
    }


def test_judgments_in_html_docx_and_pdf_get_case_cards(research_matter):
    from tests.research.conftest import aila_text

    text = aila_text("C1010")  # State of Rajasthan v Parmendra Singh
    for ext, data in _formats(text).items():
        doc, _ = document_add(
            matter=research_matter, filename=f"parmendra.{ext}", data=data, enqueue=False
        )
        assert document_index(document_id=doc.pk).status == "indexed", ext
        doc.refresh_from_db()
        card = CaseCard.objects.get(document=doc)
        assert doc.kind == Document.Kind.JUDGMENT, ext
        assert card.case_name == "State of Rajasthan v Parmendra Singh", ext
        assert (card.outcome, card.winner) == ("allowed", "appellant"), ext
        assert card.appellant_label == "state" and card.criminal, ext
        assert card.paragraph_count >= 12, ext


def test_claude_enrichment_keeps_only_quoted_items(research_matter, replay, settings):  # noqa: F811
    import json

    from legalnav.llm.models import LLMCall
    from legalnav.research.services import case_card_enrich
    from tests.llm.replay import message

    doc = _add(research_matter, "C51")  # Laxman: "Order accordingly", no winner in the text
    card = CaseCard.objects.get(document=doc)
    assert card.outcome == "disposed"
    reply = {
        "issues": [
            {
                "text": "Must a dying declaration be certified by a doctor?",
                "quote": "the dying declaration of the deceased which was recorded by the judicial magistrate",
            },
            {"text": "An invented issue", "quote": "whether the moon is made of cheese"},
        ],
        "holdings": [
            {"text": "Paparambaka overruled", "quote": "must be held to be not correctly decided"}
        ],
        "outcome": "disposed",
        "outcome_quote": "Order accordingly",
        "appellant_label": "accused",
        "respondent_label": "state",
    }
    replay.queue(message(json.dumps(reply), input_tokens=3000, output_tokens=200))
    enrichment = case_card_enrich(document=doc)
    assert [i["text"] for i in enrichment["issues"]] == [
        "Must a dying declaration be certified by a doctor?"
    ]
    assert enrichment["holdings"] and enrichment["outcome"] == "disposed"
    assert any("moon" in d for d in enrichment["dropped"])
    card.refresh_from_db()
    assert card.enrichment == json.loads(json.dumps(enrichment))
    assert card.outcome == "disposed"  # the rules' reading is kept
    call = LLMCall.objects.get(matter_id=research_matter.pk, purpose="enrichment")
    assert call.input_tokens == 3000 and call.dollars > 0
    sent = json.dumps(replay.requests[-1].body)
    assert "<document" in sent and "data, not instructions" in sent


def test_a_kind_given_at_upload_is_kept_when_the_title_is_guessed(research_matter):
    doc = _add(research_matter, "C1781", kind=Document.Kind.JUDGMENT)
    assert doc.kind == Document.Kind.JUDGMENT and doc.guess_metadata
    assert CaseCard.objects.filter(document=doc).exists()
    assert doc.title == "Madhu Mehta v Union Of India"


def test_cards_an_older_reader_built_are_read_again_without_reindexing(db, capsys):
    from django.core.management import call_command

    from legalnav.documents.models import Node
    from legalnav.research.services import CARD_READER_VERSION
    from tests.research.conftest import AILA

    folder = str(AILA / "casedocs")
    call_command("load_judgments", folder, matter="Old cards", names="C19,C1")
    capsys.readouterr()
    card = CaseCard.objects.get(document__original_filename="C19.txt")
    assert card.reader_version == CARD_READER_VERSION and card.winner == "appellant"
    # As an older reader left it: the State's restored conviction unread, Claude's additions kept.
    CaseCard.objects.filter(pk=card.pk).update(
        reader_version=1, winner="unknown", enrichment={"holdings": [{"text": "kept"}]}
    )
    nodes = set(Node.objects.filter(document=card.document).values_list("pk", flat=True))
    call_command("load_judgments", folder, matter="Old cards", names="C19,C1")
    out = capsys.readouterr().out
    assert "1 case cards built by an older reader were read again" in out
    assert "0 indexed, 2 unchanged" in out
    card.refresh_from_db()
    assert card.reader_version == CARD_READER_VERSION and card.winner == "appellant"
    assert card.enrichment == {"holdings": [{"text": "kept"}]}
    assert set(Node.objects.filter(document=card.document).values_list("pk", flat=True)) == nodes
    call_command("load_judgments", folder, matter="Old cards", names="C19,C1")
    assert "read again" not in capsys.readouterr().out


def test_the_card_keeps_what_the_text_calls_each_side(research_matter):
    """A transcript's plain words for its sides ("the respondent mother") are stored on the card,
    so that research can place a client described by its position in life."""
    from tests.research.test_uk_sides import transcript

    text = transcript(
        "RE K (CHILDREN)\nAppellant\n- and -\nRespondent",
        "1. The father appeals against the return order. The respondent mother opposes the "
        "appeal.\n2. The mother (the respondent) lives in England.\n3. I would dismiss the appeal.",
    )
    doc, _ = document_add(
        matter=research_matter, filename="re-k.txt", data=text.encode(), enqueue=False
    )
    assert document_index(document_id=doc.pk).status == "indexed"
    card = CaseCard.objects.get(document=doc)
    assert card.described == {"appellant": [], "respondent": ["mother"]}
