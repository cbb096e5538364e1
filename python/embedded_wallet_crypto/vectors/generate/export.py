"""export.json: wallet export envelopes, encryptedWalletCredentials (formats.md section 8)."""

from __future__ import annotations

import json
from typing import Any

from . import _envelope_writer as w
from ._common import Case, case, flip_bit, key, seal, vector_file

DESCRIPTION = (
    "Wallet export envelopes (formats.md section 8): {version v1.0.0, data (hex of the JSON "
    "{encappedPublic, ciphertext, organizationId}), dataSignature (DER over the data bytes), "
    "enclaveQuorumPublic}. export_open checks in order: version, signer pinned (the embedded "
    "key must be signer_public_key), signature over the exact data bytes (high-S accepted), "
    "organization, then HPKE-opens with the client key; an unsigned (sandbox) envelope opens "
    "only with sandbox true; legacy v0 {encappedPublic, encappedPublicSignature, ciphertext} is "
    "read. export_seal: the data the server writes for a fixed ephemeral key."
)
ORG = "org-vectors"
# A non-ASCII organization id: the real infrastructure writes it as raw UTF-8, not \u escapes.
ORG_UTF8 = "org-\u00e9t\u00e9-\u65e5\u672c"
CLIENT = "export-client"
SIGNER = "export-signer"
MNEMONIC = b"legal winner thank year wave sausage worth useful legal winner thank yellow"
RAW_KEY = bytes(range(1, 33))
PRODUCTION_SIGNER = (
    "04cf288fe433cc4e1aa0ce1632feac4ea26bf2f5a09dcfe5a42c398e06898710330f0572882f4dbdf0f5304b8fc"
    "8703acd69adca9a4bbf7f5d00d20a5e364b2569"
)


def _inner(
    plaintext: bytes = MNEMONIC, ephemeral: str = "export/ephemeral", **changes: Any
) -> dict[str, Any]:
    enc, ciphertext = seal(key(CLIENT)[1], plaintext, ephemeral)
    inner: dict[str, Any] = {
        "encappedPublic": enc.hex(),
        "ciphertext": ciphertext.hex(),
        "organizationId": ORG,
    }
    for name, value in changes.items():
        if value is None:
            inner.pop(name)
        else:
            inner[name] = value
    return inner


def _open(
    case_id: str,
    bundle: str,
    comment: str,
    *,
    plaintext: bytes | None = None,
    error: str | None = None,
    client: str = CLIENT,
    organization_id: str | None = ORG,
    signer_public_key: str | None = None,
    sandbox: bool = False,
) -> Case:
    inputs = {
        "bundle": bundle,
        "client_private_key": w.private_hex(client),
        "organization_id": organization_id,
        "signer_public_key": signer_public_key or w.public_hex(SIGNER),
        "sandbox": sandbox,
    }
    expected = {"plaintext": plaintext.hex()} if plaintext is not None else None
    return case(
        f"export-open-{case_id}",
        "export_open",
        inputs,
        expected=expected,
        error=error,
        comment=comment,
    )


def _utf8(document: dict[str, Any]) -> bytes:
    """Compact JSON with non-ASCII characters as raw UTF-8 (formats.md section 12)."""
    return json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode()


