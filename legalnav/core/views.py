from __future__ import annotations

from typing import Any

from django.contrib.auth.views import LoginView
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse

from legalnav.core import limits


def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness and database reachability, for load balancers and the compose healthcheck."""
    with connection.cursor() as cur:
        cur.execute("SELECT 1")
    return JsonResponse({"status": "ok"})


class SignInView(LoginView):
    """Django's sign-in, limited per username and address: every attempt counts against
    ``LEGALNAV_SIGNIN_RATE_PER_MINUTE`` and every failed one against
    ``LEGALNAV_SIGNIN_FAILURES_PER_MINUTE``. Past either, the form is refused with a 429, a
    Retry-After and a message, and the password is not checked at all (so guessing gains nothing
    from the refusal)."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        subjects = _signin_subjects(request)
        refusal = limits.limit_check(limits.SIGNIN_FAILED, subjects=subjects)
        if refusal.allowed:
            refusal = limits.limit_take(limits.SIGNIN, subjects=subjects)
        if not refusal.allowed:
            # Unbound, so that rendering it never checks the password.
            username = str(request.POST.get("username", ""))[:150]
            form = self.get_form_class()(request, initial={"username": username})
            context = self.get_context_data(form=form, refusal=refusal.message)
            response = self.render_to_response(context, status=429)
            response["Retry-After"] = str(refusal.retry_after)
            return response
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form: Any) -> HttpResponse:
        limits.limit_count(limits.SIGNIN_FAILED, subjects=_signin_subjects(self.request))
        return super().form_invalid(form)


def _signin_subjects(request: HttpRequest) -> list[tuple[str, str]]:
    # REMOTE_ADDR: behind a proxy, the proxy's address unless it is configured to pass the
    # client's on (a forwarded-for header is the client's to forge, so it is not read here).
    return limits.signin_subjects(
        username=str(request.POST.get("username", ""))[:150],
        address=str(request.META.get("REMOTE_ADDR", "")),
    )
