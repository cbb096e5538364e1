"""import.json: wallet and private-key import (formats.md section 12)."""

from __future__ import annotations

import json
from typing import Any

from . import _envelope_writer as w
from . import _key_format_reference as kf
from . import _reference as ref
from ._common import Case, case, key, seal, stream, vector_file

DESCRIPTION = (
    "Wallet and private-key import (formats.md section 12). import_seal: the import bundle data "
    "{targetPublic, organizationId, userId} the enclave signs (userId may be empty). "
    "import_encrypt_wallet / import_encrypt_private_key: the client checks the import bundle "
    "(version, signer pinned, signature over the data bytes, organization and user when not "
    "null; the legacy v0 form {targetPublic, targetPublicSignature}, signed over the 65 raw key "
    "bytes, only when both are null), checks the secret (BIP-39 English mnemonic with an "
    "optional passphrase joined by '\\n--PASS--\\n'; a key decoded from key_format), then "
    "HPKE-seals it to targetPublic with a fixed ephemeral key and writes "
    "{encappedPublic, ciphertext}. import_open: the enclave opens it with the target key."
)
ORG = "org-vectors"
USER = "User:vectors"
TARGET = "import-target"
SIGNER = "import-signer"
PASS = "\n--PASS--\n"  # noqa: S105 - the passphrase separator, not a secret


def _mnemonic(label: str, length: int) -> str:
    return kf.mnemonic(stream(f"import/{label}", length))


MNEMONIC = _mnemonic("wallet-12", 16)


def _data(**changes: Any) -> bytes:
    data: dict[str, Any] = {
        "targetPublic": w.public_hex(TARGET),
        "organizationId": ORG,
        "userId": USER,
    }
    for name, value in changes.items():
        if value is None:
            data.pop(name)
        else:
            data[name] = value
    return w.compact(data)


def _sealed(plaintext: bytes, ephemeral: str) -> str:
    enc, ciphertext = seal(key(TARGET)[1], plaintext, ephemeral)
    return json.dumps(
        {"encappedPublic": enc.hex(), "ciphertext": ciphertext.hex()}, separators=(",", ":")
    )


def _legacy(signer: str | None, **overrides: Any) -> str:
    target = key(TARGET)[1]
    fields: dict[str, Any] = {
        "targetPublic": target.hex(),
        "targetPublicSignature": w.signature(signer, target).hex() if signer else "",
    }
    fields.update(overrides)
    return json.dumps({k: v for k, v in fields.items() if v is not None}, separators=(",", ":"))


def _seal_case(
    case_id: str, error: str | None, comment: str, *, signer: str | None = SIGNER, **inputs: Any
) -> Case:
    all_inputs = {
        "target_public_key": w.public_hex(TARGET),
        "organization_id": ORG,
        "user_id": USER,
        "signer_private_key": w.private_hex(signer) if signer else None,
    } | inputs
    expected = None
    if error is None:
        data = _data(userId=all_inputs["user_id"])
        expected = {
            "data": data.hex(),
            "enclave_quorum_public": w.public_hex(signer) if signer else "",
        }
    return case(f"import-seal-{case_id}", "import_seal", all_inputs, expected=expected,
                error=error, comment=comment)  # fmt: skip


def _seal_cases() -> list[Case]:
    return [
        _seal_case("signed", None, "a signed import bundle"),
        _seal_case("sandbox", None, "no signer: the sandbox form", signer=None),
        _seal_case("organization-level", None, "an empty userId (an organization-level secret)",
                   user_id=""),
        _seal_case("upper-case-target", None, "targetPublic is written in lowercase",
                   target_public_key=w.public_hex(TARGET).upper()),
        _seal_case("target-off-curve", "INVALID_POINT", "a target key off the curve",
                   target_public_key=w.point_off_curve(TARGET).hex()),
        _seal_case("empty-organization", "ENVELOPE_PARAMETERS_INVALID",
                   "an empty organization id", organization_id=""),
    ]  # fmt: skip


def _wallet(
    case_id: str,
    bundle: str,
    error: str | None,
    comment: str,
    *,
    mnemonic: str = MNEMONIC,
    passphrase: str | None = None,
    plaintext: str | None = None,
    signer_public_key: str | None = None,
    sandbox: bool = False,
    organization_id: str | None = ORG,
    user_id: str | None = USER,
) -> Case:
    ephemeral = f"import-wallet-{case_id}/ephemeral"
    inputs = {
        "import_bundle": bundle,
        "mnemonic": mnemonic,
        "passphrase": passphrase,
        "signer_public_key": signer_public_key or w.public_hex(SIGNER),
        "sandbox": sandbox,
        "organization_id": organization_id,
        "user_id": user_id,
        "ephemeral_private_key": w.private_hex(ephemeral),
    }
    expected = None
    if error is None:
        sealed_text = plaintext if plaintext is not None else mnemonic
        expected = {"encrypted_bundle": _sealed(sealed_text.encode(), ephemeral)}
    return case(f"import-wallet-{case_id}", "import_encrypt_wallet", inputs, expected=expected,
                error=error, comment=comment)  # fmt: skip