def _valid_cases() -> list[Case]:
    signed = w.envelope(w.compact(_inner()), SIGNER)
    upper = json.loads(signed)
    upper = {k: v.upper() if k != "version" else v for k, v in upper.items()}
    extra = json.loads(signed) | {"comment": "ignored"}
    inner_extra = w.compact(_inner() | {"walletId": "Wallet:1"})
    return [
        _open("mnemonic", signed, "a wallet export: the UTF-8 mnemonic", plaintext=MNEMONIC),
        _open(
            "raw-key",
            w.envelope(w.compact(_inner(RAW_KEY, "export/raw-key/ephemeral")), SIGNER),
            "a key export: the raw 32-byte private key",
            plaintext=RAW_KEY,
        ),
        _open(
            "high-s",
            w.envelope(w.compact(_inner()), SIGNER, high_s=True),
            "the signature in its high-S form (real envelopes carry both)",
            plaintext=MNEMONIC,
        ),
        _open(
            "no-organization-check",
            signed,
            "organization_id null: no organization check",
            plaintext=MNEMONIC,
            organization_id=None,
        ),
        _open(
            "upper-case-hex",
            json.dumps(upper),
            "data, dataSignature and enclaveQuorumPublic in upper-case hex, JSON with spaces",
            plaintext=MNEMONIC,
        ),
        _open("extra-fields", json.dumps(extra), "an unknown outer field", plaintext=MNEMONIC),
        _open(
            "extra-data-field",
            w.envelope(inner_extra, SIGNER),
            "an unknown field in the signed data",
            plaintext=MNEMONIC,
        ),
        _open(
            "sandbox-opt-in",
            w.envelope(w.compact(_inner()), None),
            "the sandbox form (empty signature fields) with sandbox true",
            plaintext=MNEMONIC,
            sandbox=True,
        ),
        _open(
            "sandbox-still-verifies-signed",
            signed,
            "sandbox true does not skip the check of a signed envelope",
            plaintext=MNEMONIC,
            sandbox=True,
        ),
        _open(
            "non-ascii-organization",
            w.envelope(_utf8(_inner(organizationId=ORG_UTF8)), SIGNER),
            "a non-ASCII organizationId written as raw UTF-8 in the signed data",
            plaintext=MNEMONIC,
            organization_id=ORG_UTF8,
        ),
        _open(
            "non-ascii-organization-escaped",
            w.envelope(w.compact(_inner(organizationId=ORG_UTF8)), SIGNER),
            "the same organizationId written with \\u escapes: the same string",
            plaintext=MNEMONIC,
            organization_id=ORG_UTF8,
        ),
    ]


