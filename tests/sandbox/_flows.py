"""The interface's flows as a client app and its platform backend run them (used by the
tests): create credentials, log in with each type, and get the session signing key."""

from __future__ import annotations

import uuid
from typing import Any

import embedded_wallet_crypto as ewc

from ._client import SandboxClient, read_otp, session_key
from ._identity import assertion, id_token, registration
from ._server import SandboxServer


class Wallet:
    """One customer's embedded wallet, and the devices and identities that log in to it."""

    def __init__(self, client: SandboxClient, server: SandboxServer) -> None:
        self.client = client
        self.server = server
        self.email = f"{uuid.uuid4().hex[:12]}@example.com"
        self.subject = f"user-{uuid.uuid4().hex[:12]}"
        self.customer_id = self.new_customer(client)
        self.account_id = client.wallet_of(self.customer_id)
        self.authenticator = ewc.passkeys.SoftwareAuthenticator()
        self.mails_seen = 0

    def new_customer(self, client: SandboxClient) -> str:
        """The wallet's customer, made with ``self.email``: its id (a subclass makes another
        kind of customer)."""
        customer_id: str = client.create_customer(email=self.email)["id"]
        return customer_id

    def card(self, **fields: Any) -> dict[str, Any]:
        """A card of the customer funded by the wallet (sandbox: the KYC is approved first;
        production has no simulated KYC outcome, so no card can be issued there)."""
        person = {"firstName": "Jane", "lastName": "Doe"}
        verified = self.client.post(
            "/verifications", {"customerId": self.customer_id, "personalInfo": person}
        )
        assert verified.json()["verificationStatus"] == "APPROVED", verified.text
        body = {"cardholderId": self.customer_id, "form": "VIRTUAL"}
        made = self.client.post("/cards", {**body, "fundingSources": [self.account_id], **fields})
        assert made.status_code == 201, made.text
        card: dict[str, Any] = made.json()
        return card

    # --- creating credentials ------------------------------------------------------------

    def body(self, kind: str) -> dict[str, Any]:
        if kind == "EMAIL_OTP":
            return {"type": kind, "accountId": self.account_id}
        if kind == "OAUTH":
            return {"type": kind, "accountId": self.account_id, "oidcToken": self.token()}
        return {
            "type": kind,
            "accountId": self.account_id,
            "nickname": "Test passkey",
            **registration(self.authenticator),
        }

    def add(self, kind: str, signer: ewc.KeyPair | None = None) -> dict[str, Any]:
        """Create a credential: directly (the first), or by signed retry with ``signer``."""
        body = self.body(kind)
        if signer is None:
            response = self.client.post("/auth/credentials", body)
        else:
            _, response = self.client.signed_retry("POST", "/auth/credentials", body, key=signer)
        assert response.status_code == 201, response.text
        credential: dict[str, Any] = response.json()
        return credential

    def token(self, client_public_key: str | None = None) -> str:
        return id_token(client_public_key=client_public_key, sub=self.subject, email=self.email)

    # --- logging in ----------------------------------------------------------------------

    def _mails(self) -> int:
        try:
            return read_otp(self.server.mail_dir, self.email)[1]
        except AssertionError:
            return 0

    def otp(self) -> str:
        code, self.mails_seen = read_otp(self.server.mail_dir, self.email, self.mails_seen)
        return code

    def verify_body(
        self, credential: dict[str, Any], client_key: ewc.KeyPair, compressed: bool
    ) -> tuple[dict[str, Any], dict[str, str]]:
        """The verify body (and headers) of a real login with this credential."""
        public = client_key.public_key_hex(compressed=compressed)
        kind = credential["type"]
        if kind == "EMAIL_OTP":
            if self._mails() <= self.mails_seen:  # re-authentication: ask for a fresh code
                sent = self.client.post(f"/auth/credentials/{credential['id']}/challenge")
                assert sent.status_code == 200, sent.text
            return {"type": kind, "otp": self.otp(), "clientPublicKey": public}, {}
        if kind == "OAUTH":
            return {"type": kind, "oidcToken": self.token(public), "clientPublicKey": public}, {}
        challenge = self.client.post(
            f"/auth/credentials/{credential['id']}/challenge", {"clientPublicKey": public}
        )
        assert challenge.status_code == 200, challenge.text
        issued = challenge.json()
        return (
            {"type": kind, "assertion": assertion(self.authenticator, issued["challenge"])},
            {"Request-Id": issued["requestId"]},
        )

    def login(
        self, credential: dict[str, Any], *, compressed: bool = False
    ) -> tuple[dict[str, Any], ewc.KeyPair]:
        """Verify the credential; returns the session and its signing key."""
        client_key = ewc.KeyPair.generate()
        body, headers = self.verify_body(credential, client_key, compressed)
        response = self.client.post(
            f"/auth/credentials/{credential['id']}/verify", body, headers=headers
        )
        assert response.status_code == 200, response.text
        session: dict[str, Any] = response.json()
        assert ("encryptedSessionSigningKey" in session) is not compressed
        return session, session_key(session, client_key)

    def first_login(self, kind: str = "EMAIL_OTP") -> tuple[dict[str, Any], ewc.KeyPair]:
        """Create the first credential of ``kind`` and log in with it."""
        return self.login(self.add(kind))
