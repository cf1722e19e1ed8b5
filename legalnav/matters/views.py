"""Pages for matters: creating one, its members, its audit trail and its life (close, reopen,
retention, purge; staff's list of matters due for purge). The list of matters, with their
documents, is in ``legalnav.documents.views``.

Views parse input, check access through ``matter_for`` (404 for non-members, 403 for a weak
role), call one action (``matters.actions``: access, the change and its audit row) or selector and
render. Forms post back with a CSRF token and redirect
after success, so a reload never repeats a change.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from legalnav.matters import actions, selectors
from legalnav.matters.access import Action, can, is_admin, matter_for
from legalnav.matters.audit import audit_list, matter_verbs
from legalnav.matters.forms import (
    MatterForm,
    MemberAddForm,
    MemberRoleForm,
    RetentionForm,
    TypedNameForm,
)
from legalnav.matters.models import AuditEvent, Matter, Membership

AUDIT_PAGE_SIZE = 50
VIA = "page"


@login_required
@require_http_methods(["GET", "POST"])
def matter_create(request: HttpRequest) -> HttpResponse:
    """Any signed-in user may open a matter; they become its owner and see only what they add."""
    form = MatterForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        matter = actions.matter_open(user=request.user, via=VIA, **form.cleaned_data)
        messages.success(request, f"Created “{matter.name}”. Upload its documents below.")
        return redirect("matter-detail", matter_id=matter.pk)
    return render(
        request, "matters/create.html", {"form": form}, status=400 if form.errors else 200
    )


def _members_page(
    request: HttpRequest, matter: Matter, add_form: MemberAddForm, status: int = 200
) -> HttpResponse:
    context = {
        "matter": matter,
        "memberships": list(selectors.membership_list(matter=matter)),
        "add_form": add_form,
        "roles": Membership.Role.choices,
    }
    return render(request, "matters/members.html", context, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def matter_members(request: HttpRequest, matter_id: int) -> HttpResponse:
    """Who is in the matter; owners (and admins) add people here."""
    matter = matter_for(user=request.user, matter_id=matter_id, action=Action.MANAGE)
    form = MemberAddForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            membership = actions.member_add(
                matter=matter, user=request.user, via=VIA, **form.cleaned_data
            )
        except actions.MembershipError as exc:
            form.add_error("username", exc.message)
        else:
            messages.success(
                request,
                f"Added {membership.user.get_username()} as {membership.get_role_display().lower()}.",
            )
            return redirect("matter-members", matter_id=matter.pk)
    return _members_page(request, matter, form, status=400 if form.errors else 200)


@login_required
@require_POST
def member_update(request: HttpRequest, matter_id: int, membership_id: int) -> HttpResponse:
    matter = matter_for(user=request.user, matter_id=matter_id, action=Action.MANAGE)
    form = MemberRoleForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose owner, editor or viewer.")
        return redirect("matter-members", matter_id=matter.pk)
    try:
        membership = actions.member_change_role(
            matter=matter,
            user=request.user,
            membership_id=membership_id,
            role=form.cleaned_data["role"],
            via=VIA,
        ).membership
    except actions.MembershipError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            f"{membership.user.get_username()} is now {membership.get_role_display().lower()}.",
        )
    return _after_membership_change(request, matter)


@login_required
@require_POST
def member_remove(request: HttpRequest, matter_id: int, membership_id: int) -> HttpResponse:
    matter = matter_for(user=request.user, matter_id=matter_id, action=Action.MANAGE)
    try:
        removed = actions.member_remove(
            matter=matter, user=request.user, membership_id=membership_id, via=VIA
        )
    except actions.MembershipError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, f"Removed {removed.user.get_username()} from the matter.")
    return _after_membership_change(request, matter)


def _after_membership_change(request: HttpRequest, matter: Matter) -> HttpResponse:
    # An owner who demoted or removed themselves can no longer manage members: go where they may.
    if can(user=request.user, matter=matter, action=Action.MANAGE):
        return redirect("matter-members", matter_id=matter.pk)
    if can(user=request.user, matter=matter, action=Action.VIEW):
        return redirect("matter-detail", matter_id=matter.pk)
    return redirect("matter-list")


@login_required
@require_http_methods(["GET"])
def matter_audit(request: HttpRequest, matter_id: int) -> HttpResponse:
    """The matter's audit trail, newest first, for its owners and admins."""
    matter = matter_for(user=request.user, matter_id=matter_id, action=Action.MANAGE)
    events = audit_list(matter=matter)
    action = request.GET.get("action", "")
    if action in dict(matter_verbs()):
        events = events.filter(action=action)
    else:
        action = ""
    page = Paginator(events, AUDIT_PAGE_SIZE).get_page(request.GET.get("page"))
    context = {
        "matter": matter,
        "page": page,
        "action": action,
        "actions": matter_verbs(),  # what belongs to no matter never appears in a trail
    }
    return render(request, "matters/audit.html", context)


# --- a matter's life: close, reopen, retention, purge ---------------------------------------------