def _negative_cases() -> list[Case]:
    inner = w.compact(_inner())
    signed = w.envelope(inner, SIGNER)
    changed = inner.replace(b"org-vectors", b"org-vectorz")
    over_hex_text = w.signature(SIGNER, inner.hex().encode()).hex()
    flipped_enc = flip_bit(bytes.fromhex(_inner()["encappedPublic"]), 40).hex()
    off_curve = w.point_off_curve("export/ephemeral").hex()
    truncated = _inner()["ciphertext"][:-2]
    impostor = "export-impostor"
    repeated_version = signed.replace('"version":', '"version":"v2","version":', 1)
    repeated_organization = inner.replace(
        b'"organizationId":', b'"organizationId":"org-other","organizationId":'
    )

    def data(**changes: Any) -> str:
        return w.envelope(w.compact(_inner(**changes)), SIGNER)

    # (id, bundle, error, comment, other inputs)
    table: list[tuple[str, str, str, str, dict[str, Any]]] = [
        ("wrong-organization", signed, w.ORGANIZATION_MISMATCH,
         "signed for org-vectors, opened as org-other", {"organization_id": "org-other"}),
        ("unpinned-signer", w.envelope(inner, impostor), w.NOT_PINNED,
         "validly signed by a key that is not the pinned one", {}),
        ("production-pinned", signed, w.NOT_PINNED,
         "pinned to the production signer: this is not it",
         {"signer_public_key": PRODUCTION_SIGNER}),
        ("embedded-key-swapped", w.envelope(inner, SIGNER, embedded=impostor), w.NOT_PINNED,
         "signed by the pinned key but naming another enclaveQuorumPublic", {}),
        ("signed-by-other-key", w.envelope(inner, impostor, embedded=SIGNER),
         w.SIGNATURE_INVALID, "names the pinned key but was signed by another", {}),
        ("data-one-byte-changed", w.envelope(inner, SIGNER, data=changed.hex()),
         w.SIGNATURE_INVALID, "one byte of the data changed (still valid JSON)", {}),
        ("signature-over-hex-text", w.envelope(inner, SIGNER, dataSignature=over_hex_text),
         w.SIGNATURE_INVALID, "signed over the data's hex text instead of its bytes", {}),
        ("signature-stripped", w.envelope(inner, SIGNER, dataSignature=""), w.SIGNATURE_INVALID,
         "dataSignature emptied, enclaveQuorumPublic kept", {}),
        ("signature-not-der", w.envelope(inner, SIGNER, dataSignature="00" * 64),
         w.SIGNATURE_INVALID, "a 64-byte raw signature instead of DER", {}),
        ("sandbox-no-opt-in", w.envelope(inner, None), w.UNSIGNED,
         "the unsigned sandbox form without the sandbox opt-in", {}),
        ("signature-without-signer", w.envelope(inner, SIGNER, enclaveQuorumPublic=""),
         w.UNSIGNED, "a valid signature but no enclaveQuorumPublic: names no signer", {}),
        ("signature-without-signer-sandbox", w.envelope(inner, SIGNER, enclaveQuorumPublic=""),
         w.UNSIGNED, "sandbox true: a signature without a signer is not the sandbox form",
         {"sandbox": True}),
        ("sandbox-unpinned-signer", w.envelope(inner, impostor), w.NOT_PINNED,
         "sandbox true, signed by an unpinned key: still refused", {"sandbox": True}),
        ("wrong-client-key", signed, w.DECRYPTION, "opened with another client key",
         {"client": "export-other-client"}),
        ("bad-version", w.envelope(inner, SIGNER, version="v2.0.0"), w.VERSION_UNSUPPORTED,
         "version v2.0.0", {}),
        ("version-number", w.envelope(inner, SIGNER, version=1), w.VERSION_UNSUPPORTED,
         "version 1 (a number)", {}),
        ("inner-missing-organization", data(organizationId=None), w.DATA_MALFORMED,
         "signed data without organizationId", {}),
        ("inner-missing-ciphertext", data(ciphertext=None), w.DATA_MALFORMED,
         "signed data without ciphertext", {}),
        ("inner-organization-number", data(organizationId=7), w.DATA_MALFORMED,
         "organizationId is a number", {}),
        ("inner-not-utf8", w.envelope(b"\xff" + inner, SIGNER), w.DATA_MALFORMED,
         "signed data that is not UTF-8", {}),
        ("inner-not-object", w.envelope(b"[]", SIGNER), w.DATA_MALFORMED,
         "signed data that is a JSON array", {}),
        ("encapped-public-off-curve", data(encappedPublic=off_curve), w.DECRYPTION,
         "encappedPublic 04 || x || y+1, not on the curve (signed)", {}),
        ("encapped-public-flipped", data(encappedPublic=flipped_enc), w.DECRYPTION,
         "one bit of encappedPublic flipped (signed)", {}),
        ("truncated-ciphertext", data(ciphertext=truncated), w.DECRYPTION,
         "the ciphertext's last byte removed (signed)", {}),
        ("data-not-hex", w.envelope(inner, SIGNER, data="zz" + inner.hex()), w.MALFORMED,
         "data is not hex", {}),
        ("missing-signature-field", w.envelope(inner, SIGNER, dataSignature=None), w.MALFORMED,
         "no dataSignature field", {}),
        ("not-json", signed[:-1], w.MALFORMED, "the envelope JSON cut short", {}),
        ("json-array", "[" + signed + "]", w.MALFORMED, "a JSON array", {}),
        ("encoded-twice", json.dumps(signed), w.MALFORMED,
         "the envelope JSON-encoded twice (a JSON string)", {}),
        ("deep-nesting", w.deeply_nested(), w.MALFORMED,
         f"an extra field nested {w.DEEP_NESTING} deep", {}),
        ("huge-integer", w.huge_integer(), w.MALFORMED,
         "an extra field holding a 1000-digit integer", {}),
        ("repeated-key", repeated_version, w.MALFORMED,
         "version given twice (a reader that keeps the last one would open it)", {}),
        ("inner-repeated-organization", w.envelope(repeated_organization, SIGNER),
         w.DATA_MALFORMED,
         "organizationId twice in the signed data, another organization first", {}),
    ]  # fmt: skip
    return [
        _open(case_id, bundle, comment, error=error, **options)
        for case_id, bundle, error, comment, options in table
    ]


