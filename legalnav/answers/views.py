"""Pages for asking, answers, history, comparison and memos. Each view checks access through
``matter_for`` first (404 for a non-member), then looks the question up within that matter, calls
one service or selector and renders. An htmx request gets the fragment of the same template.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.middleware import HtmxDetails

from legalnav.answers import actions, report, selectors, spend
from legalnav.answers.actions import MAX_QUESTION_CHARS, QuestionRejected
from legalnav.answers.memo import MemoUnavailable
from legalnav.answers.models import Question
from legalnav.answers.spend import SpendDecision
from legalnav.core import jobs
from legalnav.core.limits import RateDecision
from legalnav.core.views import live_page
from legalnav.matters.access import Action, matter_for
from legalnav.matters.models import Matter

if TYPE_CHECKING:
    from django.contrib.auth.models import User

MODES = Question.Mode.choices


class HtmxHttpRequest(HttpRequest):
    """A request as django-htmx's middleware leaves it (for the type checker)."""

    htmx: HtmxDetails


def _ask_context(matter: Matter, user: User, **extra: object) -> dict[str, object]:
    context: dict[str, object] = {
        "matter": matter,
        "modes": MODES,
        "question": "",
        "mode": Question.Mode.AUTO,
        "recent": selectors.recent_queries(matter=matter),
        # The spend against each cap that is set (the ask page's "Spending" note).
        "spend": spend.spend_status(matter=matter, user=user, capped_only=True),
    }
    context.update(extra)
    return context


def _answer_context(matter: Matter, query: Question, **extra: object) -> dict[str, object]:
    """What the answer page and its live fragment render from, wherever they are rendered."""
    page = report.answer_page(query=query)
    # Where the matter and the asker stand against each spending cap that is set (cost panel).
    caps = spend.spend_status(matter=matter, user=query.asked_by, capped_only=True)
    return {"matter": matter, "page": page, "modes": MODES, "spend": caps, **extra}


def _matter_query(
    request: HtmxHttpRequest, matter_id: int, query_id: int, action: Action
) -> tuple[Matter, Question]:
    """The matter, if the user may take ``action`` in it, and its question (404 or 403
    otherwise)."""
    matter = matter_for(user=request.user, matter_id=matter_id, action=action)
    return matter, selectors.query_get(matter=matter, query_id=query_id)


def _refused(
    request: HtmxHttpRequest,
    matter: Matter,
    *,
    message: str,
    status: int,
    question: str,
    mode: str,
    decision: RateDecision | SpendDecision | None = None,
) -> HttpResponse:
    """The ask form's answer to a question it did not take: the message, the question kept."""
    if request.htmx:
        response = render(
            request, "answers/ask.html#ask_error", {"message": message}, status=status
        )
    else:
        context = _ask_context(matter, request.user, question=question, mode=mode, error=message)
        response = render(request, "answers/ask.html", context, status=status)
    if decision is not None and not decision.allowed:
        response["Retry-After"] = str(decision.retry_after)
    return response


@login_required
@require_http_methods(["GET", "POST"])
def matter_ask(request: HtmxHttpRequest, matter_id: int) -> HttpResponse:
    """The question box. POST asks: rate-limited per user, audited, answered by the worker."""
    matter = matter_for(user=request.user, matter_id=matter_id, action=Action.ASK)
    if request.method == "GET":
        mode = request.GET.get("mode", Question.Mode.AUTO)
        context = _ask_context(
            matter,
            request.user,
            question=request.GET.get("question", "")[:MAX_QUESTION_CHARS],
            mode=mode if mode in Question.Mode.values else Question.Mode.AUTO,
        )
        return render(request, "answers/ask.html", context)

    question = request.POST.get("question", "")
    mode = request.POST.get("mode", Question.Mode.AUTO)
    try:
        query = actions.question_ask(
            matter=matter, user=request.user, question=question, mode=mode, via="page"
        )
    except actions.RateLimited as exc:
        return _refused(
            request,
            matter,
            message=exc.decision.message,
            status=429,
            question=question,
            mode=mode,
            decision=exc.decision,
        )
    except QuestionRejected as exc:
        return _refused(
            request,
            matter,
            message=str(exc),
            status=422 if request.htmx else 400,
            question=question,
            mode=mode,
        )
    except actions.JobQueueDown as exc:
        # Saved, marked failed with the reason, retryable: show it, with a 503 and Retry-After.
        url = reverse("answer-detail", args=[matter.pk, exc.item.pk])
        template = "answers/detail.html#answer_live" if request.htmx else "answers/detail.html"
        response = render(
            request, template, _answer_context(matter, exc.item, notice=exc.message), status=503
        )
        response["Retry-After"] = str(exc.retry_after)
        if request.htmx:
            response["HX-Push-Url"] = url
        return response
    url = reverse("answer-detail", args=[matter.pk, query.pk])
    if not request.htmx:
        return HttpResponseRedirect(url, status=303)
    # The answer is being worked on in the background: the fragment polls until it is done.
    query = selectors.query_get(matter=matter, query_id=query.pk)
    response = render(request, "answers/detail.html#answer_live", _answer_context(matter, query))
    response["HX-Push-Url"] = url
    return response


