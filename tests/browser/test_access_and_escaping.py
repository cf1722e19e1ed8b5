"""Sign-in, refusal of a non-member, and untrusted document text rendered as text."""

from __future__ import annotations

import pytest

from legalnav.documents.services import document_add, document_index
from tests.browser.conftest import shot, sign_in
from tests.conftest import MatterFactory, MembershipFactory

pytestmark = pytest.mark.django_db(transaction=True)

HOSTILE = (
    b"SERVICES AGREEMENT\n\n"
    b"1. Definitions. <script>window.__pwned = 1; alert('x')</script> "
    b'<img src=x onerror="window.__pwned = 2"> <b>bold?</b> applies to this Agreement.\n\n'
    b"2. Term. This Agreement lasts twelve (12) months from the Effective Date.\n"
)


def test_sign_in_shows_only_the_users_matters_and_refuses_another(page) -> None:
    mine = MembershipFactory(matter=MatterFactory(name="Atlas acquisition"))
    theirs = MembershipFactory(matter=MatterFactory(name="Zephyr secret merger"))
    page.goto("/")
    assert "/accounts/login/" in page.url  # anonymous: sent to sign in
    sign_in(page, mine.user.username)
    body = page.locator("body").inner_text()
    assert "Atlas acquisition" in body and "Zephyr secret merger" not in body
    shot(page, "matters-list")
    response = page.goto(f"/matters/{theirs.matter.pk}/")
    assert response is not None and response.status == 404
    assert "Zephyr" not in page.locator("body").inner_text()


def test_document_text_with_script_and_html_renders_as_text(page) -> None:
    member = MembershipFactory(matter=MatterFactory(name="Escaping"))
    doc, _ = document_add(matter=member.matter, filename="hostile.txt", data=HOSTILE, enqueue=False)
    assert document_index(document_id=doc.pk).status == "indexed"
    sign_in(page, member.user.username)
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(f"/documents/{doc.pk}/")
    page.wait_for_load_state("networkidle")
    text = page.locator("body").inner_text()
    assert "<script>window.__pwned = 1; alert('x')</script>" in text
    assert "<b>bold?</b>" in text
    assert page.evaluate("window.__pwned === undefined")
    assert dialogs == [] and page.js_errors == []
