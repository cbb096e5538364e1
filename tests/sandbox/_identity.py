"""The other parties of a login, real and local: an OIDC issuer whose JWKS a real HTTP server
serves (tokens minted with the test helpers' keys), a passkey on
``ewc.passkeys.SoftwareAuthenticator``, and the mailbox of the OTP emails."""

from __future__ import annotations

import base64
import json
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import embedded_wallet_crypto as ewc
from _oidc_helpers import AUDIENCE, ES_KID, ES_LABEL, ISSUER, JWKS
from embedded_wallet_crypto.vectors.generate._jwt_mint import sign_es256

RP_ID = "localhost"
ORIGIN = "http://localhost:8000"


class _Jwks(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = json.dumps(JWKS).encode()
        self.send_response(200 if self.path == "/jwks" else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: Any) -> None:
        pass


@contextmanager
def jwks_server() -> Iterator[str]:
    """A real HTTP server on a free loopback port; yields the JWKS URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Jwks)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/jwks"
    finally:
        server.shutdown()
        server.server_close()


def oidc_arguments(jwks_url: str) -> list[str]:
    return ["--oidc-issuer", f"{ISSUER}={jwks_url}", "--oidc-audience", AUDIENCE]


def id_token(
    *, client_public_key: str | None = None, sub: str = "user-1", email: str = "jane@example.com"
) -> str:
    """A fresh ES256 ID token from the local issuer (``nonce`` bound to the key when given)."""
    now = int(time.time())
    claims: dict[str, Any] = {
        "iss": ISSUER,
        "aud": AUDIENCE,
        "sub": sub,
        "email": email,
        "iat": now - 1,
        "exp": now + 600,
    }
    if client_public_key is not None:
        claims["nonce"] = ewc.oidc.nonce_for(client_public_key)
    return sign_es256(ES_LABEL, {"alg": "ES256", "kid": ES_KID, "typ": "JWT"}, claims)


def registration(authenticator: ewc.passkeys.SoftwareAuthenticator) -> dict[str, Any]:
    """A PASSKEY create body's ``challenge`` and ``attestation``, as a platform and a browser
    make them."""
    challenge = secrets.token_bytes(32)
    return {
        "challenge": base64.urlsafe_b64encode(challenge).rstrip(b"=").decode(),
        "attestation": authenticator.register(rp_id=RP_ID, origin=ORIGIN, challenge=challenge),
    }


def assertion(
    authenticator: ewc.passkeys.SoftwareAuthenticator, challenge_b64url: str
) -> dict[str, Any]:
    raw = base64.urlsafe_b64decode(challenge_b64url + "=" * (-len(challenge_b64url) % 4))
    return authenticator.authenticate(rp_id=RP_ID, origin=ORIGIN, challenge=raw)
