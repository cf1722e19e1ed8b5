"""Playbook pages: the firm's playbooks (any signed-in user reads them, staff write them), and in a
matter the runs and the deviations view. Each view parses, calls one action or selector, renders;
the deviations view polls while its grid fills and stops (286) when it is done."""

from __future__ import annotations

import re
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, QueryDict
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from legalnav.core.views import live_page
from legalnav.matters.access import Action, matter_for
from legalnav.matters.models import Matter
from legalnav.review import actions, playbooks, selectors
from legalnav.review.actions import GridRejected
from legalnav.review.columns import ANSWER_TYPES, CUAD_COLUMNS
from legalnav.review.exports import FORMATS
from legalnav.review.models import Grid, Playbook
from legalnav.review.rules import KIND_LABELS, KINDS, SEVERITIES, VERDICT_LABELS

VIA = "page"
BLANK_ROWS = 3
PAGE_SIZE = 100


# --- the editor's form ----------------------------------------------------------------------------


def _split_values(text: str) -> list[str]:
    """'New York; Delaware' or one per line; commas only when nothing else separates them (a
    value may itself hold one: 'Ontario, Canada')."""
    parts = re.split(r"[;\n]", text) if re.search(r"[;\n]", text) else text.split(",")
    return [p.strip() for p in parts if p.strip()]


def positions_from_post(post: QueryDict) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """(positions as the action takes them, the rows as typed, for showing the form again).
    A row with no column is skipped; a row ticked "remove" is dropped."""
    numbers = sorted({int(m[1]) for k in post for m in [re.match(r"pos-(\d+)-", k)] if m}, key=int)
    raw: list[dict[str, Any]] = []
    rows: list[dict[str, str]] = []
    for n in numbers:
        field = {
            f: post.get(f"pos-{n}-{f}", "").strip()
            for f in ("key", "own_key", "question", "type", "kind", "value", "severity", "note")
        }
        if post.get(f"pos-{n}-remove"):
            continue
        key = field["own_key"] or field["key"]
        if not key:
            continue
        rows.append(field)
        kind, value = field["kind"] or "required", field["value"]
        if kind in ("required", "forbidden"):
            rule: dict[str, Any] = {kind: True}
        elif kind == "allowed":
            rule = {kind: _split_values(value)}
        else:
            rule = {kind: value}
        raw.append(
            {
                "key": key,
                "question": field["question"],
                "type": field["type"] or "clause",
                "rule": rule,
                "severity": field["severity"] or "medium",
                "note": field["note"],
            }
        )
    return raw, rows


def _rows_of(playbook: Playbook | None) -> list[dict[str, str]]:
    preset = {c.key for c in CUAD_COLUMNS}
    out = []
    for p in playbook.positions if playbook else []:
        ((kind, arg),) = p["rule"].items()
        value = "; ".join(arg) if kind == "allowed" else ("" if arg is True else str(arg))
        own = p["key"] not in preset
        out.append(
            {
                "key": "" if own else p["key"],
                "own_key": p["key"] if own else "",
                "question": p["question"] if own else "",
                "type": p["type"],
                "kind": kind,
                "value": value,
                "severity": p["severity"],
                "note": p.get("note", ""),
            }
        )
    return out


def _form_context(
    playbook: Playbook | None, rows: list[dict[str, str]], **extra: object
) -> dict[str, object]:
    blank = {"key": "", "own_key": "", "question": "", "type": "clause", "kind": "required",
             "value": "", "severity": "medium", "note": ""}  # fmt: skip
    return {
        "playbook": playbook,
        # At least BLANK_ROWS empty rows, and six rows in all to start a playbook with.
        "rows": rows + [dict(blank) for _ in range(max(BLANK_ROWS, 6 - len(rows)))],
        "presets": CUAD_COLUMNS,
        "types": ANSWER_TYPES,
        "kinds": [(k, KIND_LABELS[k]) for k in KINDS],
        "severities": SEVERITIES,
        **extra,
    }


# --- the firm's playbooks -------------------------------------------------------------------------


@login_required
@require_GET
def playbook_list(request: HttpRequest) -> HttpResponse:
    staff = request.user.is_staff
    return render(
        request,
        "review/playbooks.html",
        {"playbooks": list(playbooks.playbook_list(include_archived=staff)), "can_edit": staff},
    )


