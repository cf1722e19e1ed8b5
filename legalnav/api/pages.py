"""The API token settings page: list, create (the secret shown once) and revoke your tokens.

Signed-in users only, and always the user's own tokens: revoking someone else's token id is a 404.

A new token's secret is rendered in the response to the POST that created it, and nowhere else:
not in the session, not in a flash message, not behind a redirect. Post/redirect/get would have
to carry the secret to the next request, and the session is stored server-side (in the database
by default), where a secret must never be. The response is marked no-store; reloading it asks the
browser to send the form again, which would create a second token, not show the first one again.
"""

from __future__ import annotations

from datetime import timedelta

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_http_methods, require_POST

from legalnav.api.models import ApiToken
from legalnav.api.tokens import TokenRefused, api_token_create, api_token_list, api_token_revoke

# What the expiry menu offers, in days ("" : never).
EXPIRY_CHOICES = [
    ("", "Never"),
    ("7", "In 7 days"),
    ("30", "In 30 days"),
    ("90", "In 90 days"),
    ("365", "In a year"),
]
DEFAULT_EXPIRY = "90"


def _expiry(value: str) -> timedelta | None:
    if value not in dict(EXPIRY_CHOICES):
        raise TokenRefused("Choose when the token expires from the list.")
    return timedelta(days=int(value)) if value else None


@login_required
@require_http_methods(["GET", "POST"])
def token_settings(request: HttpRequest) -> HttpResponse:
    error = ""
    form = {"name": "", "expires": DEFAULT_EXPIRY, "scope": ApiToken.Scope.READ_WRITE.value}
    new_token: dict[str, object] | None = None
    if request.method == "POST":
        form = {key: request.POST.get(key, default) for key, default in form.items()}
        try:
            lifetime = _expiry(form["expires"])
            token, raw = api_token_create(
                user=request.user,
                name=form["name"],
                expires_at=timezone.now() + lifetime if lifetime else None,
                scope=form["scope"],
            )
        except TokenRefused as exc:
            error = str(exc)
        else:
            new_token = {"token": token, "secret": raw}
            form = {**form, "name": ""}
    context = {
        "tokens": list(api_token_list(user=request.user)),
        "new_token": new_token,
        "error": error,
        "form": form,
        "expiry_choices": EXPIRY_CHOICES,
        "scope_choices": ApiToken.Scope.choices,
        "api_base": request.build_absolute_uri("/api/v1/"),
        "openapi_url": request.build_absolute_uri(reverse("api:openapi-json")),
        "mcp_url": request.build_absolute_uri("/mcp"),
    }
    response = render(request, "api/tokens.html", context, status=422 if error else 200)
    if new_token is not None:
        add_never_cache_headers(response)  # the secret must not stay in any cache
    return response


@login_required
@require_POST
def token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    token = api_token_revoke(user=request.user, token_id=token_id)
    if token is None:
        raise Http404("No such token.")
    messages.success(request, f"Revoked “{token.name}” ({token.prefix}…). It no longer works.")
    return HttpResponseRedirect(reverse("api-tokens"), status=303)