@login_required
@require_GET
def answer_detail(request: HtmxHttpRequest, matter_id: int, query_id: int) -> HttpResponse:
    """A question and its answer. The htmx poll gets the fragment, and 286 once it has ended or
    stalled. A poll of a question nobody is working on restarts it (the sweeper, at once)."""
    matter = matter_for(user=request.user, matter_id=matter_id, action=Action.VIEW)
    query = jobs.job_poll_check("question", selectors.query_get(matter=matter, query_id=query_id))
    context = _answer_context(matter, query)
    poll = bool(request.htmx)
    done = context["page"].done  # type: ignore[attr-defined]
    return live_page(
        request, "answers/detail.html#answer_live", context, poll=poll, running=not done
    )


def _job_response(
    request: HtmxHttpRequest,
    matter: Matter,
    query: Question,
    *,
    notice: str = "",
    status: int = 200,
    retry_after: int | None = None,
) -> HttpResponse:
    url = reverse("answer-detail", args=[matter.pk, query.pk])
    if not request.htmx and status == 200:
        return HttpResponseRedirect(url, status=303)
    query = selectors.query_get(matter=matter, query_id=query.pk)
    context = _answer_context(matter, query, notice=notice)
    template = "answers/detail.html#answer_live" if request.htmx else "answers/detail.html"
    response = render(request, template, context, status=status)
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    return response


@login_required
@require_POST
def answer_retry(request: HtmxHttpRequest, matter_id: int, query_id: int) -> HttpResponse:
    """Send a failed, cancelled or stalled question again (counts against the asking rate)."""
    matter, query = _matter_query(request, matter_id, query_id, Action.ASK)
    try:
        actions.question_retry(matter=matter, user=request.user, query=query, via="page")
    except actions.RateLimited as exc:
        return _job_response(
            request,
            matter,
            query,
            notice=exc.decision.message,
            status=429,
            retry_after=exc.decision.retry_after,
        )
    except actions.JobQueueDown as exc:
        return _job_response(
            request, matter, query, notice=exc.message, status=503, retry_after=exc.retry_after
        )
    return _job_response(request, matter, query)


@login_required
@require_POST
def answer_cancel(request: HtmxHttpRequest, matter_id: int, query_id: int) -> HttpResponse:
    """Cancel a queued, running or stalled question."""
    matter, query = _matter_query(request, matter_id, query_id, Action.ASK)
    actions.question_cancel(matter=matter, user=request.user, query=query, via="page")
    return _job_response(request, matter, query)


@login_required
@require_GET
def answer_citation(
    request: HtmxHttpRequest, matter_id: int, query_id: int, citation_id: int
) -> HttpResponse:
    """A cited provision verbatim in its context (the side panel; a page of its own without
    htmx)."""
    matter, query = _matter_query(request, matter_id, query_id, Action.VIEW)
    citation = selectors.citation_get(query=query, citation_id=citation_id)
    context = {
        "matter": matter,
        "query": query,
        "ctx": selectors.provision_context(query=query, citation=citation),
    }
    template = "answers/citation.html#panel" if request.htmx else "answers/citation.html"
    return render(request, template, context)


def _history(request: HtmxHttpRequest, matter: Matter, **extra: object) -> dict[str, object]:
    page = selectors.history_page(matter=matter, page=request.GET.get("page"))
    rows = []
    for query in page.object_list:
        answer = selectors.answer_of(query)
        rows.append((query, answer, selectors.answer_excerpt(answer.text) if answer else ""))
    return {"matter": matter, "page": page, "rows": rows, "modes": MODES, **extra}


@login_required
@require_GET
def matter_history(request: HtmxHttpRequest, matter_id: int) -> HttpResponse:
    """A matter's past questions: answer excerpt, mode, cost, who asked and when."""
    matter = matter_for(user=request.user, matter_id=matter_id, action=Action.VIEW)
    return render(request, "answers/history.html", _history(request, matter))


@login_required
@require_GET
def answer_compare(request: HtmxHttpRequest, matter_id: int) -> HttpResponse:
    """Two answers of the matter side by side (``?q=<id>&q=<id>``)."""
    matter = matter_for(user=request.user, matter_id=matter_id, action=Action.VIEW)
    try:
        comparison = report.answers_compare(matter=matter, ids=request.GET.getlist("q"))
    except ValueError as exc:  # not exactly two: the history again, with the reason
        context = _history(request, matter, error=str(exc))
        return render(request, "answers/history.html", context, status=400)
    return render(
        request, "answers/compare.html", {"matter": matter, "cmp": comparison, "modes": MODES}
    )


@login_required
@require_POST
def answer_memo(request: HtmxHttpRequest, matter_id: int, query_id: int) -> HttpResponse:
    """The question, its answer and every cited provision as a PDF (any member may export).

    POST (with the CSRF token), not GET: an export writes an audit row, and a GET must change
    nothing (a prefetching browser, a crawler or an <img src> on another site could otherwise
    fill the trail with exports nobody made). GET answers 405, whoever asks, so it reveals
    nothing about the matter."""
    matter, query = _matter_query(request, matter_id, query_id, Action.VIEW)
    try:
        memo = actions.memo_export(matter=matter, query=query, user=request.user, via="page")
    except MemoUnavailable as exc:
        return HttpResponse(str(exc), status=409, content_type="text/plain; charset=utf-8")
    except actions.RateLimited as exc:
        refused = HttpResponse(
            exc.decision.message, status=429, content_type="text/plain; charset=utf-8"
        )
        refused["Retry-After"] = str(exc.decision.retry_after)
        return refused
    response = HttpResponse(memo.pdf, content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="{memo.filename}"'
    return response


@staff_member_required
@require_GET
def spend_overview(request: HttpRequest) -> HttpResponse:
    """What Claude cost today and this month, by matter and by the user who asked (staff)."""
    return render(request, "answers/spend.html", spend.spend_overview())
