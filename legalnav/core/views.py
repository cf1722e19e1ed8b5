from __future__ import annotations

from typing import Any

from django.contrib.auth.views import LoginView
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django_htmx.http import HttpResponseStopPolling

from legalnav.core import limits


def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness and database reachability, for load balancers and the compose healthcheck."""
    with connection.cursor() as cur:
        cur.execute("SELECT 1")
    return JsonResponse({"status": "ok"})


def live_page(
    request: HttpRequest, partial: str, context: dict[str, Any], *, poll: bool, running: bool
) -> HttpResponse:
    """A page whose live part polls itself (htmx) while its job runs: a ``poll`` gets only that
    part (``partial``, "page.html#part"), answered with HTTP 286 (stop polling) once nothing is
    ``running``; any other request gets the whole page."""
    if poll:
        response = render(request, partial, context)
        return response if running else HttpResponseStopPolling(response.content)
    return render(request, partial.partition("#")[0], context)


class SignInView(LoginView):
    """Django's sign-in, limited per username and address: every attempt counts against
    ``LEGALNAV_SIGNIN_RATE_PER_MINUTE`` and every failed one against
    ``LEGALNAV_SIGNIN_FAILURES_PER_MINUTE``, and also against the address's failures over all
    usernames and the username's over all addresses (``limits.SIGNIN_FAILURES``). Past either, the form is refused with a 429, a
    Retry-After and a message, and the password is not checked at all (so guessing gains nothing
    from the refusal)."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        refusal = limits.ALLOWED
        for limit, subjects in _failure_subjects(request).items():
            refusal = limits.limit_check(limit, subjects=subjects)
            if not refusal.allowed:
                break
        if refusal.allowed:
            refusal = limits.limit_take(limits.SIGNIN, subjects=_signin_subjects(request))
        if not refusal.allowed:
            # Unbound, so that rendering it never checks the password.
            username = str(request.POST.get("username", ""))[:150]
            form = self.get_form_class()(request, initial={"username": username})
            context = self.get_context_data(form=form, refusal=refusal.message)
            response = self.render_to_response(context, status=429)
            response["Retry-After"] = str(refusal.retry_after)
            return response
        return super().post(request, *args, **kwargs)

    def form_valid(self, form: Any) -> HttpResponse:
        """The password was right: sign in through allauth's stages, so that a person with a
        second factor is asked for it before the session is theirs."""
        from allauth.account.internal.flows.login import record_authentication
        from allauth.account.utils import perform_login

        user = form.get_user()
        record_authentication(self.request, user, method="password", username=user.get_username())
        return perform_login(self.request, user, redirect_url=self.get_success_url())

    def form_invalid(self, form: Any) -> HttpResponse:
        for limit, subjects in _failure_subjects(self.request).items():
            limits.limit_count(limit, subjects=subjects)
        return super().form_invalid(form)


def _failure_subjects(request: HttpRequest) -> dict[limits.Limit, list[tuple[str, str]]]:
    return limits.signin_failure_subjects(
        username=str(request.POST.get("username", ""))[:150],
        address=str(request.META.get("REMOTE_ADDR", "")),
    )


def _signin_subjects(request: HttpRequest) -> list[tuple[str, str]]:
    # REMOTE_ADDR: behind a proxy, the proxy's address unless it is configured to pass the
    # client's on (a forwarded-for header is the client's to forge, so it is not read here).
    return limits.signin_subjects(
        username=str(request.POST.get("username", ""))[:150],
        address=str(request.META.get("REMOTE_ADDR", "")),
    )
