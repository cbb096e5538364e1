"""The error contract over ``ewc.tokens``: verifying and minting session JWTs and OTP
verification tokens. Only WalletCryptoError or TypeError escapes (see ``tests/_contract.py``)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import embedded_wallet_crypto as ewc
from _contract import Entry, contract_tests
from embedded_wallet_crypto import tokens

SIGNER = ewc.KeyPair.from_private_hex("22" * 32)
NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)
LATER = NOW + timedelta(minutes=5)
VERIFICATION = {
    "verification_type": "OTP_TYPE_EMAIL",
    "contact": "user@example.com",
    "organization_id": "org-1",
    "public_key": SIGNER.public_key_hex(compressed=True),
}
SESSION = {
    "public_key": SIGNER.public_key_hex(compressed=True),
    "user_id": "user-1",
    "organization_id": "org-1",
    "session_type": "SESSION_TYPE_READ_WRITE",
}

ENTRIES = [
    Entry(
        "verify_verification_token",
        tokens.verify_verification_token,
        {
            "token": tokens.mint_verification_token(
                SIGNER, token_id="v-1", expires_at=LATER, **VERIFICATION
            ),
            "signer_public_key": SIGNER.public_key_hex(),
            "now": NOW,
        },
        frozenset({"signer_public_key"}),
    ),
    Entry(
        "mint_verification_token",
        tokens.mint_verification_token,
        {"signer": SIGNER, "token_id": "v-1", "expires_at": LATER, **VERIFICATION},
    ),
    Entry(
        "verify_session_jwt",
        tokens.verify_session_jwt,
        {
            "token": tokens.mint_session_jwt(SIGNER, expires_at=LATER, **SESSION),
            "notarizer_public_key": SIGNER.public_key_hex(),
            "now": NOW,
        },
        frozenset({"notarizer_public_key"}),
    ),
    Entry(
        "mint_session_jwt",
        tokens.mint_session_jwt,
        {"signer": SIGNER, "expires_at": LATER, **SESSION},
    ),
]


(
    test_valid_arguments_are_valid,
    test_every_argument_times_every_hostile_value,
    test_drawn_hostile_values,
) = contract_tests(ENTRIES)
