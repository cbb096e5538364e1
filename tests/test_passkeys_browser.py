"""A real browser: headless Chromium with a virtual authenticator (the DevTools WebAuthn domain,
driven through Playwright's CDP session) registers a passkey and logs in with it.

The test serves a small page on loopback (``http://localhost`` is a secure context, RP ID
``localhost``); the page calls ``navigator.credentials.create()`` and ``get()`` with challenges
from the library's helpers and posts ``PublicKeyCredential.toJSON()`` back. The library must
accept both, and reject the assertion replayed and one made on another origin.

Debian's ``/usr/bin/chromium`` is used (``EWC_CHROMIUM`` overrides); Playwright never downloads
a browser. Without a browser the test skips and says so, except under ``CI=true``.
"""

from __future__ import annotations

import json
import os
import queue
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from _chromium import add_virtual_authenticator, launched_chromium
from _webauthn_helpers import b64url
from embedded_wallet_crypto import passkeys

RP_ID = "localhost"
PAGE = b"""<!doctype html>
<html><head><meta charset="utf-8"><title>ewc passkeys</title></head><body>
<script>
const bytes = (text) => Uint8Array.from(
  atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
async function post(kind, credential) {
  await fetch("/result/" + kind, {method: "POST", body: JSON.stringify(credential.toJSON())});
}
async function register(challenge) {
  const credential = await navigator.credentials.create({publicKey: {
    challenge: bytes(challenge),
    rp: {id: "localhost", name: "ewc test"},
    user: {id: bytes("dXNlci0x"), name: "user-1", displayName: "User 1"},
    pubKeyCredParams: [{type: "public-key", alg: -7}, {type: "public-key", alg: -257}],
    authenticatorSelection: {residentKey: "required", userVerification: "required"},
    attestation: "direct",
  }});
  await post("register", credential);
}
async function login(challenge, credentialId) {
  const credential = await navigator.credentials.get({publicKey: {
    challenge: bytes(challenge),
    rpId: "localhost",
    allowCredentials: [{type: "public-key", id: bytes(credentialId)}],
    userVerification: "required",
  }});
  await post("login", credential);
}
</script></body></html>
"""


class _Server:
    """One origin: serves PAGE and collects what the page posts back."""

    def __init__(self) -> None:
        posted: queue.Queue[tuple[str, dict[str, Any]]] = queue.Queue()
        self.posted = posted

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.end_headers()
                self.wfile.write(PAGE)

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                posted.put((self.path.rsplit("/", 1)[-1], json.loads(body)))
                self.send_response(204)
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://localhost:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def take(self, kind: str) -> dict[str, Any]:
        got, credential = self.posted.get(timeout=30)
        assert got == kind
        return credential

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def browser_page() -> Iterator[tuple[Any, _Server, _Server]]:
    with launched_chromium() as browser:
        servers = (_Server(), _Server())
        try:
            page = browser.new_page()
            add_virtual_authenticator(page)
            yield page, *servers
        finally:
            for server in servers:
                server.close()


def test_browser_registration_and_login(browser_page: tuple[Any, _Server, _Server]) -> None:
    page, server, other_origin = browser_page
    page.goto(server.origin + "/")

    registration_challenge = os.urandom(32)
    page.evaluate("(c) => register(c)", b64url(registration_challenge))
    created = server.take("register")
    registered = passkeys.verify_registration(
        created, expected_challenge=registration_challenge, rp_id=RP_ID, origin=server.origin
    )
    interface_form = {
        "credentialId": created["id"],
        "clientDataJson": created["response"]["clientDataJSON"],
        "attestationObject": created["response"]["attestationObject"],
        "transports": created["response"].get("transports", []),
    }
    assert (
        passkeys.verify_registration(
            interface_form,
            expected_challenge=registration_challenge,
            rp_id=RP_ID,
            origin=server.origin,
        )
        == registered
    )
    assert registered.fmt in ("none", "packed") and registered.user_verified
    assert registered.public_key.startswith(bytes.fromhex("a5010203262001"))  # ES256 P-256

    client_key = ewc.KeyPair.generate()
    issued = passkeys.issue_session_challenge(
        client_public_key=client_key.public_key_hex(), organization_id="org", account_id="acct"
    )
    challenge_text = issued.to_response()["challenge"]
    page.evaluate("([c, id]) => login(c, id)", [challenge_text, created["id"]])
    assertion = server.take("login")

    def verify(
        body: str, request_id: str, count: int, origin: str = server.origin
    ) -> passkeys.VerifiedSession:
        return passkeys.verify_session_assertion(
            assertion,
            session_creation_body=body,
            request_id=request_id,
            credential_public_key=registered.public_key,
            rp_id=RP_ID,
            origin=origin,
            current_sign_count=count,
        )

    session = verify(issued.body, issued.request_id, registered.sign_count)
    assert session.client_public_key == client_key.public_key_hex()
    assert session.assertion.credential_id == registered.credential_id
    assert session.assertion.user_verified

    # The same assertion replayed: the counter has moved on, and a new challenge differs.
    with pytest.raises(ewc.PasskeyError) as replay:
        verify(issued.body, issued.request_id, session.assertion.new_sign_count)
    assert replay.value.code == "PASSKEY_SIGN_COUNT_REGRESSION"
    fresh = passkeys.issue_session_challenge(
        client_public_key=client_key.public_key_hex(), organization_id="org", account_id="acct"
    )
    with pytest.raises(ewc.PasskeyError) as replayed:
        verify(fresh.body, fresh.request_id, 0)
    assert replayed.value.code == "PASSKEY_CHALLENGE_MISMATCH"

    # An assertion the browser made on another origin (another port: same RP ID, other origin).
    page.goto(other_origin.origin + "/")
    page.evaluate("([c, id]) => login(c, id)", [challenge_text, created["id"]])
    assertion = other_origin.take("login")
    with pytest.raises(ewc.PasskeyError) as elsewhere:
        verify(issued.body, issued.request_id, 0)
    assert elsewhere.value.code == "PASSKEY_ORIGIN_MISMATCH"
    assert verify(issued.body, issued.request_id, 0, other_origin.origin).assertion.user_verified