@login_required
@require_http_methods(["GET", "POST"])
def playbook_edit(request: HttpRequest, playbook_id: int | None = None) -> HttpResponse:
    """Write a playbook (staff). POST with ``more`` shows the form again with more blank rows;
    otherwise it saves a new version."""
    if not request.user.is_staff:
        raise PermissionDenied("Only staff write the firm's playbooks.")
    playbook = playbooks.playbook_get(playbook_id=playbook_id) if playbook_id else None
    if request.method == "GET":
        context = _form_context(playbook, _rows_of(playbook))
        context |= {
            "name": playbook.name if playbook else "",
            "description": playbook.description if playbook else "",
        }
        return render(request, "review/playbook_form.html", context)
    raw, rows = positions_from_post(request.POST)
    name, description = request.POST.get("name", ""), request.POST.get("description", "")
    if "more" in request.POST:
        context = _form_context(playbook, rows, name=name, description=description)
        return render(request, "review/playbook_form.html", context)
    try:
        saved = actions.playbook_save(
            user=request.user,
            playbook=playbook,
            name=name,
            description=description,
            positions=raw,
            via=VIA,
            archived=bool(request.POST.get("archived")),
        )
    except GridRejected as exc:
        context = _form_context(
            playbook, rows, name=name, description=description, error=exc.message
        )
        return render(request, "review/playbook_form.html", context, status=400)
    messages.success(request, f"Saved {saved.name}, version {saved.version}.")
    return HttpResponseRedirect(reverse("playbook-detail", args=[saved.pk]), status=303)


@login_required
@require_GET
def playbook_detail(request: HttpRequest, playbook_id: int) -> HttpResponse:
    playbook = playbooks.playbook_get(playbook_id=playbook_id)
    return render(
        request,
        "review/playbook.html",
        {
            "playbook": playbook,
            "positions": playbooks.positions_of(playbook.positions),
            "versions": list(playbook.versions.select_related("saved_by")[:50]),
            "matters": list(Matter.objects.visible_to(request.user).order_by("name")[:200]),
            "can_edit": request.user.is_staff,
        },
    )


# --- in a matter: apply, runs, deviations ---------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def matter_playbooks(request: HttpRequest, matter_id: int) -> HttpResponse:
    """The matter's playbook runs and the form that applies one (to all indexed documents, the
    ones ticked, or an existing grid)."""
    matter = matter_for(user=request.user, matter_id=matter_id, action=Action.VIEW)
    context: dict[str, object] = {
        "matter": matter,
        "runs": list(playbooks.run_list(matter=matter)[:100]),
        "playbooks": list(playbooks.playbook_list()),
        "grids": list(selectors.grid_list(matter=matter)[:50]),
        "documents": list(selectors.indexed_documents(matter=matter)),
        "crumb": "Playbooks",
        "modes": Grid.Mode.choices,
    }
    if request.method == "GET":
        return render(request, "review/runs.html", context)
    matter = matter_for(user=request.user, matter_id=matter_id, action=Action.ASK)
    status = 400
    try:
        playbook = playbooks.playbook_get(playbook_id=request.POST.get("playbook"))
        grid_id = request.POST.get("grid", "")
        grid = selectors.grid_get(matter=matter, grid_id=grid_id) if grid_id else None
        ids = [int(x) for x in request.POST.getlist("documents") if x.isdigit()] or None
        run = actions.playbook_apply(
            matter=matter,
            user=request.user,
            playbook=playbook,
            document_ids=ids,
            grid=grid,
            via=VIA,
            mode=request.POST.get("mode") or Grid.Mode.OFFLINE,
        )
    except GridRejected as exc:
        context["error"] = exc.message
    except actions.RateLimited as exc:
        context["error"], status = exc.decision.message, 429
    except actions.JobQueueDown as exc:
        messages.error(request, str(exc))
        return HttpResponseRedirect(reverse("grid-detail", args=[matter.pk, exc.item.pk]), 303)
    else:
        return HttpResponseRedirect(reverse("playbook-run", args=[matter.pk, run.pk]), status=303)
    return render(request, "review/runs.html", context, status=status)


@login_required
@require_GET
def run_detail(request: HttpRequest, matter_id: int, run_id: int) -> HttpResponse:
    """The deviations view: per position the counts (high severity first), then the verdicts
    filtered and paged in the database. Polls while the grid fills."""
    matter = matter_for(user=request.user, matter_id=matter_id, action=Action.VIEW)
    run = playbooks.run_get(matter=matter, run_id=run_id)
    playbooks.run_refresh(run=run)
    grid = run.grid
    f = {k: request.GET.get(k, "") for k in ("verdict", "severity", "position", "document")}
    if "verdict" not in request.GET:
        f["verdict"] = "problems"
    page = Paginator(playbooks.verdicts_filtered(run=run, **f), PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    filling = grid.status in (Grid.Status.QUEUED, Grid.Status.RUNNING) and not selectors.grid_stale(
        grid
    )
    context = {
        "matter": matter,
        "run": run,
        "grid": grid,
        "summary": playbooks.run_summary(run=run),
        "counts": playbooks.run_document_counts(run=run),
        "worst": playbooks.run_documents(run=run),
        "page": page,
        "filters": f,
        "verdict_choices": [("problems", "All but meets"), *VERDICT_LABELS.items(), ("", "All")],
        "severities": SEVERITIES,
        "positions": playbooks.positions_of(run.version.positions),
        "verdict_labels": VERDICT_LABELS,
        "filling": filling,
        "formats": [f for f in FORMATS if f != "csv"],
        "crumb": f"Playbook {run.version.name} v{run.version.number}",
        "query": request.GET.urlencode(),
    }
    poll = bool(getattr(request, "htmx", False))
    return live_page(request, "review/run.html#run_live", context, poll=poll, running=filling)
