"""The MCP server over streamable HTTP, as an ASGI app mounted at /mcp beside Django.

Requests are authenticated by the SDK's bearer middleware with legalnav's API tokens (401
without a valid one), and each one acts for its own token's user: the transport is stateless, so
there is no session one user could continue for another. Host and Origin headers are checked against Django's
ALLOWED_HOSTS and CSRF_TRUSTED_ORIGINS (DNS-rebinding protection), unless ALLOWED_HOSTS holds
a wildcard.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections
from mcp.server.auth.provider import AccessToken
from mcp.server.transport_security import TransportSecuritySettings

from legalnav.api.tokens import api_token_user

MOUNT_PATH = "/mcp"


def _verify(raw: str) -> AccessToken | None:
    try:
        found = api_token_user(raw=raw)
        if found is None:
            return None
        return AccessToken(
            token=raw,
            client_id=f"legalnav-token-{found.token.pk}",
            scopes=[],
            subject=str(getattr(found.user, "pk", "")),
        )
    finally:
        close_old_connections()


class ApiTokenVerifier:
    """The SDK's TokenVerifier over legalnav's API tokens."""

    async def verify_token(self, token: str) -> AccessToken | None:
        return await sync_to_async(_verify, thread_sensitive=False)(token)


def transport_security() -> TransportSecuritySettings:
    hosts = [h for h in settings.ALLOWED_HOSTS if h]
    if not hosts or any(h == "*" or h.startswith(".") for h in hosts):
        # Wildcard hosts cannot be listed; every request still needs a bearer token.
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    allowed_hosts: list[str] = []
    origins: list[str] = list(settings.CSRF_TRUSTED_ORIGINS)
    for host in hosts:
        allowed_hosts += [host, f"{host}:*"]
        origins += [f"http://{host}", f"https://{host}", f"http://{host}:*", f"https://{host}:*"]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=allowed_hosts, allowed_origins=origins
    )


def mcp_http_app() -> Any:
    """A Starlette app serving MCP at /mcp; its lifespan runs the session manager."""
    from legalnav.mcp.server import build_server

    server = build_server(token_verifier=ApiTokenVerifier())
    # Stateless: every request stands alone (the token on it decides who acts), so any web
    # process can answer any request and several ASGI workers need no shared session store.
    # The tools send no server-initiated messages, so nothing is lost.
    return server.streamable_http_app(
        streamable_http_path=MOUNT_PATH,
        transport_security=transport_security(),
        stateless_http=True,
    )
