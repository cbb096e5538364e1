"""The error contract over the key infrastructure's webhooks (formats.md section 17):
``verify_turnkey_webhook`` (each argument, and each header value in turn) and
``sign_turnkey_webhook``. Only WalletCryptoError or TypeError escapes, an int is never a buffer
size (see ``tests/_contract.py``)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import embedded_wallet_crypto as ewc
from _contract import Entry, contract_tests

SEED = bytes(range(32))
PUBLIC = bytes.fromhex("03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8")
TS = 1_767_225_600_000
NOW = datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(milliseconds=TS)
BODY = b'{"type":"ACTIVITY_COMPLETED"}'
HEADERS = ewc.sign_turnkey_webhook(
    BODY, private_key=SEED, key_id="whk-1", event_id="evt_1", timestamp_ms=TS
)


def _verify_header_values(**values: Any) -> object:
    headers = {**HEADERS, **{k.replace("_", "-"): v for k, v in values.items()}}
    return ewc.verify_turnkey_webhook(
        headers, BODY, verification_keys={"whk-1": PUBLIC}, max_age_seconds=300, now=NOW
    )


ENTRIES = [
    Entry(
        "verify_turnkey_webhook",
        ewc.verify_turnkey_webhook,
        {
            "headers": HEADERS,
            "body": BODY,
            "verification_keys": {"whk-1": PUBLIC},
            "max_age_seconds": 300,
            "now": NOW,
        },
        frozenset({"body"}),
    ),
    Entry(
        "verify_turnkey_webhook (header values)",
        _verify_header_values,
        {name.replace("-", "_"): value for name, value in HEADERS.items()},
    ),
    Entry(
        "verify_turnkey_webhook (key values)",
        lambda key: ewc.verify_turnkey_webhook(
            HEADERS, BODY, verification_keys={"whk-1": key}, max_age_seconds=300, now=NOW
        ),
        {"key": PUBLIC},
        frozenset({"key"}),
    ),
    Entry(
        "verify_turnkey_webhook (pairs)",
        lambda name, value: ewc.verify_turnkey_webhook(
            [*HEADERS.items(), (name, value)],
            BODY,
            verification_keys={"whk-1": PUBLIC},
            max_age_seconds=300,
            now=NOW,
        ),
        {"name": "x-other", "value": "1"},
    ),
    Entry(
        "sign_turnkey_webhook",
        ewc.sign_turnkey_webhook,
        {
            "body": BODY,
            "private_key": SEED,
            "key_id": "whk-1",
            "event_id": "evt_1",
            "timestamp_ms": TS,
        },
        frozenset({"body", "private_key"}),
    ),
]


(
    test_valid_arguments_are_valid,
    test_every_argument_times_every_hostile_value,
    test_drawn_hostile_values,
) = contract_tests(ENTRIES)
