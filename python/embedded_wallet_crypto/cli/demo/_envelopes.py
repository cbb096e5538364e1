"""``ewc demo`` steps for the signed envelopes: the wallet export round trip (formats.md
section 8), the encrypted email OTP round trip (section 9) and the wallet and key import
(sections 12 and 13), each with tampered envelopes that the receiving side must reject."""

from __future__ import annotations

import functools
import json
from typing import Any

import embedded_wallet_crypto as ewc

from ...export import check_mnemonic
from ._show import ORGANIZATION_ID, Show, check, rejected, short, short_json

__all__ = ["export_round_trip", "import_round_trip", "otp_round_trip"]

# A BIP-39 test mnemonic (entropy 7f7f...7f), standing in for the wallet's.
MNEMONIC = "legal winner thank year wave sausage worth useful legal winner thank yellow"
USER_ID = "User:demo"


def _with_data_byte_changed(bundle: str) -> str:
    """The envelope with one byte of its signed data changed, the signature kept."""
    envelope = json.loads(bundle)
    data = bytearray(bytes.fromhex(envelope["data"]))
    data[-2] ^= 0x01
    envelope["data"] = data.hex()
    return json.dumps(envelope)


def export_round_trip(show: Show) -> None:
    enclave = ewc.KeyPair.generate()  # the signer a real client pins (production key)
    client = ewc.KeyPair.generate()
    bundle = ewc.seal_export_bundle(
        client.public_key_hex(), MNEMONIC, organization_id=ORGANIZATION_ID, signer=enclave
    )
    envelope = json.loads(bundle)
    show(f"server -> client  encryptedWalletCredentials {short_json(envelope)}")
    inner = json.loads(bytes.fromhex(envelope["data"]))
    show(f"                  data = hex of {short_json(inner)}")
    pinned = enclave.public_key_hex()
    opened = ewc.open_export_bundle(
        bundle, client, organization_id=ORGANIZATION_ID, signer_public_key=pinned
    )
    check(check_mnemonic(opened) == MNEMONIC, "the opened mnemonic is not the sealed one")
    show(f"client: signer pinned, signature and organization checked, opened {len(opened)} bytes")
    show("client: the plaintext passes the BIP-39 word list and checksum check")

    def sealed(signer: ewc.KeyPair | None) -> str:
        return ewc.seal_export_bundle(
            client.public_key_hex(), MNEMONIC, organization_id=ORGANIZATION_ID, signer=signer
        )

    # (what the client is handed, the envelope, the organization it expects, the code it must see)
    attacks = [
        ("one byte of the signed data changed", _with_data_byte_changed(bundle), ORGANIZATION_ID,
         "ENVELOPE_SIGNATURE_INVALID"),
        ("re-signed by a key that is not the pinned signer", sealed(ewc.KeyPair.generate()),
         ORGANIZATION_ID, "ENVELOPE_SIGNER_NOT_PINNED"),
        ("opened as another organization's export", bundle, "org-other",
         "ENVELOPE_ORGANIZATION_MISMATCH"),
        ("the unsigned sandbox form, no sandbox opt-in", sealed(None), ORGANIZATION_ID,
         "ENVELOPE_UNSIGNED"),
    ]  # fmt: skip
    for label, forged, organization, wanted in attacks:
        code = rejected(
            functools.partial(
                ewc.open_export_bundle,
                forged,
                client,
                organization_id=organization,
                signer_public_key=pinned,
            ),
            ewc.EnvelopeError,
        )
        show(f"client: {label:<50}-> {code}")
        check(code == wanted, f"{label}: expected {wanted}, got {code}")


def otp_round_trip(show: Show) -> None:
    fetcher = ewc.KeyPair.generate()  # stands in for the pinned TLS-fetcher signer
    target = ewc.KeyPair.generate()
    client = ewc.KeyPair.generate()
    codes = ewc.otp.OneTimeCodes(hash_key=ewc.KeyPair.generate().private_key_bytes())
    issued = codes.issue("AuthMethod:demo-email")
    expires = f"{issued.expires_at:%H:%M:%S}"
    show(f"server: issued a 6-digit code (emailed), keeps only its HMAC; expires {expires} UTC")
    bundle = ewc.otp.seal_target_bundle(
        target.public_key_hex(), organization_id=ORGANIZATION_ID, user_id=USER_ID, signer=fetcher
    )
    show(f"server -> client  otpEncryptionTargetBundle {short_json(json.loads(bundle))}")
    pinned = fetcher.public_key_hex()
    sealed = ewc.otp.encrypt_otp_code(
        bundle,
        issued.code,
        client.public_key_hex(compressed=True),
        signer_public_key=pinned,
        organization_id=ORGANIZATION_ID,
        user_id=USER_ID,
    )
    show(f"client -> server  encryptedOtpBundle {short_json(json.loads(sealed))}")
    submission = ewc.otp.decrypt_otp_bundle(sealed, target)
    check(submission.public_key == client.public_key_hex(compressed=True), "another key bound")
    verified = codes.verify(issued.credential_id, submission.otp_code)
    show(f"server: opened it; code accepted for {verified.credential_id}")
    show(f"server: the verification binds key {short(submission.public_key)}")
    swapped = _with_target_swapped(bundle, ewc.KeyPair.generate().public_key_hex())
    code = rejected(
        lambda: ewc.otp.encrypt_otp_code(
            swapped, issued.code, client.public_key_hex(), signer_public_key=pinned
        ),
        ewc.EnvelopeError,
    )
    show(f"client: target bundle with a swapped targetPublic            -> {code}")
    check(code == "ENVELOPE_SIGNATURE_INVALID", f"a swapped target gave {code}")
    replay = rejected(lambda: codes.verify(issued.credential_id, issued.code), ewc.OtpError)
    show(f"server: the same code again                                  -> {replay}")


