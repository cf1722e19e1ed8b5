"""The API token settings page: list, create (the secret shown once) and revoke your tokens.

Signed-in users only, and always the user's own tokens: revoking someone else's token id is a 404.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from legalnav.api.tokens import TokenRefused, api_token_create, api_token_list, api_token_revoke

_NEW_TOKEN = "legalnav_new_api_token"  # session key: the secret, popped when first shown


@login_required
@require_http_methods(["GET", "POST"])
def token_settings(request: HttpRequest) -> HttpResponse:
    error = ""
    name = ""
    if request.method == "POST":
        name = request.POST.get("name", "")
        try:
            token, raw = api_token_create(user=request.user, name=name)
        except TokenRefused as exc:
            error = str(exc)
        else:
            # Post/redirect/get: the secret rides in the session to the next page view only.
            request.session[_NEW_TOKEN] = {"id": token.pk, "secret": raw}
            return HttpResponseRedirect(reverse("api-tokens"), status=303)
    new = request.session.pop(_NEW_TOKEN, None)
    context = {
        "tokens": list(api_token_list(user=request.user)),
        "new_token": new,
        "error": error,
        "name": name,
        "api_base": request.build_absolute_uri("/api/v1/"),
        "openapi_url": request.build_absolute_uri(reverse("api:openapi-json")),
        "mcp_url": request.build_absolute_uri("/mcp"),
    }
    return render(request, "api/tokens.html", context, status=422 if error else 200)


@login_required
@require_POST
def token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    token = api_token_revoke(user=request.user, token_id=token_id)
    if token is None:
        raise Http404("No such token.")
    messages.success(request, f"Revoked “{token.name}” ({token.prefix}…). It no longer works.")
    return HttpResponseRedirect(reverse("api-tokens"), status=303)
