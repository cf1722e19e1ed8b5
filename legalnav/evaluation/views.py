"""Evaluation pages: the runs a user may see, one run (or several side by side) with metrics,
intervals and the recall-against-footprint chart, and a question's drill-down into every mode's
answer, citations, retrieved text and the judge's verdicts.

Login required; a run is visible to staff and to the user who created it (404 otherwise).
Views parse input, call a selector or an action (``evaluation.actions``: retry and cancel,
audited) and render; nothing here computes a metric.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from legalnav.core import jobs
from legalnav.evaluation import actions, selectors

MAX_COMPARED = 4
VIA = "page"


@login_required
@require_GET
def run_list(request: HttpRequest) -> HttpResponse:
    runs = selectors.runs_visible(user=request.user)[:200]
    return render(request, "evaluation/list.html", {"runs": runs})


def _summary_context(runs: list) -> dict[str, object]:  # type: ignore[type-arg]
    return {
        "runs": runs,
        "tables": selectors.metric_tables(runs=runs),
        "answers": selectors.answer_rows(runs=runs),
        "judged": selectors.judged_rows(runs=runs),
        "chart": selectors.recall_chart(runs=runs),
    }


@login_required
@require_GET
def run_detail(request: HttpRequest, run_id: int) -> HttpResponse:
    run = selectors.run_get(user=request.user, run_id=run_id)
    only = "misses" if request.GET.get("only") == "misses" else ""
    context = _summary_context([run])
    spec = jobs.spec_for("evaluation")
    context.update(
        run=run,
        stale=jobs.is_stale(spec, run),
        can_retry=jobs.can_retry(spec, run),
        can_cancel=jobs.can_cancel(spec, run),
        only=only,
        questions=selectors.question_page(run=run, page=request.GET.get("page", 1), only=only),
    )
    if request.htmx:  # type: ignore[attr-defined]  # django-htmx middleware
        return render(request, "evaluation/run.html#questions", context)
    return render(request, "evaluation/run.html", context)


@login_required
@require_POST
def run_retry(request: HttpRequest, run_id: int) -> HttpResponse:
    """Resume an interrupted, failed, cancelled or stalled run in the background."""
    run = selectors.run_get(user=request.user, run_id=run_id)
    try:
        if actions.evaluation_retry(run=run, user=request.user, via=VIA):
            messages.success(request, f"Run {run.pk} is queued; it resumes where it stopped.")
        else:
            messages.info(request, f"Run {run.pk} is {run.get_status_display().lower()}.")
    except jobs.QueueUnavailable:
        messages.error(request, jobs.QueueUnavailable.message)
    return redirect("evaluation-run", run_id=run.pk)


@login_required
@require_POST
def run_cancel(request: HttpRequest, run_id: int) -> HttpResponse:
    run = selectors.run_get(user=request.user, run_id=run_id)
    if actions.evaluation_cancel(run=run, user=request.user, via=VIA):
        messages.success(request, f"Run {run.pk} is cancelled; what it finished is kept.")
    else:
        messages.info(request, f"Run {run.pk} is {run.get_status_display().lower()}.")
    return redirect("evaluation-run", run_id=run.pk)


@login_required
@require_GET
def run_compare(request: HttpRequest) -> HttpResponse:
    """Runs side by side: ?runs=3&runs=5 (each must be visible to the user)."""
    ids = list(dict.fromkeys(request.GET.getlist("runs")))[:MAX_COMPARED]
    if not ids:
        raise Http404("Choose runs to compare.")
    runs = [selectors.run_get(user=request.user, run_id=i) for i in ids]
    return render(request, "evaluation/compare.html", _summary_context(runs))


@login_required
@require_GET
def run_item(request: HttpRequest, run_id: int) -> HttpResponse:
    """One question (?id=...) in every mode of the run, side by side."""
    run = selectors.run_get(user=request.user, run_id=run_id)
    item_id = request.GET.get("id", "")[:400]
    rows, verdicts = selectors.item_detail(run=run, item_id=item_id)
    return render(
        request,
        "evaluation/item.html",
        {"run": run, "item_id": item_id, "rows": rows, "first": rows[0], "verdicts": verdicts},
    )