def _with_target_swapped(bundle: str, attacker_key: str) -> str:
    envelope = json.loads(bundle)
    data = json.loads(bytes.fromhex(envelope["data"]))
    data["targetPublic"] = attacker_key
    envelope["data"] = json.dumps(data, separators=(",", ":")).encode().hex()
    return json.dumps(envelope)


def import_round_trip(show: Show) -> None:
    enclave = ewc.KeyPair.generate()  # the signer a real client pins (production key)
    target = ewc.KeyPair.generate()  # the enclave's import target key
    bundle = ewc.seal_import_bundle(
        target.public_key_hex(), organization_id=ORGANIZATION_ID, user_id=USER_ID, signer=enclave
    )
    envelope = json.loads(bundle)
    show(f"server -> client  import bundle {short_json(envelope)}")
    show(
        f"                  data = hex of {short_json(json.loads(bytes.fromhex(envelope['data'])))}"
    )
    pinned = enclave.public_key_hex()
    options: dict[str, Any] = {
        "organization_id": ORGANIZATION_ID,
        "user_id": USER_ID,
        "signer_public_key": pinned,
    }
    sealed = ewc.encrypt_wallet_to_bundle(bundle, MNEMONIC, **options)
    show(f"client -> server  encrypted wallet {short_json(json.loads(sealed))}")
    opened = ewc.open_import_bundle(sealed, target)
    check(opened == MNEMONIC.encode(), "the enclave did not open the imported mnemonic")
    show("server: opened the mnemonic with the target key")

    key = ewc.KeyPair.generate().private_key_bytes()
    solana = ewc.encode_private_key(key, ewc.KeyFormat.SOLANA)
    sealed_key = ewc.encrypt_private_key_to_bundle(
        bundle, solana, key_format=ewc.KeyFormat.SOLANA, **options
    )
    check(ewc.open_import_bundle(sealed_key, target) == key, "the imported key differs")
    client = ewc.KeyPair.generate()
    exported = ewc.seal_export_bundle(
        client.public_key_hex(), key, organization_id=ORGANIZATION_ID, signer=enclave
    )
    shown = ewc.open_export_private_key(
        exported, client, key_format="SOLANA", organization_id=ORGANIZATION_ID,
        signer_public_key=pinned,
    )  # fmt: skip
    check(shown == solana, "the exported key does not show as the imported Solana text")
    show("client: a Solana key (seed || Ed25519 public key, base58) imported; the server exports")
    show("        it back and the client shows it as the same SOLANA text")

    attacks = [
        ("signed by a key that is not the pinned signer", ewc.seal_import_bundle(
            target.public_key_hex(), organization_id=ORGANIZATION_ID, user_id=USER_ID,
            signer=ewc.KeyPair.generate()), ORGANIZATION_ID, USER_ID, MNEMONIC,
         "ENVELOPE_SIGNER_NOT_PINNED"),
        ("made for another user", bundle, ORGANIZATION_ID, "User:other", MNEMONIC,
         "ENVELOPE_USER_MISMATCH"),
        ("one byte of the signed data changed", _with_data_byte_changed(bundle),
         ORGANIZATION_ID, USER_ID, MNEMONIC, "ENVELOPE_SIGNATURE_INVALID"),
        ("a mnemonic with a damaged checksum", bundle, ORGANIZATION_ID, USER_ID,
         MNEMONIC.replace("yellow", "winner"), "MNEMONIC_CHECKSUM"),
    ]  # fmt: skip
    for label, forged, organization, user, mnemonic, wanted in attacks:
        code = rejected(
            functools.partial(
                ewc.encrypt_wallet_to_bundle,
                forged,
                mnemonic,
                organization_id=organization,
                user_id=user,
                signer_public_key=pinned,
            ),
            ewc.WalletCryptoError,
        )
        check(code == wanted, f"{label}: raised {code}, not {wanted}")
        show(f"client: {label} -> {code}")
