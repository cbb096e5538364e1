"""``ewc demo`` steps for passkeys: a registration with the software authenticator, then a login
whose challenge binds the client's key (formats.md section 6), with the attacks the server must
reject."""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field

import embedded_wallet_crypto as ewc
from embedded_wallet_crypto import passkeys

from ._show import (
    ACCOUNT_ID,
    ORGANIZATION_ID,
    CheckFailed,
    Show,
    check,
    rejected,
    short,
    short_json,
)

__all__ = ["PasskeyDemo"]

RP_ID = "wallet.example"
ORIGIN = "https://wallet.example"
EVIL_ORIGIN = "https://evil.example"


@dataclass
class PasskeyDemo:
    """The device's authenticator and the server's record of its passkey, between the steps."""

    authenticator: passkeys.SoftwareAuthenticator = field(
        default_factory=lambda: passkeys.SoftwareAuthenticator(attestation="packed")
    )
    registered: passkeys.RegisteredPasskey | None = None

    def register(self, show: Show) -> None:
        challenge = os.urandom(32)  # issued by the platform backend (formats.md section 6)
        attestation = self.authenticator.register(rp_id=RP_ID, origin=ORIGIN, challenge=challenge)
        show(f"client -> server  attestation {short_json(attestation)}")
        self.registered = passkeys.verify_registration(
            attestation, expected_challenge=challenge, rp_id=RP_ID, origin=ORIGIN
        )
        show(
            f"server: stored {self.registered.fmt} passkey, COSE key "
            f"{short(self.registered.public_key.hex())}, sign count {self.registered.sign_count}"
        )
        code = rejected(
            lambda: passkeys.verify_registration(
                attestation, expected_challenge=os.urandom(32), rp_id=RP_ID, origin=ORIGIN
            ),
            ewc.PasskeyError,
        )
        show(f"the same attestation against another challenge -> {code}")

    def login(self, show: Show) -> None:
        registered = self.registered
        if registered is None:
            raise CheckFailed("an earlier step did not register the passkey")
        client = ewc.KeyPair.generate()
        show(f"client -> server  /challenge {{clientPublicKey: {short(client.public_key_hex())}}}")
        issued = passkeys.issue_session_challenge(
            client_public_key=client.public_key_hex(),
            organization_id=ORGANIZATION_ID,
            account_id=ACCOUNT_ID,
        )
        show(f"server -> client  {short_json(issued.to_response())}")
        show(f"                  challenge = hex SHA-256 of {short(issued.body)}")
        assertion = self.authenticator.authenticate(
            rp_id=RP_ID, origin=ORIGIN, challenge=issued.expected_challenge
        )
        sent = {name: value for name, value in assertion.items() if value is not None}
        show(f"client -> server  /verify assertion {short_json(sent)}")
        verify = functools.partial(
            passkeys.verify_session_assertion,
            credential_public_key=registered.public_key,
            rp_id=RP_ID,
        )
        session = verify(
            assertion,
            session_creation_body=issued.body,
            request_id=issued.request_id,
            origin=ORIGIN,
            current_sign_count=registered.sign_count,
        )
        check(session.client_public_key == client.public_key_hex(), "another key was bound")
        sealed = ewc.seal_session_key(session.client_public_key, ewc.KeyPair.generate())
        ewc.open_session_key(sealed, client)
        show(
            f"server: sign count {session.assertion.new_sign_count}; session key sealed to the "
            "bound clientPublicKey, and the client opened it"
        )
        swapped = passkeys.issue_session_challenge(
            client_public_key=ewc.KeyPair.generate().public_key_hex(),
            organization_id=ORGANIZATION_ID,
            account_id=ACCOUNT_ID,
        )
        sandbox_value = {**assertion, "signature": passkeys.SANDBOX_PASSKEY_SIGNATURE}
        after = session.assertion.new_sign_count
        # (what the attacker sends, the code the server must answer with, body, origin, ...)
        attempts = [
            ("the same assertion again (a replay)", "SIGN_COUNT_REGRESSION", issued, ORIGIN),
            ("the assertion for a body binding another key", "CHALLENGE_MISMATCH", swapped, ORIGIN),
            ("the assertion sent on to another origin", "ORIGIN_MISMATCH", issued, EVIL_ORIGIN),
            ("signature sandbox-valid-passkey-signature", "SIGNATURE_INVALID", issued, ORIGIN),
        ]
        for label, wanted, challenge, origin in attempts:
            code = rejected(
                functools.partial(
                    verify,
                    sandbox_value if wanted == "SIGNATURE_INVALID" else assertion,
                    session_creation_body=challenge.body,
                    request_id=challenge.request_id,
                    origin=origin,
                    current_sign_count=after if wanted == "SIGN_COUNT_REGRESSION" else 0,
                ),
                ewc.PasskeyError,
            )
            show(f"{label:<52}-> {code}")
            check(code == f"PASSKEY_{wanted}", f"{label}: expected PASSKEY_{wanted}, got {code}")
