"""``jobs.run_claimed``: the claim, then the work inside ``guard``, which every job's function
shares (answering, indexing, filling a grid)."""

from __future__ import annotations

import pytest
from django.db import OperationalError

from legalnav.answers.models import Question
from legalnav.answers.services import query_create
from legalnav.core import jobs

pytestmark = pytest.mark.django_db


@pytest.fixture
def spec():
    return jobs.spec_for("question")


def question(matter) -> Question:
    return query_create(
        matter=matter, user=None, question="What is the term?", mode="navembed", enqueue=False
    )


def test_a_claimed_job_runs_the_work_with_its_lease_and_returns_what_it_returned(matter, spec):
    q = question(matter)
    seen = []

    def work(lease):
        seen.append(lease)
        assert lease.owner == "worker-1" and lease.pk == q.pk and lease.attempts == 1
        lease.finish()
        return "answered"

    assert jobs.run_claimed(spec, q.pk, owner="worker-1", work=work) == "answered"
    assert len(seen) == 1 and isinstance(seen[0], jobs.Lease)
    q.refresh_from_db()
    assert q.status == spec.done and q.lease_owner == ""


@pytest.mark.parametrize("held", ["final", "busy", "gone"])
def test_a_refused_claim_returns_the_refusal_and_never_runs_the_work(matter, spec, held):
    q = question(matter)
    pk = q.pk
    if held == "final":
        Question.objects.filter(pk=pk).update(status="done")
    elif held == "busy":
        assert isinstance(jobs.job_claim(spec, pk, owner="someone-else"), jobs.Lease)
    else:
        q.delete()
    calls = []

    outcome = jobs.run_claimed(spec, pk, owner="worker-1", work=calls.append)

    assert isinstance(outcome, jobs.Refusal) and outcome.reason == held
    assert calls == []
    if held == "busy":  # the other worker still holds it
        assert Question.objects.get(pk=pk).lease_owner == "someone-else"


def test_an_error_in_the_work_fails_the_row_with_a_reason_as_guard_does(matter, spec):
    q = question(matter)

    def work(lease):
        raise RuntimeError("the parser choked")

    assert jobs.run_claimed(spec, q.pk, owner="worker-1", work=work) is None
    q.refresh_from_db()
    code, message = jobs.failure_reason(spec, RuntimeError("the parser choked"))
    assert q.status == "failed" and q.lease_owner == "" and q.lease_expires_at is None
    assert q.error_code == code == "error"
    assert q.error_message == message and "the parser choked" in message


def test_a_lost_job_stops_quietly_and_writes_nothing(matter, spec):
    q = question(matter)

    def work(lease):
        jobs.job_cancel(spec, q.pk, by="a reviewer")
        lease.check()  # raises JobLost
        raise AssertionError("not reached")

    assert jobs.run_claimed(spec, q.pk, owner="worker-1", work=work) is None
    q.refresh_from_db()
    assert q.status == "cancelled" and "a reviewer" in q.error_message


def test_the_errors_to_reraise_go_up_with_the_lease_still_held(matter, spec):
    q = question(matter)

    def work(lease):
        raise OperationalError("database is locked")

    with pytest.raises(OperationalError):
        jobs.run_claimed(spec, q.pk, owner="worker-1", work=work, reraise=jobs.TRANSIENT)
    q.refresh_from_db()
    assert q.status == "running" and q.lease_owner == "worker-1"

    # Without ``reraise`` the same error fails the row, as guard does.
    other = question(matter)
    assert jobs.run_claimed(spec, other.pk, owner="worker-1", work=work) is None
    other.refresh_from_db()
    assert other.status == "failed" and other.error_code == "database_busy"
