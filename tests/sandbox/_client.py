"""A small client of the sandbox service, written the way a user would write one: httpx with
HTTP Basic, the signed retry stamped with ``ewc.create_stamp``, the session key opened with
``ewc.open_session_key``."""

from __future__ import annotations

import email
import email.policy
from pathlib import Path
from typing import Any

import embedded_wallet_crypto as ewc
import httpx


class SandboxClient:
    """The platform's view of the service: every request carries the Basic credentials."""

    def __init__(self, base_url: str, auth: tuple[str, str]) -> None:
        self.http = httpx.Client(base_url=base_url, auth=auth, timeout=30)

    def close(self) -> None:
        self.http.close()

    def request(self, method: str, path: str, **options: Any) -> httpx.Response:
        return self.http.request(method, path, **options)

    def post(self, path: str, body: Any = None, **options: Any) -> httpx.Response:
        return self.http.post(path, json=body, **options)

    def get(self, path: str, **options: Any) -> httpx.Response:
        return self.http.get(path, **options)

    # --- customers and accounts ----------------------------------------------------------

    def create_customer(self, **fields: Any) -> dict[str, Any]:
        body = {"customerType": "INDIVIDUAL", "currencies": ["USD"], **fields}
        response = self.post("/customers", body)
        assert response.status_code == 201, response.text
        customer: dict[str, Any] = response.json()
        return customer

    def wallet_of(self, customer_id: str) -> str:
        """The id of the customer's EMBEDDED_WALLET account."""
        response = self.get(
            "/customers/internal-accounts",
            params={"customerId": customer_id, "type": "EMBEDDED_WALLET"},
        )
        assert response.status_code == 200, response.text
        (account,) = response.json()["data"]
        account_id: str = account["id"]
        return account_id

    def new_wallet(self) -> str:
        return self.wallet_of(self.create_customer(email="jane@example.com")["id"])

    # --- the signed retry ----------------------------------------------------------------

    def signed_retry(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        key: ewc.KeyPair | None = None,
        stamp: str | None = None,
        header: str = "Service-Wallet-Signature",
        retry_body: Any = None,
    ) -> tuple[dict[str, Any], httpx.Response]:
        """Step 1 (expects 202), then the retry stamped with ``key`` (or the given ``stamp``)
        over the exact ``payloadToSign``. Returns the challenge and the retry's response."""
        first = self.request(method, path, json=body)
        assert first.status_code == 202, first.text
        challenge: dict[str, Any] = first.json()
        if stamp is None:
            assert key is not None
            stamp = ewc.create_stamp(challenge["payloadToSign"], key)
        retry = self.request(
            method,
            path,
            json=body if retry_body is None else retry_body,
            headers={header: stamp, "Request-Id": challenge["requestId"]},
        )
        return challenge, retry

    def retry(
        self, method: str, path: str, body: Any, challenge: dict[str, Any], stamp: str
    ) -> httpx.Response:
        """The retry alone (to replay a request id)."""
        return self.request(
            method,
            path,
            json=body,
            headers={"Service-Wallet-Signature": stamp, "Request-Id": challenge["requestId"]},
        )


#: The reason of the 401 to a retry whose request id was used (the library's, kept as it is).
REQUEST_ID_USED = "the request id has already been used"


def assert_request_id_used(response: httpx.Response) -> None:
    """The retry was refused because its request id was used, and for no other reason."""
    assert response.status_code == 401, response.text
    assert response.json() == {"status": 401, "code": "UNAUTHORIZED", "reason": REQUEST_ID_USED}


def session_key(session: dict[str, Any], client_key: ewc.KeyPair) -> ewc.KeyPair:
    """The session signing key: opened from ``encryptedSessionSigningKey`` when the session was
    requested with an uncompressed key; the client's own key otherwise."""
    sealed = session.get("encryptedSessionSigningKey")
    if sealed is None:
        return client_key
    return ewc.open_session_key(sealed, client_key)


def read_otp(mail_dir: Path, address: str, seen: int = 0) -> tuple[str, int]:
    """The code of the newest OTP email to ``address``; also how many such emails there are."""
    messages = []
    for path in sorted(mail_dir.glob("*.eml")):
        message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        if message["To"] == address:
            messages.append(message)
    assert len(messages) > seen, f"no new email to {address} in {mail_dir}"
    body = messages[-1].get_body(preferencelist=("plain",))
    assert body is not None
    text = body.get_content()
    code = next(word for word in text.split() if len(word) == 6 and word.isdigit())
    return code, len(messages)