@login_required
@require_http_methods(["GET"])
def matter_life(request: HttpRequest, matter_id: int) -> HttpResponse:
    """Close or reopen the matter, set its retention date, ask for its purge (owners)."""
    matter = matter_for(user=request.user, matter_id=matter_id, action=Action.MANAGE)
    context = {
        "matter": matter,
        "retention_form": RetentionForm(initial={"retain_until": matter.retain_until}),
        "name_form": TypedNameForm(),
        "busy": selectors.open_work(matter) if matter.is_open else [],
        "purged_event": _purged_event(matter),
    }
    return render(request, "matters/life.html", context)


def _purged_event(matter: Matter) -> AuditEvent | None:
    if not matter.is_purged:
        return None
    return (
        AuditEvent.objects.filter(
            matter__isnull=True, action=AuditEvent.Action.PURGED, detail__matter_id=matter.pk
        )
        .select_related("user")
        .order_by("-at")
        .first()
    )


def _life_change(request: HttpRequest, matter_id: int, change: str) -> HttpResponse:
    matter = matter_for(user=request.user, matter_id=matter_id, action=Action.MANAGE)
    try:
        if change == "close":
            actions.matter_close(matter=matter, user=request.user, via=VIA)
            messages.success(request, f"Closed “{matter.name}”: it is read-only for everyone.")
        elif change == "reopen":
            actions.matter_reopen(matter=matter, user=request.user, via=VIA)
            messages.success(request, f"Reopened “{matter.name}”.")
        elif change == "retention":
            form = RetentionForm(request.POST)
            if not form.is_valid():
                messages.error(request, "Give the date as YYYY-MM-DD, or leave it empty.")
            else:
                day = form.cleaned_data["retain_until"]
                actions.matter_set_retention(
                    matter=matter, user=request.user, retain_until=day, via=VIA
                )
                messages.success(
                    request,
                    f"Retained until {day:%d %B %Y}." if day else "No retention date is set.",
                )
        elif change == "request":
            form = TypedNameForm(request.POST)
            typed = form.data.get("typed_name", "")
            actions.matter_purge_request(
                matter=matter, user=request.user, typed_name=typed, via=VIA
            )
            messages.success(
                request, "The purge is asked for. A member of staff confirms it to carry it out."
            )
        elif change == "withdraw":
            actions.matter_purge_withdraw(matter=matter, user=request.user, via=VIA)
            messages.success(request, "The purge request is withdrawn.")
    except actions.MatterLifeError as exc:
        messages.error(request, exc.message)
    return redirect("matter-life", matter_id=matter.pk)


@login_required
@require_POST
def matter_close(request: HttpRequest, matter_id: int) -> HttpResponse:
    return _life_change(request, matter_id, "close")


@login_required
@require_POST
def matter_handover(request: HttpRequest, matter_id: int) -> HttpResponse:
    """The handover zip (owners), streamed as it is written."""
    matter = matter_for(user=request.user, matter_id=matter_id, action=Action.MANAGE)
    try:
        handover = actions.matter_handover(matter=matter, user=request.user, via="page")
    except actions.MatterLifeError as exc:
        messages.error(request, exc.message)
        return redirect("matter-life", matter_id=matter.pk)
    response = StreamingHttpResponse(handover.chunks, content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{handover.filename}"'
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_POST
def matter_reopen(request: HttpRequest, matter_id: int) -> HttpResponse:
    return _life_change(request, matter_id, "reopen")


@login_required
@require_POST
def matter_retention(request: HttpRequest, matter_id: int) -> HttpResponse:
    return _life_change(request, matter_id, "retention")


@login_required
@require_POST
def matter_purge_request(request: HttpRequest, matter_id: int) -> HttpResponse:
    return _life_change(request, matter_id, "request")


@login_required
@require_POST
def matter_purge_withdraw(request: HttpRequest, matter_id: int) -> HttpResponse:
    return _life_change(request, matter_id, "withdraw")


def _staff(request: HttpRequest) -> None:
    if not is_admin(request.user):
        raise PermissionDenied("Only staff see the matters due for purge.")


@login_required
@require_http_methods(["GET"])
def retention_list(request: HttpRequest) -> HttpResponse:
    """Staff: the matters whose retention date has come or whose purge an owner asked for, with
    the form that confirms a purge (staff need not be members: they see names, never content)."""
    _staff(request)
    purged = (
        AuditEvent.objects.filter(matter__isnull=True, action=AuditEvent.Action.PURGED)
        .select_related("user")
        .order_by("-at")[:20]
    )
    context = {
        "due": actions.matters_due_for_purge(),
        "purged": purged,
        "name_form": TypedNameForm(),
    }
    return render(request, "matters/retention.html", context)


@login_required
@require_POST
def matter_purge(request: HttpRequest, matter_id: int) -> HttpResponse:
    """Staff confirm a purge an owner asked for, typing the matter's name."""
    _staff(request)
    matter = Matter.objects.filter(pk=matter_id).first()
    if matter is None:
        raise Http404("No such matter.")
    typed = request.POST.get("typed_name", "")
    try:
        removed = actions.matter_purge(matter=matter, user=request.user, typed_name=typed, via=VIA)
    except actions.MatterLifeError as exc:
        messages.error(request, exc.message)
    except actions.PurgeFailed as exc:
        messages.error(request, str(exc))
    else:
        messages.success(
            request,
            f"Purged “{matter.name}”: {actions.purge_counts_in_words(removed)}.",
        )
    return redirect("matter-retention")
