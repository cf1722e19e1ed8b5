"""A local OpenID Connect issuer for the tests: discovery, an authorization endpoint that signs in
whoever the test chose, a token endpoint that checks the client's secret and PKCE verifier and
returns an ID token signed with a real RSA key (RS256, published in its JWKS), and userinfo.

``audience`` (when set) is put in the ID tokens instead of the client's id, as in a token issued
for another application: the relying party must refuse it. (A token fetched straight from the
token endpoint need not have its signature checked, OpenID Connect Core 3.1.3.7, and allauth
does not; the signature is real all the same.)"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa

CLIENT_ID = "legalnav-tests"
CLIENT_SECRET = "s3cret-for-tests"


@dataclass
class Issuer:
    users: dict[str, dict[str, Any]]
    signs_in: str = ""  # the username the "person at the identity provider" signs in as
    audience: str = ""
    codes: dict[str, dict[str, Any]] = field(default_factory=dict)
    url: str = ""

    def __post_init__(self) -> None:
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key()))
        self.jwk = {**jwk, "kid": "test-key", "alg": "RS256", "use": "sig"}

    def claims(self, username: str) -> dict[str, Any]:
        return {"sub": f"sub-{username}", "preferred_username": username, **self.users[username]}

    def id_token(self, username: str, nonce: str | None) -> str:
        now = int(time.time())
        payload = {
            **self.claims(username),
            "iss": self.url,
            "aud": self.audience or CLIENT_ID,
            "iat": now,
            "exp": now + 300,
        }
        if nonce:
            payload["nonce"] = nonce
        return jwt.encode(payload, self.key, algorithm="RS256", headers={"kid": "test-key"})


def _handler(issuer: Issuer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _json(self, body: dict[str, Any], status: int = 200) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802
            url = urlparse(self.path)
            query = {k: v[0] for k, v in parse_qs(url.query).items()}
            if url.path == "/.well-known/openid-configuration":
                self._json(
                    {
                        "issuer": issuer.url,
                        "authorization_endpoint": f"{issuer.url}/authorize",
                        "token_endpoint": f"{issuer.url}/token",
                        "userinfo_endpoint": f"{issuer.url}/userinfo",
                        "jwks_uri": f"{issuer.url}/jwks",
                        "response_types_supported": ["code"],
                        "subject_types_supported": ["public"],
                        "id_token_signing_alg_values_supported": ["RS256"],
                        "token_endpoint_auth_methods_supported": ["client_secret_post"],
                        "code_challenge_methods_supported": ["S256"],
                    }
                )
            elif url.path == "/jwks":
                self._json({"keys": [issuer.jwk]})
            elif url.path == "/authorize":
                if query.get("client_id") != CLIENT_ID or not issuer.signs_in:
                    self._json({"error": "unauthorized_client"}, 400)
                    return
                code = secrets.token_urlsafe(16)
                issuer.codes[code] = {
                    "username": issuer.signs_in,
                    "nonce": query.get("nonce"),
                    "challenge": query.get("code_challenge"),
                    "redirect_uri": query["redirect_uri"],
                }
                back = {"code": code, "state": query.get("state", "")}
                self.send_response(302)
                self.send_header("Location", f"{query['redirect_uri']}?{urlencode(back)}")
                self.end_headers()
            elif url.path == "/userinfo":
                token = self.headers.get("Authorization", "").removeprefix("Bearer ")
                grant = issuer.codes.get(token.removeprefix("at-"))
                if grant is None:
                    self._json({"error": "invalid_token"}, 401)
                    return
                self._json(issuer.claims(grant["username"]))
            else:
                self._json({"error": "not_found"}, 404)

        def do_POST(self) -> None:  # noqa: N802
            if urlparse(self.path).path != "/token":
                self._json({"error": "not_found"}, 404)
                return
            length = int(self.headers.get("Content-Length", 0))
            form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
            grant = issuer.codes.get(form.get("code", ""))
            if (
                form.get("client_id") != CLIENT_ID
                or form.get("client_secret") != CLIENT_SECRET
                or grant is None
                or form.get("redirect_uri") != grant["redirect_uri"]
            ):
                self._json({"error": "invalid_grant"}, 400)
                return
            if grant["challenge"]:
                verifier = form.get("code_verifier", "").encode()
                digest = base64.urlsafe_b64encode(hashlib.sha256(verifier).digest())
                if digest.rstrip(b"=").decode() != grant["challenge"]:
                    self._json({"error": "invalid_grant", "error_description": "PKCE"}, 400)
                    return
            self._json(
                {
                    "access_token": f"at-{form['code']}",
                    "token_type": "Bearer",
                    "expires_in": 300,
                    "id_token": issuer.id_token(grant["username"], grant["nonce"]),
                }
            )

    return Handler


class running:  # noqa: N801 - a context manager named for how it reads
    def __init__(self, issuer: Issuer) -> None:
        self.issuer = issuer

    def __enter__(self) -> Issuer:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self.issuer))
        self.issuer.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self.issuer

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def provider_settings(issuer: Issuer) -> dict[str, Any]:
    return {
        "openid_connect": {
            "OAUTH_PKCE_ENABLED": True,
            "APPS": [
                {
                    "provider_id": "firm",
                    "name": "Firm sign-in",
                    "client_id": CLIENT_ID,
                    "secret": CLIENT_SECRET,
                    "settings": {
                        "server_url": issuer.url,
                        "token_auth_method": "client_secret_post",
                    },
                }
            ],
        }
    }


def totp(secret: str, at: float | None = None, step: int = 0) -> str:
    """RFC 6238 (SHA-1, 30 s, 6 digits), written here rather than taken from allauth."""
    import hmac
    import struct

    key = base64.b32decode(secret.upper() + "=" * (-len(secret) % 8))
    counter = int((at if at is not None else time.time()) // 30) + step
    mac = hmac.new(key, struct.pack(">Q", counter), "sha1").digest()
    offset = mac[-1] & 0x0F
    value = (struct.unpack(">I", mac[offset : offset + 4])[0] & 0x7FFFFFFF) % 1_000_000
    return f"{value:06d}"
