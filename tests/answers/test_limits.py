"""Limits and spending caps on the pages: memo exports and sign-in are limited, a question past
a user's or a matter's spending cap is refused with the cap's message (nothing saved), the ask
page shows the spend against each cap, and staff see spend by matter and by user."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.cache import cache
from django.urls import reverse

from legalnav.answers.models import Question
from legalnav.answers.services import query_create
from legalnav.llm.models import LLMCall
from legalnav.matters.models import Membership
from tests.answers.test_views import QUESTION, answered_plain
from tests.conftest import MatterFactory, MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_limits():
    cache.clear()
    yield
    cache.clear()


def _charge(dollars: str, *, matter_id=None, query_id=None) -> LLMCall:
    return LLMCall.objects.create(
        provider="claude",
        model="claude-sonnet-4-6",
        purpose="answer",
        dollars=Decimal(dollars),
        matter_id=matter_id,
        query_id=query_id,
    )


def test_a_question_past_the_users_monthly_cap_is_refused_with_its_message(
    client, matter, owner, settings
):
    settings.LEGALNAV_SPEND_CAP_USER_MONTH = 2.50
    elsewhere = MatterFactory()  # a user's spend counts wherever they asked
    earlier = query_create(matter=elsewhere, user=owner, question="Earlier?", enqueue=False)
    _charge("2.75", matter_id=elsewhere.pk, query_id=earlier.pk)
    client.force_login(owner)
    ask = reverse("matter-ask", args=[matter.pk])
    refused = client.post(ask, {"question": QUESTION, "mode": "auto"}, HTTP_HX_REQUEST="true")
    assert refused.status_code == 429
    text = refused.content.decode()
    assert "You have spent $2.75 of your $2.50 monthly cap; it resets at 00:00 UTC on 1 " in text
    assert int(refused["Retry-After"]) >= 1
    assert Question.objects.filter(matter=matter).count() == 0
    # The ask page says where the user stands against the cap.
    page = client.get(ask).content.decode()
    assert "Spending caps:" in page and "you this month $2.75 of $2.50" in page
    # A colleague in the same matter is not held by the user's cap.
    colleague = MembershipFactory(matter=matter, role=Membership.Role.EDITOR).user
    client.force_login(colleague)
    assert client.post(ask, {"question": QUESTION}).status_code == 303


def test_the_matters_daily_cap_refuses_asking_and_retrying(client, matter, owner, settings):
    settings.LEGALNAV_SPEND_CAP_MATTER_DAY = 1.00
    shown = answered_plain(matter, owner)
    failed = answered_plain(matter, owner)
    Question.objects.filter(pk=failed.pk).update(status=Question.Status.FAILED)
    _charge("0.40", matter_id=matter.pk)  # indexing enrichment counts against the matter too
    _charge("0.60", matter_id=matter.pk, query_id=failed.pk)
    _charge("9.00", matter_id=MatterFactory().pk)  # another matter's spend does not
    client.force_login(owner)
    ask = reverse("matter-ask", args=[matter.pk])
    page = client.post(ask, {"question": "Who are the parties?"})
    assert page.status_code == 429
    message = "This matter has spent $1.00 of its $1.00 daily cap; it resets at 00:00 UTC on "
    assert message in page.content.decode()
    assert "Who are the parties?" in page.content.decode()  # what was typed is kept
    retry = client.post(reverse("answer-retry", args=[matter.pk, failed.pk]))
    assert retry.status_code == 429 and message in retry.content.decode()
    assert Question.objects.count() == 2
    # The answer's cost panel says where the matter stands against its cap.
    answered = client.get(reverse("answer-detail", args=[matter.pk, shown.pk])).content.decode()
    assert "Spending caps: this matter today $1.00 of $1.00 <strong>(reached; resets at" in answered
    settings.LEGALNAV_SPEND_CAP_MATTER_DAY = 0  # 0: no cap
    assert client.post(ask, {"question": "Who are the parties?"}).status_code == 303


def test_memo_export_is_limited(client, matter, owner, settings):
    settings.LEGALNAV_EXPORT_RATE_PER_MINUTE = 2
    query = answered_plain(matter, owner)
    client.force_login(owner)
    url = reverse("answer-memo", args=[matter.pk, query.pk])
    assert [client.post(url).status_code for _ in range(2)] == [200, 200]
    refused = client.post(url)
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    assert refused.content.decode().startswith(
        "You have made 2 memo exports in the last minute, the most allowed. Try again in "
    )


def test_failed_sign_ins_are_limited_per_username_and_address(client, settings):
    settings.LEGALNAV_SIGNIN_FAILURES_PER_MINUTE = 3
    UserFactory(username="rita")
    login = reverse("login")
    for _ in range(3):
        wrong = client.post(login, {"username": "rita", "password": "guess"})
        assert wrong.status_code == 200 and "did not match" in wrong.content.decode()
    # The right password is not even checked now.
    refused = client.post(login, {"username": "rita", "password": "pw-for-tests"})
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    text = refused.content.decode()
    assert "This username has had 3 failed sign-ins from your address in the last minute" in text
    assert 'value="rita"' in text and "_auth_user_id" not in client.session
    # Another username from the same address, or the same one from another, is not held.
    UserFactory(username="sam")
    assert client.post(login, {"username": "sam", "password": "pw-for-tests"}).status_code == 302
    elsewhere = client.post(
        login, {"username": "rita", "password": "pw-for-tests"}, REMOTE_ADDR="10.0.0.9"
    )
    assert elsewhere.status_code == 302


def test_spraying_usernames_from_one_address_or_one_username_from_many_is_limited(client, settings):
    settings.LEGALNAV_SIGNIN_FAILURES_PER_ADDRESS_PER_MINUTE = 4
    settings.LEGALNAV_SIGNIN_FAILURES_PER_ACCOUNT_PER_MINUTE = 3
    UserFactory(username="uma")
    login = reverse("login")
    # One guess each at four usernames from one address: no username reaches its own limit.
    for name in ("ann", "bob", "cat", "dan"):
        assert client.post(login, {"username": name, "password": "guess"}).status_code == 200
    refused = client.post(login, {"username": "uma", "password": "pw-for-tests"})
    assert refused.status_code == 429
    assert "Your address has had 4 failed sign-ins in the last minute" in refused.content.decode()
    # One username guessed from three addresses: the fourth, with the right password, waits.
    for n in range(3):
        wrong = client.post(
            login, {"username": "uma", "password": "guess"}, REMOTE_ADDR=f"10.1.0.{n}"
        )
        assert wrong.status_code == 200
    held = client.post(
        login, {"username": "uma", "password": "pw-for-tests"}, REMOTE_ADDR="10.1.0.9"
    )
    assert held.status_code == 429 and "_auth_user_id" not in client.session


def test_every_sign_in_attempt_counts(client, settings):
    settings.LEGALNAV_SIGNIN_RATE_PER_MINUTE = 2
    UserFactory(username="tom")
    login = reverse("login")
    for _ in range(2):
        assert (
            client.post(login, {"username": "tom", "password": "pw-for-tests"}).status_code == 302
        )
        client.logout()
    refused = client.post(login, {"username": "tom", "password": "pw-for-tests"})
    assert refused.status_code == 429
    assert "This username has made 2 sign-in attempts from your address" in refused.content.decode()


def test_staff_see_spend_by_matter_and_by_user(client, matter, owner):
    query = query_create(matter=matter, user=owner, question="Q?", enqueue=False)
    _charge("1.25", matter_id=matter.pk, query_id=query.pk)
    _charge("0.50", matter_id=matter.pk)
    url = reverse("spend-overview")
    client.force_login(owner)
    assert client.get(url).status_code == 302  # to the admin sign-in: staff only
    staff = UserFactory(username="boss", is_staff=True)
    client.force_login(staff)
    page = client.get(url)
    assert page.status_code == 200
    text = page.content.decode()
    assert matter.name in text and "$1.75" in text  # the matter, today and this month
    assert owner.get_username() in text and "$1.25" in text  # the user who asked
