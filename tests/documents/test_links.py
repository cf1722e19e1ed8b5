"""Amendments linked by themselves: legalnav reads what a document says it amends, proposes the
document of the matter it is, with the words it read, and a person accepts or rejects it."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.management import call_command
from django.urls import reverse

from legalnav.documents.models import Document
from legalnav.documents.parsing.amends import Candidate, propose, read_reference
from legalnav.documents.services import document_add, document_index
from legalnav.documents.verbs import Verb as DocumentVerb
from legalnav.matters.models import AuditEvent
from tests.conftest import MembershipFactory, demo_bytes

BASE = "bioamber-development-agreement.txt"
AMENDMENT = "bioamber-development-agreement-first-amendment.txt"


def text(name: str) -> str:
    return demo_bytes(name).decode("utf-8")


def test_the_amendment_says_what_it_amends_in_its_own_words() -> None:
    ref = read_reference(text(AMENDMENT))
    assert ref is not None
    assert ref.title == "Development Agreement" and ref.date == dt.date(2010, 4, 15)
    assert "First Amendment" in ref.words and "April 15, 2010" in ref.words
    assert read_reference(text(BASE)) is None  # the agreement itself amends nothing


def test_the_amended_agreement_is_proposed_and_not_a_look_alike() -> None:
    others = [
        Candidate.of("base", text(BASE)),
        # The same title, another date and other parties: not the one amended.
        Candidate.of(
            "other",
            "DEVELOPMENT AGREEMENT\nThis Development Agreement is made on June 1, 2015 between "
            'Acme Robotics, Inc. ("Acme") and Widget Labs LLC ("Widget").',
        ),
    ]
    got = propose(text(AMENDMENT), others)
    assert got is not None and got.key == "base"
    assert any("2010-04-15" in r for r in got.reasons)
    # Without the agreement in the matter, nothing is proposed rather than the look-alike.
    assert propose(text(AMENDMENT), others[1:]) is None


@pytest.mark.django_db
def test_a_link_is_proposed_whichever_arrives_first_and_a_person_accepts_it(client, matter, owner):
    amendment, _ = document_add(
        matter=matter, filename=AMENDMENT, data=demo_bytes(AMENDMENT), enqueue=False
    )
    document_index(document_id=amendment.pk)
    amendment.refresh_from_db()
    assert amendment.link_proposal["state"] == "none"  # its agreement is not here yet
    base, _ = document_add(matter=matter, filename=BASE, data=demo_bytes(BASE), enqueue=False)
    document_index(document_id=base.pk)
    amendment.refresh_from_db()
    proposal = amendment.link_proposal
    assert proposal["state"] == "proposed" and proposal["target"] == base.pk
    assert "April 15, 2010" in proposal["words"] and amendment.amends_id is None

    client.force_login(owner)
    listing = client.get(reverse("matter-detail", args=[matter.pk])).content.decode()
    assert "Proposed:" in listing and f"{base.key} ·" in listing
    page = client.get(reverse("document-detail", args=[amendment.pk])).content.decode()
    assert f"Amends {base.key}?" in page and "Accept the link" in page

    response = client.post(reverse("document-link", args=[amendment.pk]), {"accept": "1"})
    assert response.status_code == 302
    amendment.refresh_from_db()
    assert amendment.amends_id == base.pk and amendment.link_proposal["state"] == "accepted"
    event = AuditEvent.objects.get(action=DocumentVerb.LINK_REVIEWED)
    assert event.detail["accepted"] is True and event.detail["amends"] == base.key
    # Accepted is final: a second answer is refused with a reason, nothing changes.
    client.post(reverse("document-link", args=[amendment.pk]), {"accept": "0"})
    amendment.refresh_from_db()
    assert amendment.amends_id == base.pk


@pytest.mark.django_db
def test_a_rejected_link_is_not_proposed_again_and_outsiders_cannot_answer(client, matter, owner):
    base, _ = document_add(matter=matter, filename=BASE, data=demo_bytes(BASE), enqueue=False)
    document_index(document_id=base.pk)
    amendment, _ = document_add(
        matter=matter, filename=AMENDMENT, data=demo_bytes(AMENDMENT), enqueue=False
    )
    document_index(document_id=amendment.pk)
    outsider = MembershipFactory().user
    client.force_login(outsider)
    assert (
        client.post(reverse("document-link", args=[amendment.pk]), {"accept": "1"}).status_code
        == 404
    )
    viewer = MembershipFactory(matter=matter, role="viewer").user
    client.force_login(viewer)
    assert (
        client.post(reverse("document-link", args=[amendment.pk]), {"accept": "1"}).status_code
        == 403
    )
    client.force_login(owner)
    client.post(reverse("document-link", args=[amendment.pk]), {"accept": "0"})
    amendment.refresh_from_db()
    assert amendment.link_proposal["state"] == "rejected" and amendment.amends_id is None
    document_index(document_id=base.pk)  # indexing again does not bring it back
    from legalnav.documents.services import document_propose_links

    document_propose_links(document=amendment)
    amendment.refresh_from_db()
    assert amendment.link_proposal["state"] == "rejected"
    assert Document.objects.get(pk=amendment.pk).amends_id is None


def test_evaluate_links_reports_precision_and_recall(capsys) -> None:
    call_command("evaluate_links")
    out = capsys.readouterr().out
    assert "502 documents" in out and "16 gold links" in out and "in-sample" in out
    precision = float(out.split("precision ")[1].split(",")[0])
    recall = float(out.split("recall ")[1].split()[0])
    assert precision >= 0.9 and recall >= 0.75


@pytest.mark.django_db
def test_the_api_shows_the_proposal_and_takes_the_answer(client, matter, owner):
    from legalnav.api.tokens import api_token_create

    base, _ = document_add(matter=matter, filename=BASE, data=demo_bytes(BASE), enqueue=False)
    document_index(document_id=base.pk)
    amendment, _ = document_add(
        matter=matter, filename=AMENDMENT, data=demo_bytes(AMENDMENT), enqueue=False
    )
    document_index(document_id=amendment.pk)
    _, secret = api_token_create(user=owner, name="t")
    auth = {"HTTP_AUTHORIZATION": f"Bearer {secret}"}
    shown = client.get(f"/api/v1/documents/{amendment.pk}", **auth).json()["link_proposal"]
    assert shown["state"] == "proposed" and shown["target_id"] == base.pk
    assert "April 15, 2010" in shown["words"]
    url = f"/api/v1/documents/{amendment.pk}/link"
    bad = client.post(url, data="{}", content_type="application/json", **auth)
    assert bad.status_code == 422
    ok = client.post(url, data='{"accept": true}', content_type="application/json", **auth)
    assert ok.status_code == 200 and ok.json()["amends_id"] == base.pk
    again = client.post(url, data='{"accept": false}', content_type="application/json", **auth)
    assert again.status_code == 409 and again.json()["error"]["code"] == "nothing_proposed"
    event = AuditEvent.objects.get(action=DocumentVerb.LINK_REVIEWED)
    assert event.detail["via"] == "api"


@pytest.mark.django_db
def test_families_indexed_one_by_one_get_the_gold_links_and_no_others(matter):
    """The product's own path (each document proposed when it is indexed, the waiting ones
    checked again as others arrive), on real CUAD families in a data room's order: amendments
    of an agreement that is absent are never linked to one another, and a document titled only
    by its file name ("… SERVICES AGREEMENT_POWEROF") does not pass for the agreement."""
    import json
    from pathlib import Path

    from legalnav.evaluation import gold
    from legalnav.evaluation.links import GOLD

    data = gold.data_dir()
    truth = {r["document"]: r["amends"] for r in json.loads(GOLD.read_text())["links"]}
    names = sorted(
        str(p.relative_to(data))
        for prefix in (
            "GluMobileInc",
            "BellringBrandsInc",
            "CardlyticsInc",
            "FEDERATEDGOVERNMENT",
            "PcquoteComInc",
            "AzulSa",
            "ScansourceInc",
        )
        for p in (data / "cuad" / "contracts").glob(f"{prefix}*.txt")
    )
    # Amendments before the agreement they amend, as a data room's folders often put them.
    names = sorted(names, key=lambda n: ("1.txt" in n, n))
    docs = {}
    for name in names:
        doc, _ = document_add(
            matter=matter, filename=Path(name).name, data=(data / name).read_bytes(), enqueue=False
        )
        document_index(document_id=doc.pk)
        docs[name] = doc
    by_pk = {d.pk: n for n, d in docs.items()}
    got = {}
    for name, doc in docs.items():
        doc.refresh_from_db()
        if doc.link_proposal.get("state") == "proposed":
            got[name] = by_pk[doc.link_proposal["target"]]
    want = {n: t for n, t in truth.items() if n in docs and t}
    assert got == want


def test_an_amendment_is_never_proposed_as_the_agreement_another_amendment_amends():
    from legalnav.evaluation import gold

    folder = gold.data_dir() / "cuad" / "contracts"
    stem = "BellringBrandsInc_20190920_S-1_EX-10.12_11817081_EX-10.12_Manufacturing Agreement"
    first, second = ((folder / f"{stem}{n}.txt").read_text(encoding="utf-8") for n in (2, 3))
    # Amendment No. 1 names the same agreement, date and parties as No. 2 does: it shares
    # everything with what No. 2 amends, and is still not it (the agreement is not here).
    assert propose(second, [Candidate.of("first", first)]) is None
    assert propose(first, [Candidate.of("second", second)]) is None


@pytest.mark.django_db
def test_each_document_is_read_as_a_candidate_once_and_again_after_it_changes(matter, monkeypatch):
    """A data room indexed one document at a time asks for every other document's candidate
    whenever a new one names an instrument: each is read from its head once per process (the
    same proposals as reading them afresh), and read again once it changes."""
    from legalnav.documents import services
    from legalnav.documents.parsing import amends

    services._CANDIDATES.clear()
    read: list[str] = []
    real = amends.Candidate.of.__func__  # type: ignore[attr-defined]

    def counting(cls, key, *args, **kwargs):  # type: ignore[no-untyped-def]
        read.append(key)
        return real(cls, key, *args, **kwargs)

    monkeypatch.setattr(amends.Candidate, "of", classmethod(counting))
    base, _ = document_add(matter=matter, filename=BASE, data=demo_bytes(BASE), enqueue=False)
    document_index(document_id=base.pk)
    amendments = []
    for n in range(3):  # the amendment three times over, as copies in a data room are
        data = demo_bytes(AMENDMENT) + f"\n\nCopy {n}.\n".encode()
        doc, _ = document_add(matter=matter, filename=f"{n}-{AMENDMENT}", data=data, enqueue=False)
        document_index(document_id=doc.pk)
        amendments.append(doc)
    for doc in amendments:
        doc.refresh_from_db()
        assert doc.link_proposal["state"] == "proposed" and doc.link_proposal["target"] == base.pk
    # the base agreement was read as somebody's candidate once, however many amendments came
    assert read.count(str(base.pk)) == 1
    read.clear()
    Document.objects.filter(pk=base.pk).update(title="Renamed", updated_at=dt.datetime.now(dt.UTC))
    services._other_candidates(matter.pk, exclude=amendments[0].pk)
    assert read.count(str(base.pk)) == 1  # changed, so read again
    assert str(amendments[1].pk) not in read  # unchanged, kept
