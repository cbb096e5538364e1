"""Secrets at rest, both environments, SQLite and PostgreSQL: a TOTP factor's secret is stored
sealed (a pending enrollment keeps only its SHA-256), read straight from the database, and the
factor still logs in; a delegated key's private key is stored sealed (``test_delegated_keys``
checks it, the flow needing a card)."""

from __future__ import annotations

import base64
import hashlib
import time

from ._client import SandboxClient
from ._server import SandboxServer
from ._stored import store, stored_rows
from .test_sca import enroll_totp, eu_customer, login, rfc6238


def test_a_totp_secret_is_sealed_at_rest(client: SandboxClient, server: SandboxServer) -> None:
    customer_id = eu_customer(client)
    params = {"customerId": customer_id}
    started = client.post("/sca/factors", {"type": "TOTP"}, params=params)
    assert started.status_code == 200, started.text
    secret_hex = started.json()["secret"]
    key = bytes.fromhex(secret_hex)
    base32 = base64.b32encode(key).decode().rstrip("=")
    (pending,) = stored_rows(
        server.database,
        "SELECT secret FROM sandbox_sca_pending WHERE customer_id = :c",
        c=customer_id,
    )
    assert pending[0] == hashlib.sha256(key).hexdigest()  # the lookup digest, not the secret
    confirmed = client.post(
        "/sca/factors/confirm",
        {"type": "TOTP", "secret": secret_hex, "code": rfc6238(key, time.time())},
        params=params,
    )
    assert confirmed.status_code == 200, confirmed.text
    (factor,) = stored_rows(
        server.database,
        "SELECT id, secret FROM sandbox_sca_factors WHERE customer_id = :c AND factor = 'TOTP'",
        c=customer_id,
    )
    stored = str(factor[1])
    assert stored.startswith("hpke1:")
    for shown in (secret_hex, base32, base32.lower()):
        assert shown not in stored
    assert key.hex() not in bytes.fromhex(stored.removeprefix("hpke1:")).hex()
    # The sealed secret opens: a code of the next step logs in (the confirmation used this one).
    done = login(client, customer_id, rfc6238(key, time.time() + 30))
    assert done.status_code == 200, done.text
    assert done.json()["status"] == "SUCCESS"


def test_a_totp_secret_that_does_not_open_is_the_services_500(
    client: SandboxClient, server: SandboxServer
) -> None:
    """A stored secret that does not open (sealed for another factor, cut short, not hex) is
    the database's fault, not the code's: 500 ``INTERNAL_ERROR`` that says so, as the
    export's, the factor's id logged and never the value; its own value logs in again."""
    ours, theirs = eu_customer(client), eu_customer(client, email="max@example.com")
    key = enroll_totp(client, ours)
    enroll_totp(client, theirs)
    factor = "SELECT id, secret FROM sandbox_sca_factors WHERE customer_id = :c AND factor = 'TOTP'"
    ((factor_id, own),) = stored_rows(server.database, factor, c=ours)
    ((_, copied),) = stored_rows(server.database, factor, c=theirs)
    plant = "UPDATE sandbox_sca_factors SET secret = :s WHERE id = :i"
    for planted in (copied, str(own)[:-2], "hpke1:not hex"):
        assert store(server.database, plant, s=planted, i=factor_id) == 1
        refused = login(client, ours, rfc6238(key, time.time()))
        assert refused.status_code == 500, refused.text
        assert refused.json() == {
            "status": 500,
            "code": "INTERNAL_ERROR",
            "reason": "The TOTP factor's stored secret does not open with this service's key.",
        }
    log = server.log_path.read_text()
    assert f"the stored TOTP secret of factor {factor_id} does not open" in log
    for secret in (str(own), str(copied), key.hex()):
        assert secret not in log
    assert store(server.database, plant, s=own, i=factor_id) == 1
    done = login(client, ours, rfc6238(key, time.time() + 30))
    assert done.status_code == 200, done.text
    assert done.json()["status"] == "SUCCESS"