def _wallet_cases() -> list[Case]:
    data = _data()
    signed = w.envelope(data, SIGNER)
    org_level = w.envelope(_data(userId=""), SIGNER)
    words24 = _mnemonic("wallet-24", 32)
    changed = data.replace(b"User:vectors", b"User:vectorz")
    no_user = {"organization_id": None, "user_id": None}
    table: list[tuple[str, str, str | None, str, dict[str, Any]]] = [
        ("signed", signed, None, "a 12-word mnemonic, organization and user checked", {}),
        ("24-words", signed, None, "a 24-word mnemonic", {"mnemonic": words24}),
        ("passphrase", signed, None, "a passphrase, joined as the import frame does",
         {"passphrase": "TREZOR é", "plaintext": MNEMONIC + PASS + "TREZOR é"}),
        ("whitespace", signed, None, "words separated by tabs and runs of spaces: sealed joined "
         "by single spaces", {"mnemonic": "  " + MNEMONIC.replace(" ", "\t  ") + " ",
                              "plaintext": MNEMONIC}),
        ("high-s", w.envelope(data, SIGNER, high_s=True), None, "a high-S signature", {}),
        ("organization-level", org_level, None, "an empty userId, expected empty",
         {"user_id": ""}),
        ("no-checks", signed, None, "organization_id and user_id null", no_user),
        ("sandbox-opt-in", w.envelope(data, None), None, "the sandbox form with sandbox true",
         {"sandbox": True}),
        ("legacy-v0", _legacy(SIGNER), None, "the v0 form, both checks opted out", no_user),
        ("legacy-v0-with-quorum", _legacy(SIGNER, enclaveQuorumPublic=w.public_hex(SIGNER)),
         None, "the v0 form naming the pinned signer", no_user),
        ("legacy-v0-with-organization", _legacy(SIGNER), w.ORGANIZATION_MISMATCH,
         "a v0 bundle names no organization", {"user_id": None}),
        ("legacy-v0-with-user", _legacy(SIGNER), "ENVELOPE_USER_MISMATCH",
         "a v0 bundle names no user", {"organization_id": None}),
        ("legacy-v0-unpinned", _legacy("import-impostor"), w.SIGNATURE_INVALID,
         "a v0 signature by another key", no_user),
        ("legacy-v0-quorum-unpinned", _legacy(SIGNER, enclaveQuorumPublic=w.public_hex(
            "import-impostor")), w.NOT_PINNED, "a v0 bundle naming another signer", no_user),
        ("legacy-v0-unsigned", _legacy(None), w.UNSIGNED, "an unsigned v0 bundle", no_user),
        ("unpinned-signer", w.envelope(data, "import-impostor"), w.NOT_PINNED,
         "validly signed by a key that is not the pinned one", {}),
        ("data-one-byte-changed", w.envelope(data, SIGNER, data=changed.hex()),
         w.SIGNATURE_INVALID, "one byte of the data changed, signature kept", {}),
        ("target-swapped", w.envelope(data, SIGNER, data=_data(
            targetPublic=w.public_hex("import-impostor")).hex()), w.SIGNATURE_INVALID,
         "targetPublic swapped for an attacker's key, signature kept", {}),
        ("sandbox-no-opt-in", w.envelope(data, None), w.UNSIGNED,
         "the sandbox form without the sandbox opt-in", {}),
        ("bad-version", w.envelope(data, SIGNER, version="v0.9.0"), w.VERSION_UNSUPPORTED,
         "version v0.9.0", {}),
        ("data-missing-user", w.envelope(_data(userId=None), SIGNER), w.DATA_MALFORMED,
         "signed data without userId", {}),
        ("target-off-curve", w.envelope(_data(targetPublic=w.point_off_curve(TARGET).hex()),
         SIGNER), "ENVELOPE_TARGET_KEY_INVALID", "targetPublic not on the curve (signed)", {}),
        ("wrong-organization", signed, w.ORGANIZATION_MISMATCH, "expected org-other",
         {"organization_id": "org-other"}),
        ("wrong-user", signed, "ENVELOPE_USER_MISMATCH", "expected User:other",
         {"user_id": "User:other"}),
        ("user-expected-empty", signed, "ENVELOPE_USER_MISMATCH",
         "an organization-level import expected, the bundle names a user", {"user_id": ""}),
        ("not-json", signed[:-1], w.MALFORMED, "the bundle JSON cut short", {}),
        ("mnemonic-checksum", signed, "MNEMONIC_CHECKSUM", "the last word replaced",
         {"mnemonic": kf.damaged_mnemonic(MNEMONIC)}),
        ("mnemonic-unknown-word", signed, "MNEMONIC_UNKNOWN_WORD", "a word not in the list",
         {"mnemonic": "bitcoin " + MNEMONIC.split(" ", 1)[1]}),
        ("mnemonic-word-count", signed, "MNEMONIC_WORD_COUNT", "11 words",
         {"mnemonic": MNEMONIC.rsplit(" ", 1)[0]}),
        ("mnemonic-multiline", signed, "MNEMONIC_MULTILINE",
         "mnemonic and passphrase on two lines", {"mnemonic": MNEMONIC + "\nTREZOR"}),
        ("bundle-before-mnemonic", w.envelope(data, "import-impostor"), w.NOT_PINNED,
         "a bad bundle and a bad mnemonic: the bundle is checked first",
         {"mnemonic": "bitcoin"}),
    ]  # fmt: skip
    return [_wallet(cid, bundle, err, comment, **opts) for cid, bundle, err, comment, opts in table]