def _legacy_cases() -> list[Case]:
    enc, ciphertext = seal(key(CLIENT)[1], MNEMONIC, "export/legacy/ephemeral")

    def legacy(signer: str | None, **extra: str) -> str:
        fields = {
            "encappedPublic": enc.hex(),
            "encappedPublicSignature": w.signature(signer, enc).hex() if signer else "",
            "ciphertext": ciphertext.hex(),
        }
        return json.dumps(fields | extra, separators=(",", ":"))

    impostor = "export-impostor"
    no_org: dict[str, Any] = {"organization_id": None}
    # (id, bundle, error or None for MNEMONIC, comment, other inputs)
    table: list[tuple[str, str, str | None, str, dict[str, Any]]] = [
        ("legacy-v0", legacy(SIGNER), None,
         "v0: the signature covers the encappedPublic bytes", no_org),
        ("legacy-v0-with-signer", legacy(SIGNER, enclaveQuorumPublic=w.public_hex(SIGNER)), None,
         "v0 carrying the pinned enclaveQuorumPublic", no_org),
        ("legacy-v0-unpinned", legacy(impostor), w.SIGNATURE_INVALID,
         "v0 signed by another key", no_org),
        ("legacy-v0-embedded-unpinned",
         legacy(impostor, enclaveQuorumPublic=w.public_hex(impostor)), w.NOT_PINNED,
         "v0 naming another signer", no_org),
        ("legacy-v0-organization", legacy(SIGNER), w.ORGANIZATION_MISMATCH,
         "v0 names no organization: it cannot match an expected one", {}),
        ("legacy-v0-unsigned", legacy(None), w.UNSIGNED,
         "v0 with an empty signature, no sandbox", no_org),
        ("legacy-v0-unsigned-sandbox", legacy(None), None, "v0 unsigned, sandbox true",
         no_org | {"sandbox": True}),
    ]  # fmt: skip
    return [
        _open(
            case_id,
            bundle,
            comment,
            plaintext=None if error else MNEMONIC,
            error=error,
            **options,
        )
        for case_id, bundle, error, comment, options in table
    ]


def _seal(
    case_id: str,
    comment: str,
    *,
    signer: str | None = SIGNER,
    secret: bytes = MNEMONIC,
    client_public_key: str | None = None,
    organization_id: str = ORG,
    error: str | None = None,
) -> Case:
    ephemeral = f"export-seal-{case_id}/ephemeral"
    inputs = {
        "client_public_key": client_public_key or w.public_hex(CLIENT),
        "secret": secret.hex(),
        "organization_id": organization_id,
        "signer_private_key": w.private_hex(signer) if signer else None,
        "ephemeral_private_key": w.private_hex(ephemeral),
    }
    expected = None
    if error is None:
        enc, ciphertext = seal(key(CLIENT)[1], secret, ephemeral)
        inner = {"encappedPublic": enc.hex(), "ciphertext": ciphertext.hex()}
        data = _utf8(inner | {"organizationId": organization_id})
        expected = {
            "data": data.hex(),
            "enclave_quorum_public": w.public_hex(signer) if signer else "",
        }
    return case(
        f"export-seal-{case_id}",
        "export_seal",
        inputs,
        expected=expected,
        error=error,
        comment=comment,
    )


def _seal_cases() -> list[Case]:
    return [
        _seal("mnemonic", "a signed wallet export"),
        _seal("raw-key", "a signed key export", secret=RAW_KEY),
        _seal("sandbox", "no signer: the sandbox form, empty signature fields", signer=None),
        _seal(
            "client-key-off-curve",
            "a client key off the curve",
            client_public_key=w.point_off_curve(CLIENT).hex(),
            error="INVALID_POINT",
        ),
        _seal(
            "empty-organization",
            "an empty organization id",
            organization_id="",
            error="ENVELOPE_PARAMETERS_INVALID",
        ),
        _seal(
            "non-ascii-organization",
            "a non-ASCII organization id: raw UTF-8 in the signed data",
            organization_id=ORG_UTF8,
        ),
    ]


def build() -> dict[str, Any]:
    cases = _valid_cases() + _negative_cases() + _legacy_cases() + _seal_cases()
    return vector_file(DESCRIPTION, cases)
