"""The error contract over ``ewc.proofs``: app proofs, boot proofs (a real AWS Nitro
attestation document from the upstream vectors, when present, alone and as the whole boot proof
with its QOS manifest, envelope and pins) and their pairing. Only
WalletCryptoError or TypeError escapes (see ``tests/_contract.py``)."""

from __future__ import annotations

import base64
import json
from datetime import datetime, timedelta, timezone

import embedded_wallet_crypto as ewc
from _contract import Entry, contract_tests
from conftest import upstream_dir
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from embedded_wallet_crypto import proofs

ENCRYPTION = ewc.KeyPair.from_private_hex("55" * 32)
SIGNING = ewc.KeyPair.from_private_hex("66" * 32)
PAYLOAD = '{"type":"T","timestampMs":"1758058763571"}'
_r, _s = decode_dss_signature(SIGNING.sign(PAYLOAD.encode()))
APP_PROOF = {
    "scheme": proofs.APP_PROOF_SCHEME,
    "publicKey": ENCRYPTION.public_key_hex() + SIGNING.public_key_hex(),
    "proofPayload": PAYLOAD,
    "signature": (_r.to_bytes(32, "big") + _s.to_bytes(32, "big")).hex(),
}

ENTRIES = [
    Entry("verify_app_proof", proofs.verify_app_proof, {"app_proof": APP_PROOF}),
    Entry(
        "verify_app_proof (members)",
        lambda scheme, publicKey, proofPayload, signature: proofs.verify_app_proof(
            {
                "scheme": scheme,
                "publicKey": publicKey,
                "proofPayload": proofPayload,
                "signature": signature,
            }
        ),
        dict(APP_PROOF),
    ),
]

_MEMBERS = (
    "awsAttestationDocB64",
    "ephemeralPublicKeyHex",
    "qosManifestB64",
    "qosManifestEnvelopeB64",
)
_VECTORS = upstream_dir() / "turnkey-sdk" / "app_proofs.json"
if _VECTORS.exists():  # the boot proof entries need a real attestation document
    _document = json.loads(_VECTORS.read_text())
    _AT = datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(
        milliseconds=int(json.loads(_document["app_proof_1"]["proofPayload"])["timestampMs"])
    )
    ENTRIES += [
        Entry(
            "verify_boot_proof",
            proofs.verify_boot_proof,
            {
                "boot_proof": base64.b64decode(_document["boot_proof_1"]["awsAttestationDocB64"]),
                "now": _AT,
            },
            frozenset({"boot_proof"}),
        ),
        Entry(
            "verify_boot_proof (whole, pinned)",
            proofs.verify_boot_proof,
            {
                "boot_proof": _document["boot_proof_1"],
                "now": _AT,
                "pins": {
                    "pcr0": proofs.verify_boot_proof(
                        _document["boot_proof_1"]["awsAttestationDocB64"], now=_AT
                    )
                    .pcrs[0]
                    .hex(),
                    "approval_threshold": 2,
                },
            },
        ),
        Entry(
            "verify_boot_proof (members)",
            lambda **members: proofs.verify_boot_proof(members, now=_AT),
            {name: _document["boot_proof_1"][name] for name in _MEMBERS},
        ),
        Entry(
            "verify_app_proof_against_boot_proof",
            proofs.verify_app_proof_against_boot_proof,
            {
                "app_proof": _document["app_proof_1"],
                "boot_proof": _document["boot_proof_1"],
                "now": _AT,
            },
        ),
    ]


(
    test_valid_arguments_are_valid,
    test_every_argument_times_every_hostile_value,
    test_drawn_hostile_values,
) = contract_tests(ENTRIES)