def _private_key(
    case_id: str,
    text: str,
    fmt: str,
    raw: bytes | None,
    error: str | None,
    comment: str,
    bundle: str | None = None,
) -> Case:
    ephemeral = f"import-key-{case_id}/ephemeral"
    inputs = {
        "import_bundle": bundle or w.envelope(_data(), SIGNER),
        "private_key": text,
        "key_format": fmt,
        "signer_public_key": w.public_hex(SIGNER),
        "sandbox": False,
        "organization_id": ORG,
        "user_id": USER,
        "ephemeral_private_key": w.private_hex(ephemeral),
    }
    expected = {"encrypted_bundle": _sealed(raw, ephemeral)} if raw is not None else None
    return case(f"import-key-{case_id}", "import_encrypt_private_key", inputs,
                expected=expected, error=error, comment=comment)  # fmt: skip


def _private_key_cases() -> list[Case]:
    raw = stream("import/private-key", 32)
    formats = ["HEXADECIMAL", "SOLANA", "BITCOIN_MAINNET_WIF", "BITCOIN_TESTNET_WIF", "SUI_BECH32"]
    cases = [
        _private_key(fmt.lower().replace("_", "-"), kf.encode(raw, fmt), fmt, raw, None,
                     "the key typed in this format: its 32 bytes are sealed")
        for fmt in formats
    ]  # fmt: skip
    cases += [
        _private_key("hex-0x", "0x" + raw.hex(), "HEXADECIMAL", raw, None, "hex with 0x"),
        _private_key("wif-wrong-network", kf.encode(raw, "BITCOIN_TESTNET_WIF"),
                     "BITCOIN_MAINNET_WIF", None, "WIF_VERSION_MISMATCH", "a testnet WIF"),
        _private_key("solana-mismatched-half", ref.b58encode(raw + kf.ed25519_public_key(
            stream("import/other", 32))), "SOLANA", None, "SOLANA_PUBLIC_KEY_MISMATCH",
                     "the public half of another seed"),
        _private_key("wrong-signer", raw.hex(), "HEXADECIMAL", None, w.NOT_PINNED,
                     "signed by another key", bundle=w.envelope(_data(), "import-impostor")),
    ]  # fmt: skip
    return cases


def _open_cases() -> list[Case]:
    plaintext = (MNEMONIC + PASS + "TREZOR").encode()
    sealed = _sealed(plaintext, "import-open/ephemeral")
    fields = json.loads(sealed)

    def opened(
        case_id: str, bundle: str, error: str | None, comment: str, target: str = TARGET
    ) -> Case:
        inputs = {"target_private_key": w.private_hex(target), "encrypted_bundle": bundle}
        expected = {"plaintext": plaintext.hex()} if error is None else None
        return case(f"import-open-{case_id}", "import_open", inputs, expected=expected,
                    error=error, comment=comment)  # fmt: skip

    return [
        opened("wallet", sealed, None, "a mnemonic with a passphrase, opened by the enclave"),
        opened("wrong-target", sealed, w.DECRYPTION, "another target key", "import-other"),
        opened("truncated", json.dumps({**fields, "ciphertext": fields["ciphertext"][:-2]},
               separators=(",", ":")), w.DECRYPTION, "the last ciphertext byte removed"),
        opened("encoded-twice", json.dumps(sealed), w.MALFORMED, "JSON-encoded twice"),
        opened("no-ciphertext", json.dumps({"encappedPublic": fields["encappedPublic"]}),
               w.MALFORMED, "no ciphertext"),
    ]  # fmt: skip


def build() -> dict[str, Any]:
    return vector_file(
        DESCRIPTION, _seal_cases() + _wallet_cases() + _private_key_cases() + _open_cases()
    )
